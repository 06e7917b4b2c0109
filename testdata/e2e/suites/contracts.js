// Contract deployment, calls, gas estimation and every kind of revert, with
// ethers decoding what the node returns (reason strings, custom errors,
// panics) and the raw JSON-RPC error objects checked alongside.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { ethers } from 'ethers';
import { env, rpc, ACCOUNTS } from '../lib/env.js';

const SUPPLY = ethers.parseEther('1000000');

describe('contracts (ethers)', () => {
  let w, token, reverter;

  before(async () => {
    w = env.wallet(ACCOUNTS.contracts);
    const { Token, Reverter } = env.artifacts;
    token = await new ethers.ContractFactory(Token.abi, Token.bytecode, w).deploy('Test Token', 'TST', SUPPLY);
    await token.waitForDeployment();
    reverter = await new ethers.ContractFactory(Reverter.abi, Reverter.bytecode, w).deploy();
    await reverter.waitForDeployment();
  });

  it('deploys the runtime code solc produced', async () => {
    assert.equal(await env.provider.getCode(await token.getAddress()), env.artifacts.Token.deployed);
    assert.equal(await env.provider.getCode(await reverter.getAddress()), env.artifacts.Reverter.deployed);
    const rc = await token.deploymentTransaction().wait();
    assert.equal(rc.contractAddress, await token.getAddress());
    assert.equal(rc.contractAddress, ethers.getCreateAddress({ from: w.address, nonce: token.deploymentTransaction().nonce }));
    // The constructor's Transfer(0 -> deployer) log.
    const ev = token.interface.parseLog(rc.logs[0]);
    assert.equal(ev.name, 'Transfer');
    assert.deepEqual([...ev.args], [ethers.ZeroAddress, w.address, SUPPLY]);
  });

  it('reads ERC-20 state with eth_call', async () => {
    assert.equal(await token.name(), 'Test Token');
    assert.equal(await token.symbol(), 'TST');
    assert.equal(await token.decimals(), 18n);
    assert.equal(await token.totalSupply(), SUPPLY);
    assert.equal(await token.balanceOf(w.address), SUPPLY);
    assert.equal(await token.balanceOf(ethers.ZeroAddress), 0n);
  });

  it('estimates and executes a transfer, emitting Transfer', async () => {
    const to = ethers.Wallet.createRandom().address;
    const est = await token.transfer.estimateGas(to, 1000n);
    // A cold transfer to a fresh holder: two SSTOREs, one from zero.
    assert.ok(est > 40_000n && est < 80_000n, `estimate ${est}`);
    const tx = await token.transfer(to, 1000n);
    const rc = await tx.wait();
    assert.equal(rc.status, 1);
    assert.ok(rc.gasUsed <= est, `used ${rc.gasUsed} > estimate ${est}`);
    assert.equal(rc.logs.length, 1);
    const ev = token.interface.parseLog(rc.logs[0]);
    assert.equal(ev.name, 'Transfer');
    assert.deepEqual([...ev.args], [w.address, to, 1000n]);
    assert.equal(rc.logs[0].address, await token.getAddress());
    assert.equal(rc.logs[0].transactionHash, tx.hash);
    assert.equal(await token.balanceOf(to), 1000n);
    assert.equal(await token.balanceOf(w.address), SUPPLY - 1000n);
    // eth_getTransactionReceipt over raw JSON-RPC agrees on the log.
    const raw = await env.provider.send('eth_getTransactionReceipt', [tx.hash]);
    assert.equal(raw.logs[0].topics[0], ethers.id('Transfer(address,address,uint256)'));
    assert.equal(BigInt(raw.logs[0].data), 1000n);
    assert.equal(raw.status, '0x1');
  });

  it('decodes a custom error from eth_call and eth_estimateGas', async () => {
    const poor = env.wallet(ACCOUNTS.untouched);
    const t = token.connect(poor);
    const check = (e) => {
      assert.equal(e.code, 'CALL_EXCEPTION');
      // ethers decodes custom errors itself for calls; for estimates it
      // hands back the data, which the contract's interface decodes.
      const revert = e.revert ?? token.interface.parseError(e.data);
      assert.equal(revert?.name, 'InsufficientBalance');
      assert.deepEqual([...revert.args], [poor.address, 0n, 5n]);
      return true;
    };
    await assert.rejects(t.transfer.staticCall(w.address, 5n), (e) => {
      assert.ok(e.revert, 'ethers did not decode the custom error of eth_call');
      return check(e);
    });
    await assert.rejects(t.transfer.estimateGas(w.address, 5n), check);

    const data = token.interface.encodeFunctionData('transfer', [w.address, 5n]);
    const res = await rpc('eth_call', [{ from: poor.address, to: await token.getAddress(), data }, 'latest']);
    assert.equal(res.error.code, 3);
    assert.equal(res.error.data, token.interface.encodeErrorResult('InsufficientBalance', [poor.address, 0n, 5n]));
  });

  it('decodes a revert reason string', async () => {
    await assert.rejects(reverter.withReason(), (e) => {
      assert.equal(e.code, 'CALL_EXCEPTION');
      assert.equal(e.reason, 'reverter: no way');
      assert.equal(e.revert?.name, 'Error');
      return true;
    });
    const res = await rpc('eth_call', [{ to: await reverter.getAddress(), data: reverter.interface.encodeFunctionData('withReason') }, 'latest']);
    assert.equal(res.error.code, 3);
    assert.equal(res.error.message, 'execution reverted: reverter: no way');
    assert.equal(res.error.data, ethers.concat(['0x08c379a0', ethers.AbiCoder.defaultAbiCoder().encode(['string'], ['reverter: no way'])]));
  });

  it('decodes a custom error carrying the caller', async () => {
    await assert.rejects(reverter.withCustom(7n), (e) => {
      assert.equal(e.revert?.name, 'Unauthorized');
      assert.deepEqual([...e.revert.args], [w.address, 7n]);
      assert.equal(e.data, reverter.interface.encodeErrorResult('Unauthorized', [w.address, 7n]));
      return true;
    });
  });

  it('decodes a panic and a bare revert', async () => {
    await assert.rejects(reverter.withPanic(0n), (e) => {
      assert.equal(e.revert?.name, 'Panic');
      assert.equal(BigInt(e.revert.args[0]), 0x12n);
      return true;
    });
    assert.equal(await reverter.withPanic(2n), 5n);
    await assert.rejects(reverter.bare(), (e) => {
      assert.equal(e.code, 'CALL_EXCEPTION');
      assert.equal(e.revert, null);
      assert.equal(e.data, '0x');
      return true;
    });
  });

  it('estimates gas for both paths of a require', async () => {
    await assert.rejects(reverter.set.estimateGas(0n), (e) => {
      assert.equal(e.reason, 'reverter: zero');
      return true;
    });
    const est = await reverter.set.estimateGas(5n);
    assert.ok(est > 21_000n + 22_100n && est < 60_000n, `estimate ${est}`);
    const rc = await (await reverter.set(5n)).wait();
    assert.equal(rc.status, 1);
    assert.equal(await reverter.value(), 5n);
    const ev = reverter.interface.parseLog(rc.logs[0]);
    assert.deepEqual([ev.name, ...ev.args], ['ValueSet', w.address, 5n]);
  });

  it('mines a reverting transaction with status 0 and no state change', async () => {
    const tx = await reverter.set(0n, { gasLimit: 100_000n });
    await assert.rejects(tx.wait(), (e) => {
      assert.equal(e.code, 'CALL_EXCEPTION');
      assert.equal(e.receipt.status, 0);
      assert.equal(e.receipt.logs.length, 0);
      return true;
    });
    assert.equal(await reverter.value(), 5n);
  });
});
