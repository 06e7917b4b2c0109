// The Cosmos-style query ports as Keplr-era tools read them: a gRPC client
// (@grpc/grpc-js) with the message codecs of cosmjs-types calls Validators,
// Delegation, Balance and Proposals, and the REST paths, read with plain
// fetch, must say the same thing field by field.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import grpc from '@grpc/grpc-js';
import { bech32 } from '../lib/bech32.js';
import * as staking from 'cosmjs-types/cosmos/staking/v1beta1/query';
import * as bank from 'cosmjs-types/cosmos/bank/v1beta1/query';
import * as gov from 'cosmjs-types/cosmos/gov/v1beta1/query';
import * as tm from 'cosmjs-types/cosmos/base/tendermint/v1beta1/query';
import { env, devWallet, DEV_BALANCE, ACCOUNTS } from '../lib/env.js';

// Rpc adapts a grpc-js channel to the request interface cosmjs-types'
// query clients call.
class Rpc {
  constructor(addr) {
    this.client = new grpc.Client(addr, grpc.credentials.createInsecure());
  }
  request(service, method, data) {
    return new Promise((res, rej) => {
      this.client.makeUnaryRequest(`/${service}/${method}`, (b) => Buffer.from(b), (b) => new Uint8Array(b), data,
        (err, out) => (err ? rej(err) : res(out)));
    });
  }
  close() {
    this.client.close();
  }
}

async function rest(path) {
  const res = await fetch(env.node.rest + path);
  return { status: res.status, body: await res.json() };
}

// Dec fields travel on the gRPC wire as the value times 10^18 and read in
// JSON with 18 decimals; this puts the JSON text in wire form.
function decWire(s) {
  const [whole, frac = ''] = s.split('.');
  return BigInt(whole + frac.padEnd(18, '0')).toString();
}

function pageEqual(grpcPage, restPage) {
  assert.equal(grpcPage.total.toString(), restPage.total);
  const key = grpcPage.nextKey && grpcPage.nextKey.length ? Buffer.from(grpcPage.nextKey).toString('base64') : null;
  assert.equal(key, restPage.next_key);
}

const acc = (i) => bech32('chain', devWallet(i).address);
const valoper = (i) => bech32('chainvaloper', devWallet(i).address);

describe('cosmos queries (gRPC with cosmjs-types, REST with fetch)', () => {
  let rpc;
  before(() => { rpc = new Rpc(env.node.grpc); });
  after(() => rpc.close());

  it('Balance matches REST and the EVM balance', async () => {
    const q = new bank.QueryClientImpl(rpc);
    const addr = acc(ACCOUNTS.untouched);
    const got = await q.Balance(bank.QueryBalanceRequest.fromPartial({ address: addr, denom: 'achain' }));
    assert.equal(got.balance.denom, 'achain');
    assert.equal(got.balance.amount, DEV_BALANCE.toString());
    const all = await rest(`/cosmos/bank/v1beta1/balances/${addr}`);
    assert.equal(all.status, 200);
    assert.deepEqual(all.body.balances, [{ denom: got.balance.denom, amount: got.balance.amount }]);
    // The same account given as 0x hex.
    const hex = await rest(`/cosmos/bank/v1beta1/balances/${devWallet(ACCOUNTS.untouched).address}/by_denom?denom=achain`);
    assert.deepEqual(hex.body.balance, { denom: 'achain', amount: got.balance.amount });
  });

  it('Validators matches REST field by field', async () => {
    const q = new staking.QueryClientImpl(rpc);
    const got = await q.Validators(staking.QueryValidatorsRequest.fromPartial({ status: '' }));
    const r = await rest('/cosmos/staking/v1beta1/validators');
    assert.equal(r.status, 200);
    assert.equal(got.validators.length, r.body.validators.length);
    got.validators.forEach((v, i) => {
      const w = r.body.validators[i];
      assert.equal(v.operatorAddress, w.operator_address);
      assert.equal(v.jailed, w.jailed);
      assert.equal(v.tokens, w.tokens);
      assert.equal(v.delegatorShares, decWire(w.delegator_shares));
      assert.equal(v.description.moniker, w.description.moniker);
      assert.equal(v.commission.commissionRates.rate, decWire(w.commission.commission_rates.rate));
      assert.equal(v.minSelfDelegation, w.min_self_delegation);
    });
    pageEqual(got.pagination, r.body.pagination);
    // A bad status is refused the same way by both.
    await assert.rejects(q.Validators(staking.QueryValidatorsRequest.fromPartial({ status: 'bonded' })), (e) => e.code === grpc.status.INVALID_ARGUMENT);
    assert.equal((await rest('/cosmos/staking/v1beta1/validators?status=bonded')).status, 400);
  });

  it('Delegation answers as REST does (found or NotFound)', async () => {
    const q = new staking.QueryClientImpl(rpc);
    const del = acc(ACCOUNTS.untouched);
    const val = valoper(0);
    const r = await rest(`/cosmos/staking/v1beta1/validators/${val}/delegations/${del}`);
    try {
      const got = await q.Delegation(staking.QueryDelegationRequest.fromPartial({ delegatorAddr: del, validatorAddr: val }));
      assert.equal(r.status, 200);
      const d = got.delegationResponse;
      assert.equal(d.delegation.delegatorAddress, r.body.delegation_response.delegation.delegator_address);
      assert.equal(d.delegation.shares, decWire(r.body.delegation_response.delegation.shares));
      assert.equal(d.balance.amount, r.body.delegation_response.balance.amount);
    } catch (e) {
      if (e.code !== grpc.status.NOT_FOUND) throw e;
      assert.equal(r.status, 404);
      assert.equal(r.body.code, grpc.status.NOT_FOUND);
      assert.equal(r.body.message, e.details);
    }
    // A bech32 address with a broken checksum is bad input to both.
    const bad = del.slice(0, -1) + (del.endsWith('q') ? 'p' : 'q');
    await assert.rejects(q.Delegation(staking.QueryDelegationRequest.fromPartial({ delegatorAddr: bad, validatorAddr: val })),
      (e) => e.code === grpc.status.INVALID_ARGUMENT);
    assert.equal((await rest(`/cosmos/staking/v1beta1/validators/${val}/delegations/${bad}`)).status, 400);
  });

  it('Proposals matches REST field by field', async () => {
    const q = new gov.QueryClientImpl(rpc);
    const got = await q.Proposals(gov.QueryProposalsRequest.fromPartial({}));
    const r = await rest('/cosmos/gov/v1beta1/proposals');
    assert.equal(r.status, 200);
    assert.equal(got.proposals.length, r.body.proposals.length);
    got.proposals.forEach((p, i) => {
      const w = r.body.proposals[i];
      assert.equal(p.proposalId.toString(), w.proposal_id);
      assert.equal(p.content.typeUrl, w.content['@type']);
    });
    pageEqual(got.pagination, r.body.pagination);
    await assert.rejects(q.Proposal(gov.QueryProposalRequest.fromPartial({ proposalId: 424242n })), (e) => e.code === grpc.status.NOT_FOUND);
    assert.equal((await rest('/cosmos/gov/v1beta1/proposals/424242')).status, 404);
  });

  it('the validator set matches REST', async () => {
    const q = new tm.ServiceClientImpl(rpc);
    const got = await q.GetLatestValidatorSet(tm.GetLatestValidatorSetRequest.fromPartial({}));
    const r = await rest('/cosmos/base/tendermint/v1beta1/validatorsets/latest');
    assert.equal(r.status, 200);
    assert.equal(got.blockHeight.toString(), r.body.block_height);
    assert.ok(got.validators.length >= 1, 'the dev validator is in the set');
    got.validators.forEach((v, i) => {
      const w = r.body.validators[i];
      assert.match(v.address, /^chainvalcons1/);
      assert.equal(v.address, w.address);
      assert.equal(v.votingPower.toString(), w.voting_power);
    });
    pageEqual(got.pagination, r.body.pagination);
  });

  it('the latest block matches REST and eth_blockNumber', async () => {
    const q = new tm.ServiceClientImpl(rpc);
    const before = await env.provider.getBlockNumber();
    const got = await q.GetLatestBlock({});
    const r = await rest('/cosmos/base/tendermint/v1beta1/blocks/latest');
    const h = Number(got.sdkBlock.header.height);
    assert.ok(h >= before, `height ${h} below ${before}`);
    if (Number(r.body.sdk_block.header.height) === h) {
      assert.equal(Buffer.from(got.blockId.hash).toString('base64'), r.body.block_id.hash);
      assert.equal(got.sdkBlock.header.proposerAddress, r.body.sdk_block.header.proposer_address);
    }
    const block = await env.provider.getBlock(h);
    assert.equal('0x' + Buffer.from(got.blockId.hash).toString('hex'), block.hash);
  });
});
