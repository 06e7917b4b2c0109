// The Cosmos-style query ports as Keplr-era tools read them: a gRPC client
// (@grpc/grpc-js) with the message codecs of cosmjs-types calls Validators,
// Delegation, Balance and Proposals, and the REST paths, read with plain
// fetch, must say the same thing field by field: every field of 57 answers
// is compared, each decoded by cosmjs-types. The dev chain's staking
// state is real: its validator with its self-delegation, plus a delegation
// and a text proposal the suite makes through the system contracts with
// the ABI files the repository ships.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import grpc from '@grpc/grpc-js';
import { ethers } from 'ethers';
import { bech32, bech32Decode } from '../lib/bech32.js';
import * as staking from 'cosmjs-types/cosmos/staking/v1beta1/query';
import { bondStatusToJSON } from 'cosmjs-types/cosmos/staking/v1beta1/staking';
import { proposalStatusToJSON } from 'cosmjs-types/cosmos/gov/v1beta1/gov';
import * as bank from 'cosmjs-types/cosmos/bank/v1beta1/query';
import * as gov from 'cosmjs-types/cosmos/gov/v1beta1/query';
import * as tm from 'cosmjs-types/cosmos/base/tendermint/v1beta1/query';
import * as distr from 'cosmjs-types/cosmos/distribution/v1beta1/query';
import * as slashing from 'cosmjs-types/cosmos/slashing/v1beta1/query';
import * as auth from 'cosmjs-types/cosmos/auth/v1beta1/query';
import * as govv1 from 'cosmjs-types/cosmos/gov/v1/query';
import * as mint from 'cosmjs-types/cosmos/mint/v1beta1/query';
import * as node from 'cosmjs-types/cosmos/base/node/v1beta1/query';
import * as upgrade from 'cosmjs-types/cosmos/upgrade/v1beta1/query';
import { env, devWallet, DEV_BALANCE, ACCOUNTS } from '../lib/env.js';
import { Rpc, rest, decWire, pageEqual, sameFields } from '../lib/cosmos.js';

const acc = (i) => bech32('chain', devWallet(i).address);
const abi = (name) => JSON.parse(readFileSync(new URL(`../../../internal/staking/abi/${name}.abi.json`, import.meta.url)));
const STAKING = '0x0000000000000000000000000000000000000800';
const GOVERNANCE = '0x0000000000000000000000000000000000000805';
const DELEGATED = ethers.parseEther('3');

describe('cosmos queries (gRPC with cosmjs-types, REST with fetch)', () => {
  let rpc;
  let val; // the dev validator's operator, chainvaloper1…
  let proposalId;
  const del = acc(ACCOUNTS.cosmos);
  before(async () => {
    rpc = new Rpc(env.node.grpc);
    // The dev validator, read over REST, gets a delegation from the
    // suite's account, which also submits a text proposal.
    const vs = await rest('/cosmos/staking/v1beta1/validators?status=BOND_STATUS_BONDED');
    assert.equal(vs.status, 200);
    assert.ok(vs.body.validators.length >= 1, 'the dev chain has a bonded validator');
    val = vs.body.validators[0].operator_address;
    const w = env.wallet(ACCOUNTS.cosmos);
    const stake = new ethers.Contract(STAKING, abi('Staking'), w);
    assert.equal((await (await stake.delegate(bech32Decode(val), { value: DELEGATED })).wait()).status, 1);
    const deposit = (await rest('/cosmos/gov/v1beta1/params/deposit')).body.deposit_params.min_deposit[0].amount;
    const gov = new ethers.Contract(GOVERNANCE, abi('Governance'), w);
    const rc = await (await gov.submitProposal(1, 'read over gRPC', 'a text proposal', '', '', { value: BigInt(deposit) })).wait();
    proposalId = gov.interface.parseLog(rc.logs[0]).args.proposalId;
  });
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
    assert.ok(r.body.validators.length >= 1, 'the dev validator is listed');
    assert.ok(r.body.validators.some((w) => w.operator_address === val && w.status === 'BOND_STATUS_BONDED' && BigInt(w.tokens) > 0n));
    assert.equal(got.validators.length, r.body.validators.length);
    got.validators.forEach((v, i) => {
      const w = r.body.validators[i];
      assert.equal(v.operatorAddress, w.operator_address);
      assert.equal(bondStatusToJSON(v.status), w.status);
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

  it('Delegation and DelegatorDelegations match REST', async () => {
    const q = new staking.QueryClientImpl(rpc);
    const r = await rest(`/cosmos/staking/v1beta1/validators/${val}/delegations/${del}`);
    assert.equal(r.status, 200);
    const got = await q.Delegation(staking.QueryDelegationRequest.fromPartial({ delegatorAddr: del, validatorAddr: val }));
    const d = got.delegationResponse;
    const w = r.body.delegation_response;
    assert.equal(d.delegation.delegatorAddress, del);
    assert.equal(d.delegation.delegatorAddress, w.delegation.delegator_address);
    assert.equal(d.delegation.validatorAddress, w.delegation.validator_address);
    assert.equal(d.delegation.shares, decWire(w.delegation.shares));
    assert.equal(d.balance.amount, w.balance.amount);
    assert.equal(d.balance.amount, DELEGATED.toString());
    const all = await q.DelegatorDelegations(staking.QueryDelegatorDelegationsRequest.fromPartial({ delegatorAddr: del }));
    const ra = await rest(`/cosmos/staking/v1beta1/delegations/${del}`);
    assert.ok(all.delegationResponses.length >= 1);
    assert.equal(all.delegationResponses.length, ra.body.delegation_responses.length);
    all.delegationResponses.forEach((x, i) => {
      assert.equal(x.delegation.validatorAddress, ra.body.delegation_responses[i].delegation.validator_address);
      assert.equal(x.balance.amount, ra.body.delegation_responses[i].balance.amount);
    });
    // The validator's own delegations include its self-delegation and
    // the suite's.
    const vd = await q.ValidatorDelegations(staking.QueryValidatorDelegationsRequest.fromPartial({ validatorAddr: val }));
    assert.ok(vd.delegationResponses.length >= 2);
    assert.ok(vd.delegationResponses.some((x) => x.delegation.delegatorAddress === del));
    // No delegation: NotFound from both, in the same words.
    const none = acc(ACCOUNTS.untouched);
    const nr = await rest(`/cosmos/staking/v1beta1/validators/${val}/delegations/${none}`);
    assert.equal(nr.status, 404);
    await assert.rejects(q.Delegation(staking.QueryDelegationRequest.fromPartial({ delegatorAddr: none, validatorAddr: val })),
      (e) => e.code === grpc.status.NOT_FOUND && e.details === nr.body.message);
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
    assert.ok(r.body.proposals.some((w) => w.proposal_id === proposalId.toString() && w.status === 'PROPOSAL_STATUS_VOTING_PERIOD'));
    assert.equal(got.proposals.length, r.body.proposals.length);
    got.proposals.forEach((p, i) => {
      const w = r.body.proposals[i];
      assert.equal(p.proposalId.toString(), w.proposal_id);
      assert.equal(p.content.typeUrl, w.content['@type']);
      assert.equal(proposalStatusToJSON(p.status), w.status);
      assert.equal(p.totalDeposit[0].amount, w.total_deposit[0].amount);
    });
    const one = await q.Proposal(gov.QueryProposalRequest.fromPartial({ proposalId }));
    assert.equal(one.proposal.proposalId, proposalId);
    pageEqual(got.pagination, r.body.pagination);
    await assert.rejects(q.Proposal(gov.QueryProposalRequest.fromPartial({ proposalId: 424242n })), (e) => e.code === grpc.status.NOT_FOUND);
    assert.equal((await rest('/cosmos/gov/v1beta1/proposals/424242')).status, 404);
  });

  // Every query with data on the dev chain, each field of each answer: the
  // REST JSON against the gRPC answer decoded by cosmjs-types. A block
  // between the two reads can change rewards, so a differing pair is read
  // again before it counts.
  it('every answer matches REST field by field', async () => {
    const Q = {
      staking: new staking.QueryClientImpl(rpc), bank: new bank.QueryClientImpl(rpc), gov: new gov.QueryClientImpl(rpc),
      distr: new distr.QueryClientImpl(rpc), slashing: new slashing.QueryClientImpl(rpc), auth: new auth.QueryClientImpl(rpc),
      tm: new tm.ServiceClientImpl(rpc), govv1: new govv1.QueryClientImpl(rpc), mint: new mint.QueryClientImpl(rpc),
      node: new node.ServiceClientImpl(rpc), upgrade: new upgrade.QueryClientImpl(rpc),
    };
    const cons = (await rest('/cosmos/slashing/v1beta1/signing_infos')).body.info[0].address;
    const cases = [
      [() => Q.staking.Validators(staking.QueryValidatorsRequest.fromPartial({ status: '' })), staking.QueryValidatorsResponse, '/cosmos/staking/v1beta1/validators'],
      [() => Q.staking.Validator(staking.QueryValidatorRequest.fromPartial({ validatorAddr: val })), staking.QueryValidatorResponse, `/cosmos/staking/v1beta1/validators/${val}`],
      [() => Q.staking.ValidatorDelegations(staking.QueryValidatorDelegationsRequest.fromPartial({ validatorAddr: val })), staking.QueryValidatorDelegationsResponse, `/cosmos/staking/v1beta1/validators/${val}/delegations`],
      [() => Q.staking.Delegation(staking.QueryDelegationRequest.fromPartial({ delegatorAddr: del, validatorAddr: val })), staking.QueryDelegationResponse, `/cosmos/staking/v1beta1/validators/${val}/delegations/${del}`],
      [() => Q.staking.DelegatorDelegations(staking.QueryDelegatorDelegationsRequest.fromPartial({ delegatorAddr: del })), staking.QueryDelegatorDelegationsResponse, `/cosmos/staking/v1beta1/delegations/${del}`],
      [() => Q.staking.DelegatorUnbondingDelegations(staking.QueryDelegatorUnbondingDelegationsRequest.fromPartial({ delegatorAddr: del })), staking.QueryDelegatorUnbondingDelegationsResponse, `/cosmos/staking/v1beta1/delegators/${del}/unbonding_delegations`],
      [() => Q.staking.ValidatorUnbondingDelegations(staking.QueryValidatorUnbondingDelegationsRequest.fromPartial({ validatorAddr: val })), staking.QueryValidatorUnbondingDelegationsResponse, `/cosmos/staking/v1beta1/validators/${val}/unbonding_delegations`],
      [() => Q.staking.DelegatorValidators(staking.QueryDelegatorValidatorsRequest.fromPartial({ delegatorAddr: del })), staking.QueryDelegatorValidatorsResponse, `/cosmos/staking/v1beta1/delegators/${del}/validators`],
      [() => Q.staking.DelegatorValidator(staking.QueryDelegatorValidatorRequest.fromPartial({ delegatorAddr: del, validatorAddr: val })), staking.QueryDelegatorValidatorResponse, `/cosmos/staking/v1beta1/delegators/${del}/validators/${val}`],
      [() => Q.staking.Redelegations(staking.QueryRedelegationsRequest.fromPartial({ delegatorAddr: del })), staking.QueryRedelegationsResponse, `/cosmos/staking/v1beta1/delegators/${del}/redelegations`],
      [() => Q.staking.Params(staking.QueryParamsRequest.fromPartial({})), staking.QueryParamsResponse, '/cosmos/staking/v1beta1/params'],
      [() => Q.staking.Pool(staking.QueryPoolRequest.fromPartial({})), staking.QueryPoolResponse, '/cosmos/staking/v1beta1/pool'],
      [() => Q.bank.Balance(bank.QueryBalanceRequest.fromPartial({ address: del, denom: 'achain' })), bank.QueryBalanceResponse, `/cosmos/bank/v1beta1/balances/${del}/by_denom?denom=achain`],
      [() => Q.bank.AllBalances(bank.QueryAllBalancesRequest.fromPartial({ address: del })), bank.QueryAllBalancesResponse, `/cosmos/bank/v1beta1/balances/${del}`],
      [() => Q.bank.TotalSupply(bank.QueryTotalSupplyRequest.fromPartial({})), bank.QueryTotalSupplyResponse, '/cosmos/bank/v1beta1/supply'],
      [() => Q.auth.Account(auth.QueryAccountRequest.fromPartial({ address: del })), auth.QueryAccountResponse, `/cosmos/auth/v1beta1/accounts/${del}`],
      [() => Q.gov.Proposals(gov.QueryProposalsRequest.fromPartial({})), gov.QueryProposalsResponse, '/cosmos/gov/v1beta1/proposals'],
      [() => Q.gov.Proposal(gov.QueryProposalRequest.fromPartial({ proposalId })), gov.QueryProposalResponse, `/cosmos/gov/v1beta1/proposals/${proposalId}`],
      [() => Q.gov.Deposits(gov.QueryDepositsRequest.fromPartial({ proposalId })), gov.QueryDepositsResponse, `/cosmos/gov/v1beta1/proposals/${proposalId}/deposits`],
      [() => Q.gov.TallyResult(gov.QueryTallyResultRequest.fromPartial({ proposalId })), gov.QueryTallyResultResponse, `/cosmos/gov/v1beta1/proposals/${proposalId}/tally`],
      [() => Q.gov.Params(gov.QueryParamsRequest.fromPartial({ paramsType: 'tallying' })), gov.QueryParamsResponse, '/cosmos/gov/v1beta1/params/tallying'],
      [() => Q.distr.DelegationRewards(distr.QueryDelegationRewardsRequest.fromPartial({ delegatorAddress: del, validatorAddress: val })), distr.QueryDelegationRewardsResponse, `/cosmos/distribution/v1beta1/delegators/${del}/rewards/${val}`],
      [() => Q.distr.DelegationTotalRewards(distr.QueryDelegationTotalRewardsRequest.fromPartial({ delegatorAddress: del })), distr.QueryDelegationTotalRewardsResponse, `/cosmos/distribution/v1beta1/delegators/${del}/rewards`],
      [() => Q.distr.ValidatorCommission(distr.QueryValidatorCommissionRequest.fromPartial({ validatorAddress: val })), distr.QueryValidatorCommissionResponse, `/cosmos/distribution/v1beta1/validators/${val}/commission`],
      [() => Q.distr.ValidatorOutstandingRewards(distr.QueryValidatorOutstandingRewardsRequest.fromPartial({ validatorAddress: val })), distr.QueryValidatorOutstandingRewardsResponse, `/cosmos/distribution/v1beta1/validators/${val}/outstanding_rewards`],
      [() => Q.distr.CommunityPool(distr.QueryCommunityPoolRequest.fromPartial({})), distr.QueryCommunityPoolResponse, '/cosmos/distribution/v1beta1/community_pool'],
      [() => Q.distr.Params(distr.QueryParamsRequest.fromPartial({})), distr.QueryParamsResponse, '/cosmos/distribution/v1beta1/params'],
      [() => Q.slashing.SigningInfos(slashing.QuerySigningInfosRequest.fromPartial({})), slashing.QuerySigningInfosResponse, '/cosmos/slashing/v1beta1/signing_infos'],
      [() => Q.slashing.SigningInfo(slashing.QuerySigningInfoRequest.fromPartial({ consAddress: cons })), slashing.QuerySigningInfoResponse, `/cosmos/slashing/v1beta1/signing_infos/${cons}`],
      [() => Q.slashing.Params(slashing.QueryParamsRequest.fromPartial({})), slashing.QueryParamsResponse, '/cosmos/slashing/v1beta1/params'],
      [() => Q.tm.GetValidatorSetByHeight(tm.GetValidatorSetByHeightRequest.fromPartial({ height: 1n })), tm.GetValidatorSetByHeightResponse, '/cosmos/base/tendermint/v1beta1/validatorsets/1'],
      [() => Q.tm.GetBlockByHeight(tm.GetBlockByHeightRequest.fromPartial({ height: 1n })), tm.GetBlockByHeightResponse, '/cosmos/base/tendermint/v1beta1/blocks/1'],
      [() => Q.tm.GetNodeInfo(tm.GetNodeInfoRequest.fromPartial({})), tm.GetNodeInfoResponse, '/cosmos/base/tendermint/v1beta1/node_info'],
      // The SDK v0.50 queries added beside the first 33.
      [() => Q.bank.Params(bank.QueryParamsRequest.fromPartial({})), bank.QueryParamsResponse, '/cosmos/bank/v1beta1/params'],
      [() => Q.bank.SpendableBalances(bank.QuerySpendableBalancesRequest.fromPartial({ address: del })), bank.QuerySpendableBalancesResponse, `/cosmos/bank/v1beta1/spendable_balances/${del}`],
      [() => Q.bank.SpendableBalanceByDenom(bank.QuerySpendableBalanceByDenomRequest.fromPartial({ address: del, denom: 'achain' })), bank.QuerySpendableBalanceByDenomResponse, `/cosmos/bank/v1beta1/spendable_balances/${del}/by_denom?denom=achain`],
      [() => Q.bank.DenomsMetadata(bank.QueryDenomsMetadataRequest.fromPartial({})), bank.QueryDenomsMetadataResponse, '/cosmos/bank/v1beta1/denoms_metadata'],
      [() => Q.bank.DenomMetadata(bank.QueryDenomMetadataRequest.fromPartial({ denom: 'achain' })), bank.QueryDenomMetadataResponse, '/cosmos/bank/v1beta1/denoms_metadata/achain'],
      [() => Q.auth.Params(auth.QueryParamsRequest.fromPartial({})), auth.QueryParamsResponse, '/cosmos/auth/v1beta1/params'],
      [() => Q.auth.Bech32Prefix(auth.Bech32PrefixRequest.fromPartial({})), auth.Bech32PrefixResponse, '/cosmos/auth/v1beta1/bech32'],
      [() => Q.auth.AccountInfo(auth.QueryAccountInfoRequest.fromPartial({ address: del })), auth.QueryAccountInfoResponse, `/cosmos/auth/v1beta1/account_info/${del}`],
      [() => Q.staking.HistoricalInfo(staking.QueryHistoricalInfoRequest.fromPartial({ height: 1n })), staking.QueryHistoricalInfoResponse, '/cosmos/staking/v1beta1/historical_info/1'],
      [() => Q.distr.ValidatorDistributionInfo(distr.QueryValidatorDistributionInfoRequest.fromPartial({ validatorAddress: val })), distr.QueryValidatorDistributionInfoResponse, `/cosmos/distribution/v1beta1/validators/${val}`],
      [() => Q.distr.DelegatorValidators(distr.QueryDelegatorValidatorsRequest.fromPartial({ delegatorAddress: del })), distr.QueryDelegatorValidatorsResponse, `/cosmos/distribution/v1beta1/delegators/${del}/validators`],
      [() => Q.distr.DelegatorWithdrawAddress(distr.QueryDelegatorWithdrawAddressRequest.fromPartial({ delegatorAddress: del })), distr.QueryDelegatorWithdrawAddressResponse, `/cosmos/distribution/v1beta1/delegators/${del}/withdraw_address`],
      [() => Q.gov.Deposit(gov.QueryDepositRequest.fromPartial({ proposalId, depositor: del })), gov.QueryDepositResponse, `/cosmos/gov/v1beta1/proposals/${proposalId}/deposits/${del}`],
      [() => Q.govv1.Proposal(govv1.QueryProposalRequest.fromPartial({ proposalId })), govv1.QueryProposalResponse, `/cosmos/gov/v1/proposals/${proposalId}`],
      [() => Q.govv1.Proposals(govv1.QueryProposalsRequest.fromPartial({})), govv1.QueryProposalsResponse, '/cosmos/gov/v1/proposals'],
      [() => Q.govv1.Deposits(govv1.QueryDepositsRequest.fromPartial({ proposalId })), govv1.QueryDepositsResponse, `/cosmos/gov/v1/proposals/${proposalId}/deposits`],
      [() => Q.govv1.Deposit(govv1.QueryDepositRequest.fromPartial({ proposalId, depositor: del })), govv1.QueryDepositResponse, `/cosmos/gov/v1/proposals/${proposalId}/deposits/${del}`],
      [() => Q.govv1.TallyResult(govv1.QueryTallyResultRequest.fromPartial({ proposalId })), govv1.QueryTallyResultResponse, `/cosmos/gov/v1/proposals/${proposalId}/tally`],
      [() => Q.govv1.Params(govv1.QueryParamsRequest.fromPartial({ paramsType: 'voting' })), govv1.QueryParamsResponse, '/cosmos/gov/v1/params/voting'],
      [() => Q.govv1.Constitution(govv1.QueryConstitutionRequest.fromPartial({})), govv1.QueryConstitutionResponse, '/cosmos/gov/v1/constitution'],
      [() => Q.mint.Params(mint.QueryParamsRequest.fromPartial({})), mint.QueryParamsResponse, '/cosmos/mint/v1beta1/params'],
      [() => Q.mint.Inflation(mint.QueryInflationRequest.fromPartial({})), mint.QueryInflationResponse, '/cosmos/mint/v1beta1/inflation'],
      [() => Q.mint.AnnualProvisions(mint.QueryAnnualProvisionsRequest.fromPartial({})), mint.QueryAnnualProvisionsResponse, '/cosmos/mint/v1beta1/annual_provisions'],
      [() => Q.node.Config(node.ConfigRequest.fromPartial({})), node.ConfigResponse, '/cosmos/base/node/v1beta1/config'],
      [() => Q.upgrade.Authority(upgrade.QueryAuthorityRequest.fromPartial({})), upgrade.QueryAuthorityResponse, '/cosmos/upgrade/v1beta1/authority'],
    ];
    for (const [call, codec, path] of cases) {
      let diff;
      for (let attempt = 0; attempt < 3; attempt++) {
        const g = codec.toJSON(await call());
        const r = await rest(path);
        assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
        diff = sameFields(r.body, g);
        if (!diff) break;
      }
      assert.equal(diff, null, path);
    }
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

  it('x-cosmos-block-height reads the state of that block on REST and gRPC', async () => {
    const addr = devWallet(ACCOUNTS.cosmos).address;
    const at1 = await env.provider.getBalance(addr, 1);
    const now = await env.provider.getBalance(addr, 'latest');
    assert.notEqual(at1, now, 'the account spent since block 1 (its delegation)');
    const path = `/cosmos/bank/v1beta1/balances/${acc(ACCOUNTS.cosmos)}/by_denom?denom=achain`;
    const r = await rest(path, { 'x-cosmos-block-height': '1' });
    assert.equal(r.status, 200);
    assert.equal(r.body.balance.amount, at1.toString());
    assert.equal(r.headers.get('x-cosmos-block-height'), '1');
    assert.equal(r.headers.get('grpc-metadata-x-cosmos-block-height'), '1');
    const req = bank.QueryBalanceRequest.encode(bank.QueryBalanceRequest.fromPartial({ address: acc(ACCOUNTS.cosmos), denom: 'achain' })).finish();
    const g = await rpc.requestAt('cosmos.bank.v1beta1.Query', 'Balance', req, 1);
    assert.equal(bank.QueryBalanceResponse.decode(g.out).balance.amount, at1.toString());
    assert.equal(g.height, '1');
    // Without the header: the head, named in the answer.
    const head = await rest(path);
    assert.ok(Number(head.headers.get('x-cosmos-block-height')) >= 1);
    // A height past the head is refused, naming the heights kept.
    const future = await rest(path, { 'x-cosmos-block-height': '99999999' });
    assert.equal(future.status, 400);
    assert.equal(future.body.code, 3);
    assert.match(future.body.message, /height 99999999 is above the latest block \d+; this node answers heights \d+ to \d+/);
    await assert.rejects(rpc.requestAt('cosmos.bank.v1beta1.Query', 'Balance', req, 99999999),
      (e) => e.code === grpc.status.INVALID_ARGUMENT && /above the latest block/.test(e.details));
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
