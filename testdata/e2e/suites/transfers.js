// Value transfers signed client-side by ethers wallets, one per transaction
// type, each checked down to the wei: the recipient gets the value and the
// sender pays exactly value + gasUsed * effectiveGasPrice.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ethers } from 'ethers';
import { env, ACCOUNTS, CHAIN_ID } from '../lib/env.js';

async function transfer(account, fields, wantType) {
  const w = env.wallet(account);
  const to = ethers.Wallet.createRandom().address; // fresh: balance 0
  const value = ethers.parseEther('1.25') + BigInt(account);
  const before = await env.provider.getBalance(w.address);
  const nonce = await env.provider.getTransactionCount(w.address, 'pending');

  const tx = await w.sendTransaction({ to, value, ...fields });
  assert.equal(tx.type, wantType);
  assert.equal(tx.nonce, nonce);
  const rc = await tx.wait(1, 30_000);
  assert.equal(rc.status, 1);
  assert.equal(rc.type, wantType);
  assert.equal(rc.to, to);
  assert.equal(rc.from, w.address);
  assert.equal(await env.provider.getBalance(to), value);
  const after = await env.provider.getBalance(w.address);
  assert.equal(before - after, value + rc.gasUsed * rc.gasPrice);

  const got = await env.provider.getTransaction(tx.hash);
  assert.equal(got.type, wantType);
  assert.equal(got.blockNumber, rc.blockNumber);
  assert.equal(got.blockHash, rc.blockHash);
  assert.equal(got.from, w.address);
  assert.equal(got.value, value);
  assert.equal(got.chainId, BigInt(CHAIN_ID));
  // The node serves back exactly the bytes that were signed.
  assert.equal(got.serialized, tx.serialized);
  const block = await env.provider.getBlock(rc.blockNumber);
  assert.ok(block.transactions.includes(tx.hash));
  return { tx, rc, block, to, value };
}

describe('transfers (ethers, client-side signing)', () => {
  it('legacy (type 0, EIP-155)', async () => {
    const { tx, rc } = await transfer(ACCOUNTS.legacy, { type: 0 }, 0);
    assert.equal(rc.gasUsed, 21000n);
    assert.equal(rc.gasPrice, tx.gasPrice);
    const raw = await env.provider.send('eth_getTransactionByHash', [tx.hash]);
    assert.ok([CHAIN_ID * 2 + 35, CHAIN_ID * 2 + 36].includes(Number(raw.v)), `v = ${raw.v}`);
  });

  it('EIP-2930 access list (type 1)', async () => {
    const accessList = [{ address: '0x00000000000000000000000000000000000000aa', storageKeys: [ethers.ZeroHash, ethers.toBeHex(1, 32)] }];
    const { rc } = await transfer(ACCOUNTS.accessList, { type: 1, accessList }, 1);
    // 21000 + one address (2400) + two keys (2 * 1900)
    assert.equal(rc.gasUsed, 21000n + 2400n + 2n * 1900n);
    const got = await env.provider.getTransaction(rc.hash);
    assert.deepEqual(got.accessList.map((e) => [e.address.toLowerCase(), e.storageKeys]), accessList.map((e) => [e.address, e.storageKeys]));
  });

  it('EIP-1559 dynamic fee (type 2) pays base fee + tip', async () => {
    const tip = ethers.parseUnits('2', 'gwei');
    const { rc, block } = await transfer(ACCOUNTS.dynamic, { type: 2, maxPriorityFeePerGas: tip, maxFeePerGas: ethers.parseUnits('100', 'gwei') }, 2);
    assert.equal(rc.gasUsed, 21000n);
    assert.equal(rc.gasPrice, block.baseFeePerGas + tip);
  });

  it('rejects a replayed transaction and an unfunded sender', async () => {
    const w = env.wallet(ACCOUNTS.dynamic);
    const signed = await w.signTransaction(await w.populateTransaction({ to: w.address, value: 1n, type: 2 }));
    const rc = await (await env.provider.broadcastTransaction(signed)).wait();
    assert.equal(rc.status, 1);
    await assert.rejects(env.provider.broadcastTransaction(signed), (e) => {
      assert.match(e.message, /nonce too low|already known/);
      return true;
    });

    const poor = ethers.Wallet.createRandom().connect(env.provider);
    await assert.rejects(
      poor.sendTransaction({ to: w.address, value: 1n, gasLimit: 21000n, type: 2, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n }),
      (e) => {
        assert.equal(e.code, 'INSUFFICIENT_FUNDS');
        return true;
      },
    );
  });
});
