// Chain identity, the dev accounts and the genesis state, read with both
// ethers and viem and checked against values derived independently here.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ethers } from 'ethers';
import { env, rpc, devWallet, CHAIN_ID, DEV_BALANCE, ACCOUNTS } from '../lib/env.js';

describe('basics', () => {
  it('reports chain ID 8118 (eth_chainId, net_version, ethers, viem)', async () => {
    assert.equal(await env.provider.send('eth_chainId', []), '0x1fb6');
    assert.equal(await env.provider.send('net_version', []), String(CHAIN_ID));
    assert.equal(await env.publicClient.getChainId(), CHAIN_ID);
    // A provider that detects the network instead of being told it.
    const p = new ethers.JsonRpcProvider(env.node.http);
    try {
      assert.equal((await p.getNetwork()).chainId, BigInt(CHAIN_ID));
    } finally {
      p.destroy();
    }
  });

  it('identifies itself as chaind', async () => {
    const v = await env.provider.send('web3_clientVersion', []);
    // A --dev node says it is anvil-compatible first: Hardhat's network
    // helpers run only against a version starting with "anvil".
    assert.match(v, /^anvil-compatible chaind\//);
  });

  it('holds the ten mnemonic accounts (eth_accounts)', async () => {
    const got = await env.provider.send('eth_accounts', []);
    const want = Array.from({ length: 10 }, (_, i) => devWallet(i).address);
    assert.deepEqual(got.map((a) => ethers.getAddress(a)), want);
    assert.equal(want[0], '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
  });

  it('reports the validator as coinbase, none of the dev accounts (eth_coinbase)', async () => {
    // The --dev validator's key: keccak256("chaind devnet validator" || uint16 0).
    const key = ethers.keccak256(ethers.concat([ethers.toUtf8Bytes('chaind devnet validator'), '0x0000']));
    const validator = new ethers.Wallet(key).address;
    assert.equal(ethers.getAddress(await env.provider.send('eth_coinbase', [])), validator);
    const accounts = Array.from({ length: 10 }, (_, i) => devWallet(i).address);
    assert.ok(!accounts.includes(validator));
  });

  it('funds every dev account with 10,000 CHAIN at genesis', async () => {
    for (let i = 0; i < 10; i++) {
      const addr = devWallet(i).address;
      assert.equal(await env.provider.getBalance(addr, 0), DEV_BALANCE, `account ${i} (ethers)`);
      assert.equal(await env.publicClient.getBalance({ address: addr, blockNumber: 0n }), DEV_BALANCE, `account ${i} (viem)`);
    }
    const untouched = devWallet(ACCOUNTS.untouched).address;
    assert.equal(await env.provider.getBalance(untouched, 'latest'), DEV_BALANCE);
    assert.equal(await env.provider.getTransactionCount(untouched, 'latest'), 0);
    assert.equal(await env.provider.getBalance(ethers.Wallet.createRandom().address), 0n);
  });

  it('serves a Cancun genesis block', async () => {
    const b = (await rpc('eth_getBlockByNumber', ['0x0', false])).result;
    assert.equal(b.number, '0x0');
    assert.equal(b.parentHash, ethers.ZeroHash);
    for (const f of ['baseFeePerGas', 'withdrawalsRoot', 'blobGasUsed', 'excessBlobGas', 'parentBeaconBlockRoot']) {
      assert.ok(b[f] !== undefined, `genesis block lacks ${f}`);
    }
    const byHash = (await rpc('eth_getBlockByHash', [b.hash, false])).result;
    assert.equal(byHash.hash, b.hash);
    const block = await env.publicClient.getBlock({ blockNumber: 0n });
    assert.equal(block.hash, b.hash);
    assert.equal(block.baseFeePerGas, BigInt(b.baseFeePerGas));
  });

  it('answers JSON-RPC errors with their codes', async () => {
    assert.equal((await rpc('no_suchMethod')).error.code, -32601);
    assert.equal((await rpc('eth_getBalance', ['0x1234'])).error.code, -32602);
    assert.equal((await rpc('eth_getBalance', [])).error.code, -32602);
    const res = await fetch(env.node.http, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0",' });
    assert.equal((await res.json()).error.code, -32700);
  });
});
