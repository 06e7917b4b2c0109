// The staking, distribution and governance system contracts driven with
// ethers and the ABI files the repository ships: a second validator joins
// and is active after a cycle boundary (node list and cycle info show it),
// rewards accrue and are withdrawn to the wei, undelegation waits the
// cooldown, and a governance vote changes maintenanceFee, which
// chain_getNetworkAccount then shows. On a --block-time 0 node blocks come
// from transactions, so the suite moves the chain (and its clock, one
// second a block at least) with 1-wei transfers.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ethers } from 'ethers';
import { env, rpc, ACCOUNTS } from '../lib/env.js';

const abi = (name) => JSON.parse(readFileSync(new URL(`../../../internal/staking/abi/${name}.abi.json`, import.meta.url)));
const STAKING = '0x0000000000000000000000000000000000000800';
const DISTRIBUTION = '0x0000000000000000000000000000000000000801';
const GOVERNANCE = '0x0000000000000000000000000000000000000805';
const pct = (n) => ethers.parseEther(String(n / 100));

async function blocks(w, n) {
  for (let i = 0; i < n; i++) {
    await (await w.sendTransaction({ to: '0x000000000000000000000000000000000000dEaD', value: 1n })).wait();
  }
}

// toCycleBoundary moves the chain past the next selection block and the
// boundary after it, so what was staked before is in the running set.
async function pastNextSet(w) {
  const head = await env.provider.getBlockNumber();
  const target = (Math.floor(head / 10) + 2) * 10;
  await blocks(w, target - head);
}

describe('proof of stake through the system contracts', () => {
  it('a validator joins, earns, withdraws, unbonds and governs', { timeout: 120_000 }, async () => {
    const w = env.wallet(ACCOUNTS.staking);
    const staking = new ethers.Contract(STAKING, abi('Staking'), w);
    const distribution = new ethers.Contract(DISTRIBUTION, abi('Distribution'), w);
    const gov = new ethers.Contract(GOVERNANCE, abi('Governance'), w);
    const consensus = ethers.Wallet.createRandom().signingKey.compressedPublicKey;

    // Bad input reverts with a reason.
    await assert.rejects(
      staking.createValidator.staticCall('x', '', '', '', '', pct(5), pct(10), pct(1), ethers.parseEther('1'), consensus, '127.0.0.1:36656', { value: ethers.parseEther('1') }),
      /insufficient stake/,
    );
    let rc = await (await staking.createValidator('e2e', '', 'https://example.org', '', '', pct(5), pct(10), pct(1),
      ethers.parseEther('1'), consensus, '127.0.0.1:36656', { value: ethers.parseEther('20') })).wait();
    assert.equal(rc.status, 1);
    assert.equal(staking.interface.parseLog(rc.logs[0]).name, 'CreateValidator');
    rc = await (await staking.delegate(w.address, { value: ethers.parseEther('5') })).wait();
    const ev = staking.interface.parseLog(rc.logs[0]);
    assert.equal(ev.name, 'Delegate');
    assert.equal(ev.args.amount, ethers.parseEther('5'));

    await pastNextSet(w);
    const list = (await rpc('chain_getNodeList', [])).result;
    assert.equal(list.totalNodes, 2);
    assert.ok(list.nodes.some((n) => '0x' + n.publicKey === consensus && n.port === 36656));
    const cycle = (await rpc('chain_getCycleInfo', [])).result.cycleInfo;
    assert.equal(cycle.nodes.active, 2);
    const v = await staking.getValidator(w.address);
    assert.equal(v.status, 2n); // active
    assert.equal(v.tokens, ethers.parseEther('25'));

    // Rewards accrue over a cycle as an active validator; withdrawn to the wei.
    await blocks(w, 10);
    const pending = await distribution.delegationRewards(w.address, w.address);
    assert.ok(pending > 0n, 'no rewards');
    const before = await env.provider.getBalance(w.address);
    rc = await (await distribution.withdrawDelegatorRewards(w.address)).wait();
    const got = distribution.interface.parseLog(rc.logs[0]).args.amount;
    assert.ok(got >= pending);
    assert.equal(await env.provider.getBalance(w.address), before + got - rc.gasUsed * rc.gasPrice);

    // Undelegating waits the cooldown (60 s on a dev chain), then pays.
    rc = await (await staking.undelegate(w.address, ethers.parseEther('2'))).wait();
    const unbond = staking.interface.parseLog(rc.logs[0]).args;
    const [, amounts, times] = await staking.getUnbondingDelegations(w.address);
    assert.deepEqual([...amounts], [ethers.parseEther('2')]);
    assert.equal(times[0], unbond.completionTime);
    const block = await env.provider.getBlock(rc.blockNumber);
    assert.ok(unbond.completionTime >= BigInt(block.timestamp) + 60n);
    const held = await env.provider.getBalance(w.address);
    assert.equal((await staking.getUnbondingDelegations(w.address))[1].length, 1);
    let spent = 0n;
    while (BigInt((await env.provider.getBlock('latest')).timestamp) < unbond.completionTime) {
      const r = await (await w.sendTransaction({ to: '0x000000000000000000000000000000000000dEaD', value: 1n })).wait();
      spent += 1n + r.gasUsed * r.gasPrice;
    }
    assert.equal(await env.provider.getBalance(w.address), held - spent + ethers.parseEther('2'));
    assert.equal((await staking.getUnbondingDelegations(w.address))[1].length, 0);

    // Governance: change maintenanceFee. The genesis validator holds most
    // of the stake, so it votes too (its operator key is the dev
    // validator's, derived as the node derives it, funded for gas here).
    const devValidator = new ethers.Wallet(ethers.keccak256(ethers.concat([ethers.toUtf8Bytes('chaind devnet validator'), '0x0000'])), env.provider);
    await (await w.sendTransaction({ to: devValidator.address, value: ethers.parseEther('1') })).wait();
    rc = await (await gov.submitProposal(2, 'cheaper upkeep', 'maintenanceFee to 7 wei', 'maintenanceFee', '7', { value: ethers.parseEther('10') })).wait();
    const id = gov.interface.parseLog(rc.logs[0]).args.proposalId;
    await (await gov.vote(id, 1)).wait();
    await (await gov.connect(devValidator).vote(id, 1)).wait();
    const [, status, , , , , , , , , votingEnd] = await gov.getProposal(id);
    assert.equal(status, 2n); // voting
    while (BigInt((await env.provider.getBlock('latest')).timestamp) < votingEnd) {
      await blocks(w, 1);
    }
    assert.equal((await gov.getProposal(id))[1], 3n); // passed
    const tally = await gov.getTally(id);
    assert.ok(tally.yes > 0n && tally.no === 0n);
    // maintenanceFee is a number of CHAIN, as the network the interface comes from has it.
    assert.equal((await rpc('chain_getNetworkAccount', [])).result.maintenanceFee, 7e-18);
  });
});
