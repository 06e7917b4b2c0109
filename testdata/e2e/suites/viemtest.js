// viem's test client in anvil mode against chaind --dev, as a viem user's
// test suite drives anvil: state setters, impersonation, mining control,
// time, snapshots, the pool, logging, state dumps; then an EIP-7702
// delegation made with viem (signAuthorization and a type-4 transaction)
// on the dev chain's default fork. It runs after the ethers helpers suite
// and puts back every mode it changes.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestClient, createWalletClient, http, parseEther, publicActions, walletActions } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { env } from '../lib/env.js';

// CALLVALUE PUSH0 SSTORE STOP: stores the call's value in slot 0 (of
// whoever's context it runs in); the init code returns those four bytes.
const RUNTIME = '0x345f5500';
const INIT = '0x63345f55005f526004601cf3';

describe('viem test client (anvil mode)', () => {
  let tc, pc;

  before(() => {
    tc = createTestClient({ mode: 'anvil', chain: env.chain, transport: http(env.node.http), pollingInterval: 50, cacheTime: 0 })
      .extend(publicActions)
      .extend(walletActions);
    pc = env.publicClient;
  });

  /** A fresh local account funded with setBalance: nobody else moves its balance. */
  async function funded(ether = '10') {
    const account = privateKeyToAccount(generatePrivateKey());
    await tc.setBalance({ address: account.address, value: parseEther(ether) });
    return account;
  }

  it('sets balance, code, nonce and storage', async () => {
    const a = privateKeyToAccount(generatePrivateKey()).address;
    await tc.setBalance({ address: a, value: 12345n });
    assert.equal(await pc.getBalance({ address: a }), 12345n);
    await tc.setCode({ address: a, bytecode: RUNTIME });
    assert.equal(await pc.getCode({ address: a }), RUNTIME);
    await tc.setNonce({ address: a, nonce: 7 });
    assert.equal(await pc.getTransactionCount({ address: a }), 7);
    const slot = '0x' + '00'.repeat(31) + '01';
    const value = '0x' + '00'.repeat(31) + '2a';
    await tc.setStorageAt({ address: a, index: slot, value });
    assert.equal(await pc.getStorageAt({ address: a, slot }), value);
  });

  it('impersonates an account and sends from it without its key', async () => {
    const whale = privateKeyToAccount(generatePrivateKey()).address;
    const to = privateKeyToAccount(generatePrivateKey()).address;
    await tc.setBalance({ address: whale, value: parseEther('1') });
    await tc.impersonateAccount({ address: whale });
    try {
      const hash = await tc.sendTransaction({ account: whale, to, value: 777n });
      const rc = await pc.waitForTransactionReceipt({ hash });
      assert.equal(rc.status, 'success');
      assert.equal(await pc.getBalance({ address: to }), 777n);
    } finally {
      await tc.stopImpersonatingAccount({ address: whale });
    }
    await assert.rejects(tc.sendTransaction({ account: whale, to, value: 1n }));
  });

  it('sends an unsigned transaction (eth_sendUnsignedTransaction)', async () => {
    const from = privateKeyToAccount(generatePrivateKey()).address;
    const to = privateKeyToAccount(generatePrivateKey()).address;
    await tc.setBalance({ address: from, value: parseEther('1') });
    const hash = await tc.sendUnsignedTransaction({ from, to, value: 55n });
    assert.equal((await pc.waitForTransactionReceipt({ hash })).status, 'success');
    assert.equal(await pc.getBalance({ address: to }), 55n);
  });

  it('controls mining: automine off, the pool, drop, mine, automine back', async () => {
    const w = await funded();
    assert.equal(await tc.getAutomine(), true);
    await tc.setAutomine(false);
    try {
      assert.equal(await tc.getAutomine(), false);
      const start = await pc.getBlockNumber();
      const wc = createWalletClient({ account: w, chain: env.chain, transport: http(env.node.http) });
      const keep = await wc.sendTransaction({ to: w.address, value: 1n, nonce: 0 });
      const content = await tc.getTxpoolContent();
      assert.ok(content.pending[w.address]?.['0'] ?? content.pending[w.address.toLowerCase()]?.['0']);
      const status = await tc.getTxpoolStatus();
      assert.ok(status.pending >= 1);
      const inspect = await tc.inspectTxpool();
      assert.ok(Object.keys(inspect.pending).length >= 1);
      const drop = await wc.sendTransaction({ to: w.address, value: 2n, nonce: 1 });
      await tc.dropTransaction({ hash: drop });
      await tc.mine({ blocks: 3 });
      assert.equal(await pc.getBlockNumber(), start + 3n);
      assert.equal((await pc.getTransactionReceipt({ hash: keep })).status, 'success');
      await assert.rejects(pc.getTransactionReceipt({ hash: drop }));
    } finally {
      await tc.setAutomine(true);
    }
  });

  it('moves time: increaseTime, setNextBlockTimestamp, a timestamp interval', async () => {
    const head = await pc.getBlock();
    await tc.setNextBlockTimestamp({ timestamp: head.timestamp + 1000n });
    await tc.mine({ blocks: 1 });
    assert.equal((await pc.getBlock()).timestamp, head.timestamp + 1000n);
    await tc.increaseTime({ seconds: 3600 });
    await tc.mine({ blocks: 1 });
    assert.ok((await pc.getBlock()).timestamp >= head.timestamp + 1000n + 3600n);
    await tc.setBlockTimestampInterval({ interval: 50 });
    try {
      const before = (await pc.getBlock()).timestamp;
      await tc.mine({ blocks: 2 });
      assert.equal((await pc.getBlock()).timestamp, before + 100n);
    } finally {
      await tc.removeBlockTimestampInterval();
    }
  });

  it('snapshots and reverts', async () => {
    const a = privateKeyToAccount(generatePrivateKey()).address;
    await tc.setBalance({ address: a, value: 1n });
    const id = await tc.snapshot();
    const n = await pc.getBlockNumber();
    await tc.setBalance({ address: a, value: 2n });
    await tc.mine({ blocks: 2 });
    await tc.revert({ id });
    assert.equal(await pc.getBlockNumber(), n);
    assert.equal(await pc.getBalance({ address: a }), 1n);
  });

  it('sets the coinbase and the next block base fee', async () => {
    const cb = privateKeyToAccount(generatePrivateKey()).address;
    const before = await pc.getBlock();
    await tc.setCoinbase({ address: cb });
    await tc.setNextBlockBaseFeePerGas({ baseFeePerGas: 7n * 10n ** 9n });
    await tc.mine({ blocks: 1 });
    const b = await pc.getBlock();
    assert.equal(b.miner.toLowerCase(), cb.toLowerCase());
    assert.equal(b.baseFeePerGas, 7n * 10n ** 9n);
    await tc.setCoinbase({ address: before.miner });
  });

  it('turns logging off and on', async () => {
    await tc.setLoggingEnabled(false);
    await tc.setLoggingEnabled(true);
  });

  it('dumps the state and loads it back', async () => {
    const a = privateKeyToAccount(generatePrivateKey()).address;
    await tc.setBalance({ address: a, value: 424242n });
    const dump = await tc.dumpState();
    assert.match(dump, /^0x[0-9a-f]+$/);
    await tc.setBalance({ address: a, value: 1n });
    await tc.loadState({ state: dump });
    assert.equal(await pc.getBalance({ address: a }), 424242n);
  });

  it('makes an EIP-7702 delegation with viem (signAuthorization + a type-4 transaction)', async () => {
    const sponsor = await funded();
    const authority = privateKeyToAccount(generatePrivateKey());
    const wc = createWalletClient({ account: sponsor, chain: env.chain, transport: http(env.node.http) });
    // The code the authority delegates to.
    const deploy = await wc.sendTransaction({ data: INIT });
    const target = (await pc.waitForTransactionReceipt({ hash: deploy })).contractAddress;
    assert.equal(await pc.getCode({ address: target }), RUNTIME);

    const authorization = await wc.signAuthorization({ account: authority, contractAddress: target });
    assert.equal(authorization.chainId, env.chain.id);
    const hash = await wc.sendTransaction({ authorizationList: [authorization], to: authority.address, value: 9n });
    const rc = await pc.waitForTransactionReceipt({ hash });
    assert.equal(rc.status, 'success');
    assert.equal(rc.type, 'eip7702');
    const tx = await pc.getTransaction({ hash });
    assert.equal(tx.type, 'eip7702');
    assert.equal(tx.authorizationList.length, 1);
    assert.equal(tx.authorizationList[0].address.toLowerCase(), target.toLowerCase());
    // The authority's code is the delegation designator, and its calls
    // run the target's code in the authority's storage.
    assert.equal(await pc.getCode({ address: authority.address }), '0xef0100' + target.slice(2).toLowerCase());
    assert.equal(await pc.getStorageAt({ address: authority.address, slot: '0x0' }), '0x' + '00'.repeat(31) + '09');
    assert.equal(await pc.getTransactionCount({ address: authority.address }), 1);

    // Cleared again by delegating to the zero address.
    const clear = await wc.signAuthorization({ account: authority, contractAddress: '0x0000000000000000000000000000000000000000' });
    const h2 = await wc.sendTransaction({ authorizationList: [clear], to: sponsor.address });
    assert.equal((await pc.waitForTransactionReceipt({ hash: h2 })).status, 'success');
    assert.equal(await pc.getCode({ address: authority.address }), undefined);
  });
});
