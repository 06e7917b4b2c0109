// The test helpers of chaind --dev (evm_*, hardhat_*, anvil_*) and exact
// balance accounting, driven with ethers the way Hardhat and anvil users
// drive them. It runs last: its reverts rewind the chain, which would pull
// blocks from under a suite running after it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ethers } from 'ethers';
import { env, rpc, devWallet, CHAIN_ID } from '../lib/env.js';

// A contract whose runtime stores the call's value in slot 0:
// CALLVALUE PUSH0 SSTORE STOP; the init code returns those four bytes.
const RUNTIME = '0x345f5500';
const INIT = '0x63345f55005f526004601cf3';
// A contract that stores CHAINID in slot 0 and returns it: CHAINID PUSH0
// SSTORE CHAINID PUSH0 MSTORE PUSH1 32 PUSH0 RETURN, and its init code.
const CHAINID_INIT = '0x69465f55465f5260205ff35f52600a6016f3';
// How a transaction signed for another chain ID is refused (anvil 1.7.1
// and chaind alike).
const STALE_CHAIN_ID = /invalid chain id/i;

async function send(method, params) {
  const r = await rpc(method, params);
  if (r.error) throw new Error(`${method}: ${r.error.message}`);
  return r.result;
}

/** A fresh account funded by hardhat_setBalance: nobody else moves its balance. */
async function freshWallet(ether = '10') {
  const w = ethers.Wallet.createRandom().connect(env.provider);
  assert.equal(await send('hardhat_setBalance', [w.address, ethers.toQuantity(ethers.parseEther(ether))]), true);
  return w;
}

describe('dev test helpers (ethers)', () => {
  it('balance moves by exactly value + gasUsed × effectiveGasPrice, for every kind of transaction', async () => {
    const w = await freshWallet();
    const to = ethers.Wallet.createRandom().address;
    const fee = await env.provider.getFeeData();
    const step = async (req, value) => {
      const before = await env.provider.getBalance(w.address);
      const tx = await w.sendTransaction(req);
      const rc = await tx.wait(1, 30_000);
      assert.equal(rc.status, 1);
      const after = await env.provider.getBalance(w.address);
      assert.equal(before - after, value + rc.gasUsed * rc.gasPrice, `type ${tx.type}`);
      // The balance before is the one of the block before: nothing else moved it.
      assert.equal(await env.provider.getBalance(w.address, rc.blockNumber - 1), before);
      return rc;
    };
    await step({ to, value: 1001n, type: 0, gasPrice: fee.gasPrice }, 1001n);
    await step({ to, value: 1002n, type: 1, gasPrice: fee.gasPrice, accessList: [{ address: to, storageKeys: [ethers.ZeroHash] }] }, 1002n);
    await step({ to, value: 1003n, type: 2 }, 1003n);
    assert.equal(await env.provider.getBalance(to), 3006n);
    const deployed = await step({ data: INIT, type: 2 }, 0n);
    const contract = deployed.contractAddress;
    assert.equal(await env.provider.getCode(contract), RUNTIME);
    await step({ to: contract, value: 77n, type: 2, gasLimit: 60_000n }, 77n);
    assert.equal(await env.provider.getBalance(contract), 77n);
    assert.equal(BigInt(await env.provider.getStorage(contract, 0)), 77n);
  });

  it('evm_snapshot / evm_revert nest; a revert drops later snapshots; unknown ids are false', async () => {
    const w = await freshWallet('1');
    const start = await env.provider.getBlockNumber();
    const s1 = await send('evm_snapshot', []);
    const tx = await w.sendTransaction({ to: ethers.ZeroAddress, value: 5n });
    await tx.wait();
    const s2 = await send('evm_snapshot', []);
    await send('hardhat_setBalance', [w.address, '0x2a']);
    await send('evm_mine', []);
    assert.equal(await env.provider.getBalance(w.address), 42n);
    const s3 = await send('evm_snapshot', []);

    assert.equal(await send('evm_revert', [s2]), true);
    assert.equal(await env.provider.getBlockNumber(), start + 1);
    assert.ok((await env.provider.getBalance(w.address)) > 42n);
    assert.equal(await send('evm_revert', [s3]), false, 'a snapshot after the one reverted to is gone');
    assert.equal(await send('evm_revert', [s2]), false, 'a snapshot is used up by its revert');

    assert.equal(await send('evm_revert', [s1]), true);
    assert.equal(await env.provider.getBlockNumber(), start);
    assert.equal(await env.provider.getTransactionCount(w.address), 0);
    assert.equal(await env.provider.getTransaction(tx.hash), null);
    assert.equal(await env.provider.getBalance(w.address), ethers.parseEther('1'));
  });

  it('mines blocks on demand with timestamps; the clock moves forward', async () => {
    const latest = await env.provider.getBlock('latest');
    const ts = latest.timestamp + 1000;
    assert.equal(await send('evm_mine', [ts]), '0x0');
    assert.equal((await env.provider.getBlock('latest')).timestamp, ts);
    assert.equal(await send('hardhat_mine', ['0x3', '0xa']), true);
    const b = await env.provider.getBlock('latest');
    assert.equal(b.number, latest.number + 4);
    assert.equal(b.timestamp, (await env.provider.getBlock(b.number - 2)).timestamp + 20);
    await send('evm_setNextBlockTimestamp', [b.timestamp + 500]);
    await send('anvil_mine', []);
    assert.equal((await env.provider.getBlock('latest')).timestamp, b.timestamp + 500);
    const offset = await send('evm_increaseTime', [3600]);
    await send('evm_mine', []);
    assert.ok((await env.provider.getBlock('latest')).timestamp >= b.timestamp + 500 + 3600, `offset ${offset}`);
    const bad = await rpc('evm_setNextBlockTimestamp', [1]);
    assert.equal(bad.error?.code, -32602);
  });

  it('setBalance, setCode, setNonce and setStorageAt are read back at once and kept by the next block', async () => {
    const a = ethers.Wallet.createRandom().address;
    await send('hardhat_setBalance', [a, '0x64']);
    await send('hardhat_setCode', [a, RUNTIME]);
    await send('hardhat_setNonce', [a, '0x7']);
    await send('hardhat_setStorageAt', [a, '0x1', ethers.toBeHex(9, 32)]);
    const check = async (tag) => {
      assert.equal(await env.provider.getBalance(a, tag), 100n);
      assert.equal(await env.provider.getCode(a, tag), RUNTIME);
      assert.equal(await env.provider.getTransactionCount(a, tag), 7);
      assert.equal(BigInt(await env.provider.getStorage(a, 1, tag)), 9n);
    };
    await check('latest');
    await send('evm_mine', []);
    await check('latest');
    // The contract runs with its new code and storage.
    const w = await freshWallet('1');
    await (await w.sendTransaction({ to: a, value: 3n, gasLimit: 60_000n })).wait();
    assert.equal(BigInt(await env.provider.getStorage(a, 0)), 3n);
  });

  it('impersonation sends from an address with no key; stopping it refuses', async () => {
    const who = ethers.Wallet.createRandom().address;
    const to = ethers.Wallet.createRandom().address;
    await send('hardhat_setBalance', [who, ethers.toQuantity(ethers.parseEther('1'))]);
    assert.equal(await send('hardhat_impersonateAccount', [who]), true);
    const hash = await send('eth_sendTransaction', [{ from: who, to, value: '0x10' }]);
    const rc = await env.provider.waitForTransaction(hash, 1, 30_000);
    assert.equal(rc.status, 1);
    assert.equal(rc.from, who);
    assert.equal(await env.provider.getBalance(to), 16n);
    assert.equal((await env.provider.getTransaction(hash)).from, who);
    assert.equal(await send('hardhat_stopImpersonatingAccount', [who]), true);
    assert.ok((await rpc('eth_sendTransaction', [{ from: who, to, value: '0x1' }])).error);
    // anvil's switch impersonates every address.
    await send('anvil_autoImpersonateAccount', [true]);
    const h2 = await send('eth_sendTransaction', [{ from: who, to, value: '0x1' }]);
    assert.equal((await env.provider.waitForTransaction(h2, 1, 30_000)).status, 1);
    await send('anvil_autoImpersonateAccount', [false]);
  });

  it('eth_signTypedData_v4 signs EIP-712 data ethers verifies', async () => {
    const owner = devWallet(0).address;
    const signer = await env.provider.getSigner(owner);
    const domain = { name: 'Permit Test', version: '1', chainId: CHAIN_ID, verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC' };
    const types = { Permit: [{ name: 'owner', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'tags', type: 'bytes32[]' }, { name: 'note', type: 'string' }] };
    const value = { owner, value: 10n ** 30n, tags: [ethers.id('a'), ethers.id('b')], note: 'héllo' };
    const sig = await signer.signTypedData(domain, types, value);
    assert.equal(ethers.verifyTypedData(domain, types, value, sig), owner);
  });

  it('anvil_dealERC20 / anvil_setERC20Allowance find a compiled token\'s slots; evm_setBlockGasLimit; anvil_reorg', async () => {
    const w = await freshWallet('1');
    const { Token } = env.artifacts;
    const token = await new ethers.ContractFactory(Token.abi, Token.bytecode, w).deploy('Deal', 'DEAL', 1000n);
    await token.waitForDeployment();
    const addr = await token.getAddress();
    const holder = ethers.Wallet.createRandom().address;
    const spender = ethers.Wallet.createRandom().address;
    assert.equal(await send('anvil_dealERC20', [holder, addr, '0x1234']), null);
    assert.equal(await token.balanceOf(holder), 0x1234n);
    assert.equal(await send('anvil_setERC20Allowance', [holder, spender, addr, ethers.toQuantity(10n ** 20n)]), null);
    assert.equal(await token.allowance(holder, spender), 10n ** 20n);
    assert.equal(await token.balanceOf(w.address), 1000n, 'no other slot moved');
    const none = await rpc('anvil_dealERC20', [holder, ethers.Wallet.createRandom().address, '0x1']);
    assert.equal(none.error?.code, -32603);
    assert.match(none.error?.message, /no slot found/);

    // The gas limit of every next block, exactly, however far from the last one's.
    const before = (await env.provider.getBlock('latest')).gasLimit;
    assert.equal(await send('evm_setBlockGasLimit', [ethers.toQuantity(before / 4n)]), true);
    await send('evm_mine', []);
    assert.equal((await env.provider.getBlock('latest')).gasLimit, before / 4n);
    assert.equal(await send('evm_setBlockGasLimit', [ethers.toQuantity(before)]), true);
    await send('evm_mine', []);
    assert.equal((await env.provider.getBlock('latest')).gasLimit, before);

    // Replace the last two blocks; the second new one carries a transfer.
    await send('anvil_mine', ['0x2']);
    const head = await env.provider.getBlockNumber();
    const old = (await env.provider.getBlock(head - 1)).hash;
    const to = ethers.Wallet.createRandom().address;
    assert.equal(await send('anvil_reorg', [2, [[{ from: devWallet(0).address, to, value: '0x9' }, 1]]]), null);
    assert.equal(await env.provider.getBlockNumber(), head);
    assert.notEqual((await env.provider.getBlock(head - 1)).hash, old);
    assert.equal((await env.provider.getBlock(head)).transactions.length, 1);
    assert.equal(await env.provider.getBalance(to), 9n);
    const deep = await rpc('anvil_reorg', [head + 1, []]);
    assert.equal(deep.error?.code, -32602);
  });

  it('anvil_setChainId: the next blocks take the new ID, the old one is refused, an old block traces under its own', async () => {
    const w = await freshWallet('1');
    const made = await (await w.sendTransaction({ data: CHAINID_INIT, type: 2 })).wait();
    const probe = made.contractAddress;
    const old = await (await w.sendTransaction({ to: probe, type: 2, gasLimit: 60_000n })).wait();
    const NEW = 4242;
    assert.equal(await send('anvil_setChainId', [NEW]), null);
    try {
      assert.equal(await send('eth_chainId', []), ethers.toQuantity(NEW));
      assert.equal(await send('net_version', []), String(NEW));
      assert.equal(BigInt(await send('eth_call', [{ to: probe }, 'latest'])), BigInt(NEW));
      assert.equal(BigInt(await send('eth_call', [{ to: probe }, ethers.toQuantity(old.blockNumber - 1)])), BigInt(CHAIN_ID));

      // ethers pins a provider to the chain it was made for: the new chain
      // gets its own.
      const p2 = new ethers.JsonRpcProvider(env.node.http, { chainId: NEW, name: 'switched' }, { staticNetwork: true, cacheTimeout: -1, pollingInterval: 50 });
      try {
        const w2 = new ethers.Wallet(w.privateKey, p2);
        const rc = await (await w2.sendTransaction({ to: probe, type: 2, gasLimit: 60_000n })).wait();
        assert.equal(rc.status, 1);
        assert.equal(BigInt(await p2.getStorage(probe, 0)), BigInt(NEW));
        assert.equal((await p2.getTransaction(rc.hash)).chainId, BigInt(NEW));

        // A transaction signed for the old ID (EIP-155 and EIP-1559 alike) is refused.
        const fee = await p2.getFeeData();
        const nonce = await p2.getTransactionCount(w.address);
        for (const type of [0, 2]) {
          const stale = await w.signTransaction({ to: probe, type, chainId: CHAIN_ID, nonce, gasLimit: 60_000n,
            ...(type === 0 ? { gasPrice: fee.gasPrice } : { maxFeePerGas: fee.maxFeePerGas, maxPriorityFeePerGas: fee.maxPriorityFeePerGas }) });
          const r = await rpc('eth_sendRawTransaction', [stale]);
          assert.ok(r.error, `type ${type} signed for ${CHAIN_ID} was taken`);
          assert.match(r.error.message, STALE_CHAIN_ID);
        }
      } finally {
        p2.destroy();
      }

      // The block made before keeps its ID: its sender, and its trace
      // (a replay under the new ID would store NEW).
      const tx = await send('eth_getTransactionByHash', [old.hash]);
      assert.equal(ethers.getAddress(tx.from), w.address);
      assert.equal(BigInt(tx.chainId), BigInt(CHAIN_ID));
      const trace = await send('debug_traceTransaction', [old.hash, {}]);
      const sstore = trace.structLogs.find((l) => l.op === 'SSTORE');
      assert.equal(BigInt(sstore.stack[sstore.stack.length - 2]), BigInt(CHAIN_ID));
      const block = await send('debug_traceBlockByNumber', [ethers.toQuantity(old.blockNumber), {}]);
      const bs = block[0].result.structLogs.find((l) => l.op === 'SSTORE');
      assert.equal(BigInt(bs.stack[bs.stack.length - 2]), BigInt(CHAIN_ID));
    } finally {
      // The suite goes on with the provider pinned to CHAIN_ID.
      assert.equal(await send('anvil_setChainId', [CHAIN_ID]), null);
    }
    assert.equal(await env.provider.send('eth_chainId', []), ethers.toQuantity(CHAIN_ID));
    const rc = await (await w.sendTransaction({ to: probe, type: 2, gasLimit: 60_000n })).wait();
    assert.equal(BigInt(await env.provider.getStorage(probe, 0, rc.blockNumber)), BigInt(CHAIN_ID));
  });

  it('identifies itself as a development node', async () => {
    const version = await send('web3_clientVersion', []);
    assert.match(version, /^anvil-compatible chaind\//);
    const meta = await send('hardhat_metadata', []);
    assert.equal(meta.chainId, CHAIN_ID);
    assert.equal(meta.clientVersion, version);
    assert.equal(meta.forkedNetwork, null);
    assert.equal(meta.latestBlockNumber, await env.provider.getBlockNumber());
    assert.match(meta.instanceId, /^0x[0-9a-f]{64}$/);
    const info = await send('anvil_nodeInfo', []);
    assert.equal(info.currentBlockNumber, meta.latestBlockNumber);
  });
});
