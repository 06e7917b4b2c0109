// Issue 29's Done-when, read literally: four Cosmos clients — @cosmjs/
// stargate (StargateClient and QueryClient with its extensions, over the
// CometBFT RPC), cosmjs-types over @grpc/grpc-js, gRPC-Web from a page in
// chromium (cosmjs-types' own query clients, their calls framed by the
// page), and osmojs's LCD client (REST) — each read validators, the
// delegations and rewards of an account that delegated and voted with
// ethers, the proposal and the vote, the account, the head block with its
// last_commit, and the delegation and vote transactions; every read is
// put in one shape and held to the same comparison with JSON-RPC at the
// height it was made at (lib/agree.js).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ethers } from 'ethers';
import { osmosis } from 'osmojs';
import { StargateClient, QueryClient, setupAuthExtension, setupBankExtension, setupStakingExtension, setupDistributionExtension, setupGovExtension } from '@cosmjs/stargate';
import { connectComet } from '@cosmjs/tendermint-rpc';
import * as staking from 'cosmjs-types/cosmos/staking/v1beta1/query';
import * as bank from 'cosmjs-types/cosmos/bank/v1beta1/query';
import * as gov from 'cosmjs-types/cosmos/gov/v1beta1/query';
import * as auth from 'cosmjs-types/cosmos/auth/v1beta1/query';
import * as distr from 'cosmjs-types/cosmos/distribution/v1beta1/query';
import * as tm from 'cosmjs-types/cosmos/base/tendermint/v1beta1/query';
import * as txs from 'cosmjs-types/cosmos/tx/v1beta1/service';
import { BaseAccount } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import { TxRaw, TxBody } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { proposalStatusToJSON, voteOptionFromJSON } from 'cosmjs-types/cosmos/gov/v1beta1/gov';
import { blockIDFlagFromJSON } from 'cosmjs-types/tendermint/types/validator';
import { bech32, bech32Decode } from '../lib/bech32.js';
import { env, devWallet, ACCOUNTS } from '../lib/env.js';
import { Rpc, rest, decWire, fields } from '../lib/cosmos.js';
import { openDashboard } from '../lib/browser.js';
import { agrees, abi, STAKING, DISTRIBUTION, GOVERNANCE, dateParts, rfc3339Parts } from '../lib/agree.js';

const hex = (b) => Buffer.from(b ?? []).toString('hex');
const b64 = (s) => Buffer.from(s ?? '', 'base64');
const rawOf = (body) => '0x' + hex(fields(body.messages[0].value)[6][0]);

// What cosmjs-types decodes the answers to: Stargate's extensions, the
// gRPC clients over grpc-js and over the page all give these messages.
const typed = {
  validators: (r) => r.validators.map((x) => ({ operator: x.operatorAddress, tokens: x.tokens, moniker: x.description.moniker, jailed: x.jailed })),
  delegations: (r) => r.delegationResponses.map((d) => ({ validator: d.delegation.validatorAddress, amount: d.balance.amount, sharesWire: d.delegation.shares })),
  rewardsWire: (r) => r.rewards.filter((c) => c.denom === 'achain').reduce((a, c) => a + BigInt(c.amount), 0n),
  proposal: (p) => ({ id: p.proposalId, status: proposalStatusToJSON(p.status), totalDeposit: p.totalDeposit.find((c) => c.denom === 'achain')?.amount ?? '0', votingEnd: p.votingEndTime.seconds }),
  vote: (v) => v.options.map((o) => Number(o.option)),
  account: (any) => {
    const a = BaseAccount.decode(any.value);
    return { type: any.typeUrl, address: a.address, sequence: a.sequence, accountNumber: a.accountNumber };
  },
  block: (r) => {
    const b = r.sdkBlock;
    return {
      height: Number(b.header.height), hash: hex(r.blockId.hash), time: b.header.time.seconds, parent: hex(b.header.lastBlockId.hash),
      txs: b.data.txs.length, lastCommitHash: hex(b.header.lastCommitHash),
      lastCommit: {
        height: Number(b.lastCommit.height), blockHash: hex(b.lastCommit.blockId.hash),
        sigs: b.lastCommit.signatures.map((s) => ({ flag: s.blockIdFlag, address: s.validatorAddress, seconds: s.timestamp.seconds, nanos: s.timestamp.nanos, signature: s.signature })),
      },
    };
  },
  tx: (r) => ({ raw: rawOf(r.tx.body), height: r.txResponse.height, gasUsed: r.txResponse.gasUsed, code: r.txResponse.code }),
};

// viewOverRpc reads everything through cosmjs-types' query clients over
// rpc (grpc-js, or the page's gRPC-Web).
async function viewOverRpc(rpc, { delB, valB, proposalId, made }) {
  const S = new staking.QueryClientImpl(rpc), B = new bank.QueryClientImpl(rpc), G = new gov.QueryClientImpl(rpc),
    A = new auth.QueryClientImpl(rpc), D = new distr.QueryClientImpl(rpc), T = new tm.ServiceClientImpl(rpc), X = new txs.ServiceClientImpl(rpc);
  const height = BigInt(await env.provider.getBlockNumber());
  const out = {
    height: Number(height),
    validators: typed.validators(await S.Validators(staking.QueryValidatorsRequest.fromPartial({ status: '' }))),
    delegations: typed.delegations(await S.DelegatorDelegations(staking.QueryDelegatorDelegationsRequest.fromPartial({ delegatorAddr: delB }))),
    rewardsWire: typed.rewardsWire(await D.DelegationRewards(distr.QueryDelegationRewardsRequest.fromPartial({ delegatorAddress: delB, validatorAddress: valB }))),
    proposal: typed.proposal((await G.Proposal(gov.QueryProposalRequest.fromPartial({ proposalId }))).proposal),
    vote: typed.vote((await G.Vote(gov.QueryVoteRequest.fromPartial({ proposalId, voter: delB }))).vote),
    account: typed.account((await A.Account(auth.QueryAccountRequest.fromPartial({ address: delB }))).account),
    balance: (await B.Balance(bank.QueryBalanceRequest.fromPartial({ address: delB, denom: 'achain' }))).balance.amount,
    block: typed.block(await T.GetBlockByHeight(tm.GetBlockByHeightRequest.fromPartial({ height }))),
    txs: {},
  };
  for (const [name, rc] of Object.entries(made)) out.txs[name] = typed.tx(await X.GetTx(txs.GetTxRequest.fromPartial({ hash: rc.hash })));
  return out;
}

// viewStargate reads through @cosmjs/stargate: StargateClient for
// accounts, balances, blocks and transactions, QueryClient's extensions
// (over abci_query) for staking, distribution, gov and auth, and the
// CometBFT client under them for the block's last_commit.
async function viewStargate(client, comet, { delB, valB, proposalId, made }) {
  const q = QueryClient.withExtensions(comet, setupAuthExtension, setupBankExtension, setupStakingExtension, setupDistributionExtension, setupGovExtension);
  const height = await client.getHeight();
  const acct = await client.getAccount(delB);
  const anyAcct = await q.auth.account(delB);
  const account = typed.account(anyAcct);
  assert.equal(String(acct.accountNumber), String(account.accountNumber), 'StargateClient.getAccount and the auth extension disagree');
  assert.equal(String(acct.sequence), String(account.sequence));
  const sb = await client.getBlock(height);
  const { blockId, block } = await comet.block(height);
  assert.equal(sb.id, hex(blockId.hash).toUpperCase());
  assert.equal(sb.txs.length, block.txs.length);
  const out = {
    height,
    validators: typed.validators(await q.staking.validators('')),
    delegations: typed.delegations(await q.staking.delegatorDelegations(delB)),
    rewardsWire: typed.rewardsWire(await q.distribution.delegationRewards(delB, valB)),
    proposal: typed.proposal((await q.gov.proposal(proposalId)).proposal),
    vote: typed.vote((await q.gov.vote(proposalId, delB)).vote),
    account,
    balance: (await client.getBalance(delB, 'achain')).amount,
    block: {
      height: sb.header.height, hash: sb.id.toLowerCase(), time: BigInt(Math.floor(new Date(sb.header.time).getTime() / 1000)),
      parent: hex(block.header.lastBlockId.hash), txs: sb.txs.length, lastCommitHash: hex(block.header.lastCommitHash),
      lastCommit: {
        height: block.lastCommit.height, blockHash: hex(block.lastCommit.blockId.hash),
        sigs: block.lastCommit.signatures.map((s) => ({ flag: s.blockIdFlag, address: s.validatorAddress ?? new Uint8Array(), ...dateParts(s.timestamp), signature: s.signature ?? new Uint8Array() })),
      },
    },
    txs: {},
  };
  for (const [name, rc] of Object.entries(made)) {
    const inBlock = await client.searchTx([{ key: 'tx.height', value: rc.blockNumber }]);
    const found = inBlock.find((t) => t.events.some((e) => e.type === 'ethereum_tx' && e.attributes.some((a) => a.key === 'ethereumTxHash' && a.value === rc.hash)));
    if (!found) continue;
    const t = await client.getTx(found.hash);
    out.txs[name] = { raw: rawOf(TxBody.decode(TxRaw.decode(t.tx).bodyBytes)), height: t.height, gasUsed: t.gasUsed, code: t.code };
  }
  return out;
}

// viewLCD reads the REST port through osmojs's LCD client: the gateway's
// JSON, Decs with 18 decimals, bytes in base64, enums by name.
async function viewLCD(lcd, { delB, valB, proposalId, made }) {
  const c = lcd.cosmos;
  const height = await env.provider.getBlockNumber();
  const p = (await c.gov.v1beta1.proposal({ proposalId: proposalId.toString() })).proposal;
  const a = (await c.auth.v1beta1.account({ address: delB })).account;
  const r = await c.tx.v1beta1.getBlockWithTxs({ height: String(height) });
  const hdr = r.block.header;
  const out = {
    height,
    validators: (await c.staking.v1beta1.validators({ status: '' })).validators.map((x) => ({ operator: x.operator_address, tokens: x.tokens, moniker: x.description.moniker, jailed: x.jailed })),
    delegations: (await c.staking.v1beta1.delegatorDelegations({ delegatorAddr: delB })).delegation_responses.map((d) => ({ validator: d.delegation.validator_address, amount: d.balance.amount, sharesWire: decWire(d.delegation.shares) })),
    rewardsWire: (await c.distribution.v1beta1.delegationRewards({ delegatorAddress: delB, validatorAddress: valB })).rewards.filter((x) => x.denom === 'achain').reduce((s, x) => s + BigInt(decWire(x.amount)), 0n),
    proposal: { id: p.proposal_id, status: p.status, totalDeposit: p.total_deposit.find((x) => x.denom === 'achain')?.amount ?? '0', votingEnd: rfc3339Parts(p.voting_end_time).seconds },
    vote: (await c.gov.v1beta1.vote({ proposalId: proposalId.toString(), voter: delB })).vote.options.map((o) => voteOptionFromJSON(o.option)),
    account: { type: a['@type'], address: a.address, sequence: a.sequence, accountNumber: a.account_number },
    balance: (await c.bank.v1beta1.balance({ address: delB, denom: 'achain' })).balance.amount,
    block: {
      height: Number(hdr.height), hash: hex(b64(r.block_id.hash)), time: rfc3339Parts(hdr.time).seconds, parent: hex(b64(hdr.last_block_id.hash)),
      txs: r.block.data.txs.length, lastCommitHash: hex(b64(hdr.last_commit_hash)),
      lastCommit: {
        height: Number(r.block.last_commit.height), blockHash: hex(b64(r.block.last_commit.block_id.hash)),
        sigs: r.block.last_commit.signatures.map((s) => ({ flag: blockIDFlagFromJSON(s.block_id_flag), address: b64(s.validator_address), ...rfc3339Parts(s.timestamp), signature: b64(s.signature) })),
      },
    },
    txs: {},
  };
  for (const [name, rc] of Object.entries(made)) {
    const t = await c.tx.v1beta1.getTx({ hash: rc.hash });
    out.txs[name] = { raw: '0x' + hex(b64(t.tx.body.messages[0].raw)), height: t.tx_response.height, gasUsed: t.tx_response.gas_used, code: t.tx_response.code };
  }
  return out;
}

describe('four Cosmos clients read what JSON-RPC says (issue 29)', () => {
  const ctx = {};
  let grpcjs, dash, client, comet;
  before(async () => {
    const w = env.wallet(ACCOUNTS.clients);
    ctx.del = devWallet(ACCOUNTS.clients).address;
    ctx.delB = bech32('chain', ctx.del);
    const vs = await rest('/cosmos/staking/v1beta1/validators?status=BOND_STATUS_BONDED');
    ctx.valB = vs.body.validators[0].operator_address;
    ctx.val = ethers.getAddress(bech32Decode(ctx.valB));
    // A delegation and a vote, made with ethers; the proposal voted on is
    // submitted here too, so its vote is this account's.
    const stake = new ethers.Contract(STAKING, abi('Staking'), w);
    const g = new ethers.Contract(GOVERNANCE, abi('Governance'), w);
    const delegation = await (await stake.delegate(ctx.val, { value: ethers.parseEther('1') })).wait();
    const deposit = BigInt((await rest('/cosmos/gov/v1beta1/params/deposit')).body.deposit_params.min_deposit[0].amount);
    const sub = await (await g.submitProposal(1, 'read by four clients', 'a text proposal', '', '', { value: deposit })).wait();
    ctx.proposalId = g.interface.parseLog(sub.logs[0]).args.proposalId;
    const vote = await (await g.vote(ctx.proposalId, 1)).wait();
    assert.equal(delegation.status, 1);
    assert.equal(vote.status, 1);
    ctx.made = { delegation, vote };
    // Rewards accrue over a cycle (10 blocks): move the chain until the
    // delegation has earned some, so the rewards read are not zero against
    // zero; the head then carries the commit of a block before it.
    const distribution = new ethers.Contract(DISTRIBUTION, abi('Distribution'), env.provider);
    for (let i = 0; i < 25 && (await distribution.delegationRewards(ctx.del, ctx.val)) === 0n; i++) {
      await (await w.sendTransaction({ to: w.address, value: 0 })).wait();
    }
    grpcjs = new Rpc(env.node.grpc);
    client = await StargateClient.connect(env.node.cometrpc);
    comet = await connectComet(env.node.cometrpc);
    dash = await openDashboard(`http://${env.node.grpc}`);
  });
  after(async () => {
    grpcjs?.close();
    client?.disconnect();
    comet?.disconnect();
    await dash?.close();
  });

  // check reads a client's view until the chain held still during the
  // reads (a --block-time 0 chain moves only with transactions, and none
  // is sent now; the loop only guards against a stray one), then holds it
  // to JSON-RPC.
  async function check(t, who, read) {
    for (let attempt = 0; ; attempt++) {
      const before = await env.provider.getBlockNumber();
      const v = await read();
      if (v.height === before && (await env.provider.getBlockNumber()) === before) {
        const n = await agrees(who, v, { del: ctx.del, val: ctx.val, proposalId: ctx.proposalId, made: ctx.made });
        t.diagnostic(`${who}: ${n} values agree with JSON-RPC at height ${before}`);
        return;
      }
      assert.ok(attempt < 3, `${who}: the chain kept moving during the reads`);
    }
  }

  it('@cosmjs/stargate: StargateClient and QueryClient extensions over the CometBFT RPC', (t) => check(t, 'stargate', () => viewStargate(client, comet, ctx)));
  it('cosmjs-types over @grpc/grpc-js', (t) => check(t, 'grpc-js', () => viewOverRpc(grpcjs, ctx)));
  it('gRPC-Web from chromium (cosmjs-types query clients, binary frames)', (t) => check(t, 'grpc-web', () => viewOverRpc(dash.rpc(), ctx)));
  it('gRPC-Web from chromium (cosmjs-types query clients, text frames)', (t) => check(t, 'grpc-web-text', () => viewOverRpc(dash.rpc({ text: true }), ctx)));
  it('osmojs\'s LCD client over REST', async (t) => {
    const lcd = await osmosis.ClientFactory.createLCDClient({ restEndpoint: env.node.rest });
    await check(t, 'osmojs LCD', () => viewLCD(lcd, ctx));
  });
  it('the page saw no error', () => assert.deepEqual(dash.problems, []));
});
