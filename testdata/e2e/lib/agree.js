// What JSON-RPC says of the Cosmos-side reads, and the one check every
// Cosmos client's reads go through (suites/clients.js). A client's reads
// are first put in one shape (a "view": validators, the delegator's
// delegations, its rewards, a proposal and its vote, its account and
// balance, a block with its last_commit, and two transactions), so each
// client is held to exactly the same comparison: eth_call on the staking,
// distribution and governance contracts, eth_getBalance,
// eth_getTransactionCount, eth_getBlockByNumber and the receipts, all at
// the height the reads were made at.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ethers } from 'ethers';
import { CommitSig } from 'cosmjs-types/tendermint/types/types';
import { bech32Decode } from './bech32.js';
import { env, rpc } from './env.js';

export const STAKING = '0x0000000000000000000000000000000000000800';
export const DISTRIBUTION = '0x0000000000000000000000000000000000000801';
export const GOVERNANCE = '0x0000000000000000000000000000000000000805';
export const abi = (name) => JSON.parse(readFileSync(new URL(`../../../internal/staking/abi/${name}.abi.json`, import.meta.url)));
// JSON-RPC's proposal status numbers, in the order of cosmos.gov.v1beta1.ProposalStatus.
export const STATUS = ['PROPOSAL_STATUS_UNSPECIFIED', 'PROPOSAL_STATUS_DEPOSIT_PERIOD', 'PROPOSAL_STATUS_VOTING_PERIOD',
  'PROPOSAL_STATUS_PASSED', 'PROPOSAL_STATUS_REJECTED', 'PROPOSAL_STATUS_FAILED'];

const view = (addr, name, fn, args, height) => new ethers.Contract(addr, abi(name), env.provider)[fn](...args, { blockTag: height });
const hexOf = (b) => Buffer.from(b).toString('hex');
const sha256 = (...parts) => createHash('sha256').update(Buffer.concat(parts)).digest();

// merkleRoot is CometBFT's merkle.HashFromByteSlices (RFC 6962, sha256).
function merkleRoot(items) {
  if (items.length === 0) return sha256();
  if (items.length === 1) return sha256(Buffer.from([0]), items[0]);
  let k = 1;
  while (k * 2 < items.length) k *= 2;
  return sha256(Buffer.from([1]), merkleRoot(items.slice(0, k)), merkleRoot(items.slice(k)));
}

/**
 * commitHash is CometBFT's Commit.Hash of a last_commit's signatures, each
 * { flag, address, seconds, nanos, signature }: the Merkle root of their
 * tendermint.types.CommitSig encodings, which a header's last_commit_hash
 * must be.
 */
export function commitHash(sigs) {
  return hexOf(merkleRoot(sigs.map((s) => Buffer.from(CommitSig.encode(CommitSig.fromPartial({
    blockIdFlag: s.flag, validatorAddress: s.address, timestamp: { seconds: BigInt(s.seconds), nanos: s.nanos }, signature: s.signature,
  })).finish()))));
}

/** A Date (with cosmjs's extra nanoseconds, if any) as seconds and nanos. */
export function dateParts(d) {
  const ms = d.getTime();
  return { seconds: BigInt(Math.floor(ms / 1000)), nanos: (((ms % 1000) + 1000) % 1000) * 1e6 + (d.nanoseconds ?? 0) };
}

/** An RFC 3339 time as seconds and nanos, to the nanosecond. */
export function rfc3339Parts(s) {
  const m = /^(.*?:\d\d)(\.(\d+))?Z$/.exec(s);
  assert.ok(m, `not an RFC 3339 UTC time: ${s}`);
  return { seconds: BigInt(Math.floor(Date.parse(m[1] + 'Z') / 1000)), nanos: Number((m[3] ?? '').padEnd(9, '0')) };
}

/**
 * agrees checks a client's view against JSON-RPC at its height, for the
 * delegator del (0x address) and validator val (0x address), proposal
 * proposalId, and made: { delegation, vote } receipts of the transactions
 * made with ethers. It returns how many values it compared.
 */
export async function agrees(who, v, { del, val, proposalId, made }) {
  const at = v.height;
  let n = 0;
  const eq = (got, want, what) => { assert.equal(String(got), String(want), `${who}: ${what}`); n++; };

  // Validators: the staking contract's, each with its tokens, moniker and jail.
  const addrs = await view(STAKING, 'Staking', 'getValidators', [], at);
  eq(v.validators.length, addrs.length, 'number of validators');
  for (const x of v.validators) {
    const hex = ethers.getAddress(bech32Decode(x.operator));
    assert.ok(addrs.includes(hex), `${who}: ${x.operator} is not a validator of the staking contract`);
    const c = await view(STAKING, 'Staking', 'getValidator', [hex], at);
    eq(x.tokens, c.tokens, `${x.operator} tokens`);
    eq(x.moniker, c.moniker, `${x.operator} moniker`);
    eq(x.jailed, c.jailed, `${x.operator} jailed`);
  }

  // The delegator's delegations: amounts, and shares (a Dec, times 10^18
  // on the wire; the contract counts whole shares).
  const [dvals, amounts] = await view(STAKING, 'Staking', 'getDelegations', [del], at);
  eq(v.delegations.length, dvals.length, 'number of delegations');
  for (const d of v.delegations) {
    const hex = ethers.getAddress(bech32Decode(d.validator));
    const i = dvals.indexOf(hex);
    assert.ok(i >= 0, `${who}: a delegation to ${d.validator} the staking contract does not list`);
    eq(d.amount, amounts[i], `delegation to ${d.validator}`);
    const c = await view(STAKING, 'Staking', 'getDelegation', [del, hex], at);
    eq(d.sharesWire, c.shares * 10n ** 18n, `shares with ${d.validator}`);
  }
  assert.ok(v.delegations.some((d) => ethers.getAddress(bech32Decode(d.validator)) === val), `${who}: the delegation made with ethers is missing`);

  // Rewards of that delegation (a DecCoin, times 10^18 on the wire); the
  // suite waits for some to accrue, so zero here is a wrong answer.
  assert.ok(BigInt(v.rewardsWire) > 0n, `${who}: no rewards read`);
  eq(v.rewardsWire, (await view(DISTRIBUTION, 'Distribution', 'delegationRewards', [del, val], at)) * 10n ** 18n, 'delegation rewards');

  // The proposal and the vote made with ethers.
  const p = await view(GOVERNANCE, 'Governance', 'getProposal', [proposalId], at);
  eq(v.proposal.id, proposalId, 'proposal id');
  eq(v.proposal.status, STATUS[Number(p.status)], 'proposal status');
  eq(v.proposal.totalDeposit, p.totalDeposit, 'proposal deposit');
  eq(v.proposal.votingEnd, p.votingEnd, 'proposal voting end');
  const cv = await view(GOVERNANCE, 'Governance', 'getVote', [proposalId, del], at);
  const want = [[1, cv.yes], [2, cv.abstain], [3, cv.no], [4, cv.noWithVeto]].filter(([, w]) => w > 0n).map(([o]) => o);
  eq(JSON.stringify(v.vote), JSON.stringify(want), 'vote options');

  // The delegator's account and balance.
  eq(v.account.type, '/cosmos.auth.v1beta1.BaseAccount', 'account type');
  eq(ethers.getAddress(bech32Decode(v.account.address)), del, 'account address');
  eq(v.account.sequence, await env.provider.getTransactionCount(del, at), 'account sequence (the nonce)');
  eq(v.balance, await env.provider.getBalance(del, at), 'balance');

  // The block at the height, with its last_commit.
  const eb = (await rpc('eth_getBlockByNumber', ['0x' + at.toString(16), false])).result;
  const parent = (await rpc('eth_getBlockByNumber', ['0x' + (at - 1).toString(16), false])).result;
  const b = v.block;
  eq(b.height, at, 'block height');
  eq(b.hash, eb.hash.slice(2), 'block hash');
  eq(b.time, BigInt(eb.timestamp), 'block time (seconds)');
  eq(b.parent, eb.parentHash.slice(2), 'last_block_id');
  eq(b.txs, eb.transactions.length, 'number of transactions');
  const lc = b.lastCommit;
  eq(lc.height, at - 1, 'last_commit height');
  eq(lc.blockHash, parent.hash.slice(2), 'last_commit block_id');
  const vals = await view(STAKING, 'Staking', 'getValidators', [], at - 1);
  assert.ok(lc.sigs.length >= 1 && lc.sigs.length <= vals.length, `${who}: last_commit has ${lc.sigs.length} entries for ${vals.length} validators`);
  const signed = lc.sigs.filter((s) => s.flag === 2);
  assert.ok(signed.length >= 1, `${who}: last_commit records no signature`);
  for (const s of signed) {
    assert.ok(vals.includes(ethers.getAddress('0x' + hexOf(s.address))), `${who}: a last_commit signer outside the validators`);
    eq(s.signature.length, 64, 'signature length (R || S)');
    eq(s.seconds, BigInt(eb.timestamp), 'signature time (the block time)');
  }
  eq(b.lastCommitHash, commitHash(lc.sigs), 'last_commit_hash (the hash of last_commit)');

  // The two transactions made with ethers.
  for (const [name, rc] of Object.entries(made)) {
    const t = v.txs[name];
    assert.ok(t, `${who}: the ${name} transaction was not found`);
    eq(ethers.Transaction.from(t.raw).hash, rc.hash, `${name}: the raw transaction in MsgEthereumTx`);
    eq(t.height, rc.blockNumber, `${name}: height`);
    eq(t.gasUsed, rc.gasUsed, `${name}: gas used`);
    eq(t.code, 0, `${name}: code`);
  }
  return n;
}
