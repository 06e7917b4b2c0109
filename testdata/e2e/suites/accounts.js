// Node-held accounts: eth_sendTransaction through ethers' JsonRpcSigner,
// eth_sign, personal_sign and eth_signTransaction verified client-side by ethers (the
// signatures must recover to the dev address and match a local signature).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ethers } from 'ethers';
import { env, rpc, devWallet, ACCOUNTS } from '../lib/env.js';

describe('node-held accounts', () => {
  it('JsonRpcSigner sends a transfer with eth_sendTransaction', async () => {
    const signer = await env.provider.getSigner(0);
    assert.equal(await signer.getAddress(), devWallet(ACCOUNTS.nodeHeld).address);
    const to = ethers.Wallet.createRandom().address;
    const before = await env.provider.getBalance(signer.address);
    const tx = await signer.sendTransaction({ to, value: 12345n });
    const rc = await tx.wait();
    assert.equal(rc.status, 1);
    assert.equal(rc.from, signer.address);
    assert.equal(await env.provider.getBalance(to), 12345n);
    // The dev validator has a key of its own, none of the dev accounts: the
    // tip goes to it, and the sender pays exactly value + gasUsed * gasPrice.
    const block = await env.provider.getBlock(rc.blockNumber);
    const devAccounts = Array.from({ length: 10 }, (_, i) => devWallet(i).address);
    assert.ok(!devAccounts.includes(ethers.getAddress(block.miner)), 'the validator is a dev account');
    assert.ok(rc.gasPrice > block.baseFeePerGas, 'no tip paid');
    assert.equal(before - (await env.provider.getBalance(signer.address)), 12345n + rc.gasUsed * rc.gasPrice);
    // With no fee fields the node picks EIP-1559.
    assert.equal(rc.type, 2);
  });

  it('eth_sendTransaction deploys a contract', async () => {
    const signer = await env.provider.getSigner(0);
    const { Reverter } = env.artifacts;
    const tx = await signer.sendTransaction({ data: Reverter.bytecode });
    const rc = await tx.wait();
    assert.equal(rc.status, 1);
    assert.equal(rc.contractAddress, ethers.getCreateAddress({ from: signer.address, nonce: tx.nonce }));
    assert.equal(await env.provider.getCode(rc.contractAddress), Reverter.deployed);
  });

  it('eth_sign and personal_sign sign EIP-191 messages ethers can verify', async () => {
    const signer = await env.provider.getSigner(0);
    for (const msg of ['hello chaind', ethers.getBytes('0xdeadbeef00ff')]) {
      // RFC 6979 signatures are deterministic: the node and ethers agree bit for bit.
      const want = await devWallet(ACCOUNTS.nodeHeld).signMessage(msg);
      const sig = await env.provider.send('eth_sign', [signer.address, ethers.hexlify(typeof msg === 'string' ? ethers.toUtf8Bytes(msg) : msg)]);
      assert.equal(ethers.verifyMessage(msg, sig), signer.address);
      assert.equal(sig, want);
      // JsonRpcSigner.signMessage speaks personal_sign (message first).
      assert.equal(await signer.signMessage(msg), want);
    }
    const res = await rpc('eth_sign', [ethers.Wallet.createRandom().address, '0x00']);
    assert.match(res.error.message, /unknown account/);
    const bad = await rpc('personal_sign', ['0x00', ethers.Wallet.createRandom().address]);
    assert.match(bad.error.message, /unknown account/);
  });

  it('eth_signTransaction round trip: sign on the node, verify and broadcast', async () => {
    const from = devWallet(ACCOUNTS.nodeHeld).address;
    const to = ethers.Wallet.createRandom().address;
    const nonce = await env.provider.getTransactionCount(from, 'pending');
    const cases = [
      { want: 2, fields: { maxFeePerGas: '0x174876e800', maxPriorityFeePerGas: '0x3b9aca00' } },
      { want: 0, fields: { gasPrice: '0x174876e800' } },
      { want: 1, fields: { gasPrice: '0x174876e800', accessList: [{ address: to, storageKeys: [] }] } },
    ];
    for (const [i, c] of cases.entries()) {
      const req = { from, to, value: '0x2a', gas: '0x7530', nonce: ethers.toQuantity(nonce + i), ...c.fields };
      const res = await env.provider.send('eth_signTransaction', [req]);
      const tx = ethers.Transaction.from(res.raw);
      assert.equal(tx.type, c.want);
      assert.equal(tx.from, from);
      assert.equal(tx.to, to);
      assert.equal(tx.value, 42n);
      assert.equal(tx.gasLimit, 30000n);
      assert.equal(tx.nonce, nonce + i);
      assert.equal(tx.chainId, 8118n);
      assert.equal(res.tx.hash, tx.hash);
      // Signing the same fields locally gives the same bytes.
      const unsigned = ethers.Transaction.from(tx.unsignedSerialized);
      assert.equal(await devWallet(ACCOUNTS.nodeHeld).signTransaction(unsigned), res.raw);
    }
    // Broadcast them in order; all three land.
    for (let i = 0; i < cases.length; i++) {
      const req = { from, to, value: '0x2a', gas: '0x7530', nonce: ethers.toQuantity(nonce + i), ...cases[i].fields };
      const { raw } = await env.provider.send('eth_signTransaction', [req]);
      const sent = await env.provider.broadcastTransaction(raw);
      const rc = await sent.wait();
      assert.equal(rc.status, 1);
      assert.equal(rc.type, cases[i].want);
    }
    assert.equal(await env.provider.getBalance(to), 3n * 42n);
  });

  it('rejects eth_sendTransaction from an account the node does not hold', async () => {
    const res = await rpc('eth_sendTransaction', [{ from: ethers.Wallet.createRandom().address, to: devWallet(0).address, value: '0x1', gas: '0x5208' }]);
    assert.ok(res.error, 'expected an error');
    assert.match(res.error.message, /unknown account/);
  });
});
