// The staking, distribution and governance system contracts driven with
// ethers and the ABI files the repository ships: a second validator joins
// and is active after a cycle boundary (node list and cycle info show it),
// rewards accrue and are withdrawn to the wei, undelegation waits the
// cooldown, and governance votes change maintenanceFee, which
// chain_getNetworkAccount then shows, and schedule a software upgrade; both
// proposals show their change over REST and gRPC. On a --block-time 0 node blocks come
// from transactions, so the suite moves the chain (and its clock, one
// second a block at least) with 1-wei transfers.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ethers } from 'ethers';
import { ParameterChangeProposal } from 'cosmjs-types/cosmos/params/v1beta1/params';
import { SoftwareUpgradeProposal } from 'cosmjs-types/cosmos/upgrade/v1beta1/upgrade';
import * as upgradeQuery from 'cosmjs-types/cosmos/upgrade/v1beta1/query';
import * as govQuery from 'cosmjs-types/cosmos/gov/v1beta1/query';
import { env, rpc, ACCOUNTS } from '../lib/env.js';
import { Rpc, rest } from '../lib/cosmos.js';

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
  let cosmosRpc;
  after(() => cosmosRpc && cosmosRpc.close());
  it('a validator joins, earns, withdraws, unbonds and governs', { timeout: 120_000 }, async () => {
    const w = env.wallet(ACCOUNTS.staking);
    const staking = new ethers.Contract(STAKING, abi('Staking'), w);
    const distribution = new ethers.Contract(DISTRIBUTION, abi('Distribution'), w);
    const gov = new ethers.Contract(GOVERNANCE, abi('Governance'), w);
    cosmosRpc = new Rpc(env.node.grpc);
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
    // The new validator is chosen (status active below) but no node runs
    // its key on --dev, so the live counts, read from the chain's signing
    // records, show it standby once it has left blocks unsigned.
    assert.equal(cycle.nodes.active + cycle.nodes.standby, 2);
    // Each entry says what it is and its state, by the same records as the
    // counts: the dev node's own validator signs every block (active); the
    // new one, whose key no node runs, is active or standby, never syncing
    // or jailed this early. A --dev node announces no full nodes.
    for (const n of list.nodes) assert.equal(n.kind, 'validator', JSON.stringify(n));
    const joined = list.nodes.find((n) => '0x' + n.publicKey === consensus);
    const own = list.nodes.find((n) => n !== joined);
    assert.equal(own.status, 'active');
    assert.ok(['active', 'standby'].includes(joined.status), joined.status);
    for (const state of ['active', 'standby']) {
      assert.equal(list.nodes.filter((n) => n.status === state).length, cycle.nodes[state], `${state} in the list and the cycle's counts`);
    }
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
    // A software upgrade voted beside it, planned far enough ahead that
    // this node (older than the plan) never reaches the height.
    const planHeight = (await env.provider.getBlockNumber()) + 1_000_000;
    rc = await (await gov.submitProposal(4, 'upgrade to 99.0.0', 'https://example.org/chaind/99.0.0', '99.0.0', String(planHeight), { value: ethers.parseEther('10') })).wait();
    const upId = gov.interface.parseLog(rc.logs[0]).args.proposalId;
    for (const p of [id, upId]) {
      await (await gov.vote(p, 1)).wait();
      await (await gov.connect(devValidator).vote(p, 1)).wait();
    }
    const [, status] = await gov.getProposal(id);
    assert.equal(status, 2n); // voting
    const votingEnd = (await gov.getProposal(upId))[10]; // the later of the two
    while (BigInt((await env.provider.getBlock('latest')).timestamp) < votingEnd) {
      await blocks(w, 1);
    }
    assert.equal((await gov.getProposal(id))[1], 3n); // passed
    const tally = await gov.getTally(id);
    assert.ok(tally.yes > 0n && tally.no === 0n);
    // maintenanceFee is a number of CHAIN, as the network the interface comes from has it.
    const account = (await rpc('chain_getNetworkAccount', [])).result;
    assert.equal(account.maintenanceFee, 7e-18);

    // Each proposal shows what it changes, over REST and over gRPC (the
    // Any's bytes decoded by cosmjs-types' codecs).
    assert.equal((await gov.getProposal(upId))[1], 3n); // passed
    assert.equal(account.latestVersion, '99.0.0');
    const grpcGov = new govQuery.QueryClientImpl(cosmosRpc);
    const r = await rest(`/cosmos/gov/v1beta1/proposals/${id}`);
    assert.deepEqual(r.body.proposal.content, {
      '@type': '/cosmos.params.v1beta1.ParameterChangeProposal', title: 'cheaper upkeep', description: 'maintenanceFee to 7 wei',
      changes: [{ subspace: 'staking', key: 'maintenanceFee', value: '"7"' }],
    });
    let g = (await grpcGov.Proposal({ proposalId: id })).proposal.content;
    assert.equal(g.typeUrl, '/cosmos.params.v1beta1.ParameterChangeProposal');
    assert.deepEqual(ParameterChangeProposal.decode(g.value).changes, [{ subspace: 'staking', key: 'maintenanceFee', value: '"7"' }]);
    const plan = { name: '99.0.0', height: String(planHeight), info: 'https://example.org/chaind/99.0.0' };
    const up = await rest(`/cosmos/gov/v1beta1/proposals/${upId}`);
    assert.equal(up.body.proposal.content['@type'], '/cosmos.upgrade.v1beta1.SoftwareUpgradeProposal');
    assert.equal(up.body.proposal.content.title, 'upgrade to 99.0.0');
    assert.deepEqual({ ...up.body.proposal.content.plan, time: undefined, upgraded_client_state: undefined }, { ...plan, time: undefined, upgraded_client_state: undefined });
    g = (await grpcGov.Proposal({ proposalId: upId })).proposal.content;
    assert.equal(g.typeUrl, '/cosmos.upgrade.v1beta1.SoftwareUpgradeProposal');
    const sup = SoftwareUpgradeProposal.decode(g.value);
    assert.deepEqual([sup.title, sup.plan.name, sup.plan.height, sup.plan.info], ['upgrade to 99.0.0', plan.name, BigInt(planHeight), plan.info]);
    // The upgrade module serves the scheduled plan; nothing applied yet.
    const cur = await rest('/cosmos/upgrade/v1beta1/current_plan');
    assert.deepEqual([cur.body.plan.name, cur.body.plan.height, cur.body.plan.info], [plan.name, plan.height, plan.info]);
    const grpcUp = new upgradeQuery.QueryClientImpl(cosmosRpc);
    const gp = (await grpcUp.CurrentPlan({})).plan;
    assert.deepEqual([gp.name, gp.height, gp.info], [plan.name, BigInt(planHeight), plan.info]);
    assert.equal((await rest('/cosmos/upgrade/v1beta1/applied_plan/99.0.0')).body.height, '0');
    assert.equal((await grpcUp.AppliedPlan({ name: '99.0.0' })).height, 0n);
  });
});
