// Polling filters: eth_newFilter / eth_getFilterChanges / eth_getFilterLogs,
// block filters and eth_getLogs, each checked against the receipts.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { ethers } from 'ethers';
import { env, ACCOUNTS } from '../lib/env.js';

const TRANSFER = ethers.id('Transfer(address,address,uint256)');

describe('filters (polling)', () => {
  let w, token, addr;

  before(async () => {
    w = env.wallet(ACCOUNTS.filters);
    const { Token } = env.artifacts;
    token = await new ethers.ContractFactory(Token.abi, Token.bytecode, w).deploy('Filter', 'FLT', 10n ** 24n);
    await token.waitForDeployment();
    addr = await token.getAddress();
  });

  it('eth_newFilter + eth_getFilterChanges report each new log once', async () => {
    const p = env.provider;
    // fromBlock in the future: changes start with the next block, and
    // eth_getFilterLogs (which defaults to the latest block only, as in
    // geth) covers everything this test sends.
    const from = (await p.getBlockNumber()) + 1;
    const id = await p.send('eth_newFilter', [{ address: addr, topics: [TRANSFER], fromBlock: ethers.toQuantity(from) }]);
    assert.equal((await p.send('eth_getFilterChanges', [id])).length, 0);

    const a = ethers.Wallet.createRandom().address;
    const b = ethers.Wallet.createRandom().address;
    const rc1 = await (await token.transfer(a, 11n)).wait();
    const rc2 = await (await token.transfer(b, 22n)).wait();
    // Noise the filter must not match: another contract's event.
    const { Reverter } = env.artifacts;
    const r = await new ethers.ContractFactory(Reverter.abi, Reverter.bytecode, w).deploy();
    await (await r.set(3n)).wait();

    const changes = await p.send('eth_getFilterChanges', [id]);
    assert.equal(changes.length, 2);
    const parsed = changes.map((l) => token.interface.parseLog(l));
    assert.deepEqual([...parsed[0].args], [w.address, a, 11n]);
    assert.deepEqual([...parsed[1].args], [w.address, b, 22n]);
    assert.deepEqual(changes.map((l) => l.transactionHash), [rc1.hash, rc2.hash]);
    assert.deepEqual(changes.map((l) => l.blockHash), [rc1.blockHash, rc2.blockHash]);
    assert.ok(changes.every((l) => l.address.toLowerCase() === addr.toLowerCase()));

    assert.deepEqual(await p.send('eth_getFilterChanges', [id]), []);
    const all = await p.send('eth_getFilterLogs', [id]);
    assert.deepEqual(all.map((l) => l.transactionHash), [rc1.hash, rc2.hash]);

    assert.equal(await p.send('eth_uninstallFilter', [id]), true);
    assert.equal(await p.send('eth_uninstallFilter', [id]), false);
    await assert.rejects(p.send('eth_getFilterChanges', [id]), /filter not found/);
  });

  it('eth_newBlockFilter reports new block hashes', async () => {
    const p = env.provider;
    const id = await p.send('eth_newBlockFilter', []);
    const rc = await (await token.transfer(w.address, 1n)).wait();
    const hashes = await p.send('eth_getFilterChanges', [id]);
    assert.ok(hashes.includes(rc.blockHash), `block ${rc.blockHash} not in ${hashes}`);
    assert.deepEqual(await p.send('eth_getFilterChanges', [id]), []);
    assert.equal(await p.send('eth_uninstallFilter', [id]), true);
  });

  it('eth_getLogs selects by block range and indexed topic', async () => {
    const to = ethers.Wallet.createRandom().address;
    const rc = await (await token.transfer(to, 99n)).wait();
    const logs = await env.provider.getLogs({
      address: addr,
      topics: [TRANSFER, null, ethers.zeroPadValue(to, 32)],
      fromBlock: 0,
      toBlock: rc.blockNumber,
    });
    assert.equal(logs.length, 1);
    assert.equal(logs[0].transactionHash, rc.hash);
    assert.equal(BigInt(logs[0].data), 99n);
    const none = await env.provider.getLogs({ address: addr, topics: [TRANSFER, null, ethers.zeroPadValue(to, 32)], fromBlock: 0, toBlock: rc.blockNumber - 1 });
    assert.equal(none.length, 0);
    const byHash = await env.provider.getLogs({ blockHash: rc.blockHash, address: addr });
    assert.deepEqual(byHash.map((l) => l.transactionHash), [rc.hash]);
  });
});
