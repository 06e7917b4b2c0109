// The same ground covered with viem: local-account transfers of each type,
// a contract deployed and driven, revert decoding, a WebSocket transport
// for heads and logs, and a polling event filter.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import {
  BaseError,
  ContractFunctionRevertedError,
  createWalletClient,
  http,
  decodeEventLog,
  parseEther,
  parseGwei,
  toHex,
  verifyMessage,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { env, nextEvent, devWallet, ACCOUNTS } from '../lib/env.js';

const revertOf = (e) => (e instanceof BaseError ? e.walk((x) => x instanceof ContractFunctionRevertedError) : null);

describe('viem', () => {
  let wc, pc, token, reverter;

  before(async () => {
    wc = env.walletClient(ACCOUNTS.viem);
    pc = env.publicClient;
    const { Token, Reverter } = env.artifacts;
    const h1 = await wc.deployContract({ abi: Token.abi, bytecode: Token.bytecode, args: ['Viem', 'VIEM', parseEther('1000')] });
    const h2 = await wc.deployContract({ abi: Reverter.abi, bytecode: Reverter.bytecode });
    token = (await pc.waitForTransactionReceipt({ hash: h1 })).contractAddress;
    reverter = (await pc.waitForTransactionReceipt({ hash: h2 })).contractAddress;
    assert.ok(token && reverter);
  });

  for (const [type, extra] of [
    ['legacy', { gasPrice: parseGwei('20') }],
    ['eip2930', { gasPrice: parseGwei('20'), accessList: [{ address: '0x00000000000000000000000000000000000000bb', storageKeys: [] }] }],
    ['eip1559', { maxFeePerGas: parseGwei('50'), maxPriorityFeePerGas: parseGwei('1') }],
  ]) {
    it(`sends a ${type} transfer signed by a local account`, async () => {
      const to = privateKeyToAccount(generatePrivateKey()).address;
      const hash = await wc.sendTransaction({ to, value: 31337n, type, ...extra });
      const rc = await pc.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      assert.equal(rc.status, 'success');
      assert.equal(rc.type, type);
      assert.equal(rc.gasUsed, type === 'eip2930' ? 23400n : 21000n);
      assert.equal(await pc.getBalance({ address: to }), 31337n);
      const tx = await pc.getTransaction({ hash });
      assert.equal(tx.type, type);
      assert.equal(tx.from.toLowerCase(), wc.account.address.toLowerCase());
      assert.equal(tx.chainId, 8118);
    });
  }

  it('reads, estimates and writes the ERC-20', async () => {
    const { abi } = env.artifacts.Token;
    assert.equal(await pc.readContract({ address: token, abi, functionName: 'symbol' }), 'VIEM');
    assert.equal(await pc.readContract({ address: token, abi, functionName: 'balanceOf', args: [wc.account.address] }), parseEther('1000'));
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const gas = await pc.estimateContractGas({ address: token, abi, functionName: 'transfer', args: [to, 5n], account: wc.account });
    assert.ok(gas > 40_000n && gas < 80_000n, `estimate ${gas}`);
    const { request } = await pc.simulateContract({ address: token, abi, functionName: 'transfer', args: [to, 5n], account: wc.account });
    const rc = await pc.waitForTransactionReceipt({ hash: await wc.writeContract(request) });
    assert.equal(rc.status, 'success');
    const ev = decodeEventLog({ abi, data: rc.logs[0].data, topics: rc.logs[0].topics });
    assert.equal(ev.eventName, 'Transfer');
    assert.equal(ev.args.to, to);
    assert.equal(ev.args.value, 5n);
  });

  it('decodes custom errors and reason strings', async () => {
    const { abi } = env.artifacts.Reverter;
    await assert.rejects(pc.simulateContract({ address: reverter, abi, functionName: 'withCustom', args: [9n], account: wc.account }), (e) => {
      const r = revertOf(e);
      assert.ok(r, `not a revert: ${e.message}`);
      assert.equal(r.data?.errorName, 'Unauthorized');
      assert.deepEqual(r.data.args, [wc.account.address, 9n]);
      return true;
    });
    await assert.rejects(pc.readContract({ address: reverter, abi, functionName: 'withReason' }), (e) => {
      assert.equal(revertOf(e)?.reason, 'reverter: no way');
      return true;
    });
    await assert.rejects(pc.estimateContractGas({ address: reverter, abi, functionName: 'set', args: [0n], account: wc.account }), (e) => {
      assert.equal(revertOf(e)?.reason, 'reverter: zero');
      return true;
    });
  });

  it('watches blocks and contract events over a WebSocket transport', async () => {
    const ws = env.wsClient(env.node.wsOnly);
    const { abi } = env.artifacts.Token;
    const start = await pc.getBlockNumber();
    const to = privateKeyToAccount(generatePrivateKey()).address;
    let unwatchBlocks, unwatchLogs;
    const block = nextEvent((cb) => (unwatchBlocks = ws.watchBlocks({ onBlock: cb, onError: (e) => cb(e) })), 'a viem block');
    const logs = nextEvent((cb) => (unwatchLogs = ws.watchContractEvent({ address: token, abi, eventName: 'Transfer', args: { to }, onLogs: cb, onError: (e) => cb(e) })), 'viem logs');
    const sent = [];
    let running = true;
    const loop = (async () => {
      while (running) {
        const hash = await wc.writeContract({ address: token, abi, functionName: 'transfer', args: [to, 3n] });
        sent.push(hash);
        await pc.waitForTransactionReceipt({ hash, pollingInterval: 50 });
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    let b, ls;
    try {
      [b, ls] = await Promise.all([block, logs]);
    } finally {
      running = false;
      await loop;
      unwatchBlocks?.();
      unwatchLogs?.();
      await ws.transport.getRpcClient?.().then((c) => c.close()).catch(() => {});
    }
    assert.ok(!(b instanceof Error), String(b));
    assert.ok(!(ls instanceof Error), String(ls));
    assert.ok(b.number > start);
    assert.equal(b.hash, (await pc.getBlock({ blockNumber: b.number })).hash);
    assert.ok(ls.length >= 1);
    assert.equal(ls[0].eventName, 'Transfer');
    assert.equal(ls[0].args.to, to);
    assert.equal(ls[0].args.value, 3n);
    assert.ok(sent.includes(ls[0].transactionHash));
  });

  it('polls a contract event filter', async () => {
    const { abi } = env.artifacts.Token;
    const filter = await pc.createContractEventFilter({ address: token, abi, eventName: 'Transfer' });
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const hash = await wc.writeContract({ address: token, abi, functionName: 'transfer', args: [to, 8n] });
    await pc.waitForTransactionReceipt({ hash });
    const changes = await pc.getFilterChanges({ filter });
    assert.equal(changes.length, 1);
    assert.equal(changes[0].transactionHash, hash);
    assert.equal(changes[0].args.to, to);
    assert.equal(changes[0].args.value, 8n);
    assert.equal((await pc.getFilterChanges({ filter })).length, 0);
    assert.equal(await pc.uninstallFilter({ filter }), true);
  });

  it('verifies an eth_sign signature made by the node', async () => {
    const addr = devWallet(ACCOUNTS.nodeHeld).address;
    const sig = await pc.request({ method: 'eth_sign', params: [addr, toHex('chaind')] });
    assert.equal(await verifyMessage({ address: addr, message: 'chaind', signature: sig }), true);
    assert.equal(await verifyMessage({ address: wc.account.address, message: 'chaind', signature: sig }), false);
  });

  it('signs with a node-held (JSON-RPC) account through personal_sign', async () => {
    const addr = devWallet(ACCOUNTS.nodeHeld).address;
    const rpcWallet = createWalletClient({ account: addr, chain: env.chain, transport: http(env.node.http) });
    const sig = await rpcWallet.signMessage({ message: 'chaind via viem' });
    assert.equal(await verifyMessage({ address: addr, message: 'chaind via viem', signature: sig }), true);
    assert.equal(sig, await devWallet(ACCOUNTS.nodeHeld).signMessage('chaind via viem'));
  });
});
