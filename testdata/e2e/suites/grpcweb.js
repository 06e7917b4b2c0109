// gRPC-Web from a browser: Debian's chromium, driven by playwright-core,
// opens a dashboard page served from another origin than the node's (so
// every call is a cross-origin one, with its CORS preflight) and calls
// the gRPC port with gRPC-Web over fetch, in binary and in text form.
// The page's client (lib/grpcweb-client.js) only frames bytes: requests
// are encoded and answers decoded with cosmjs-types' codecs. It reads the
// validators, a delegation and a vote this suite makes with ethers, an
// account and a proposal, each at the height the answer names, and every
// value must agree with what JSON-RPC (eth_call on the staking and
// governance contracts, eth_getBalance, eth_getTransactionCount) says at
// that height. osmojs's LCD client reads the same through the REST port.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { osmosis } from 'osmojs';
import { ethers } from 'ethers';
import * as staking from 'cosmjs-types/cosmos/staking/v1beta1/query';
import * as bank from 'cosmjs-types/cosmos/bank/v1beta1/query';
import * as gov from 'cosmjs-types/cosmos/gov/v1beta1/query';
import * as auth from 'cosmjs-types/cosmos/auth/v1beta1/query';
import { BaseAccount } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import { bondStatusToJSON } from 'cosmjs-types/cosmos/staking/v1beta1/staking';
import { proposalStatusToJSON } from 'cosmjs-types/cosmos/gov/v1beta1/gov';
import { bech32, bech32Decode } from '../lib/bech32.js';
import { env, devWallet, ACCOUNTS } from '../lib/env.js';
import { openDashboard } from '../lib/browser.js';

const abi = (name) => JSON.parse(readFileSync(new URL(`../../../internal/staking/abi/${name}.abi.json`, import.meta.url)));
const STAKING = '0x0000000000000000000000000000000000000800';
const GOVERNANCE = '0x0000000000000000000000000000000000000805';
const DELEGATED = ethers.parseEther('2');
// JSON-RPC's proposal status numbers, in the order of cosmos.gov.v1beta1.ProposalStatus.
const STATUS = ['PROPOSAL_STATUS_UNSPECIFIED', 'PROPOSAL_STATUS_DEPOSIT_PERIOD', 'PROPOSAL_STATUS_VOTING_PERIOD',
  'PROPOSAL_STATUS_PASSED', 'PROPOSAL_STATUS_REJECTED', 'PROPOSAL_STATUS_FAILED'];

describe('gRPC-Web from a browser (chromium, fetch, cosmjs-types)', () => {
  let dash;
  let val, valHex, proposalId;
  const w = () => env.wallet(ACCOUNTS.grpcweb);
  const del = () => bech32('chain', devWallet(ACCOUNTS.grpcweb).address);
  const grpcBase = () => `http://${env.node.grpc}`;
  // call runs one query from the page (lib/browser.js).
  const call = (...args) => dash.call(...args);

  before(async () => {
    dash = await openDashboard(grpcBase());

    // A delegation and a voted proposal of this suite's own, made with ethers.
    const valsResp = await call('cosmos.staking.v1beta1.Query', 'Validators', staking.QueryValidatorsRequest, staking.QueryValidatorsResponse, { status: 'BOND_STATUS_BONDED' });
    val = valsResp.msg.validators[0].operatorAddress;
    valHex = ethers.getAddress(bech32Decode(val));
    const stake = new ethers.Contract(STAKING, abi('Staking'), w());
    assert.equal((await (await stake.delegate(valHex, { value: DELEGATED })).wait()).status, 1);
    const govc = new ethers.Contract(GOVERNANCE, abi('Governance'), w());
    const deposit = BigInt((await (await fetch(env.node.rest + '/cosmos/gov/v1beta1/params/deposit')).json()).deposit_params.min_deposit[0].amount);
    const rc = await (await govc.submitProposal(1, 'read from a browser', 'over gRPC-Web', '', '', { value: deposit })).wait();
    proposalId = govc.interface.parseLog(rc.logs[0]).args.proposalId;
    assert.equal((await (await govc.vote(proposalId, 1)).wait()).status, 1);
  });

  after(async () => {
    await dash?.close();
  });

  // JSON-RPC at a height: eth_call on a system contract.
  const view = (addr, name, fn, args, height) =>
    new ethers.Contract(addr, abi(name), env.provider)[fn](...args, { blockTag: height });

  for (const text of [false, true]) {
    const how = text ? 'grpc-web-text' : 'grpc-web+proto';

    it(`validators agree with the staking contract (${how})`, async () => {
      const { msg, height } = await call('cosmos.staking.v1beta1.Query', 'Validators', staking.QueryValidatorsRequest, staking.QueryValidatorsResponse, { status: '' }, { text });
      const addrs = await view(STAKING, 'Staking', 'getValidators', [], height);
      assert.equal(msg.validators.length, addrs.length);
      for (const v of msg.validators) {
        const hex = ethers.getAddress(bech32Decode(v.operatorAddress));
        const c = await view(STAKING, 'Staking', 'getValidator', [hex], height);
        assert.equal(v.tokens, c.tokens.toString(), `${v.operatorAddress} tokens`);
        assert.equal(v.description.moniker, c.moniker);
        assert.equal(v.jailed, c.jailed);
        assert.equal(v.commission.commissionRates.rate, c.commissionRate.toString(), 'commission rate (a Dec, 18 decimals on the wire)');
      }
      assert.ok(msg.validators.some((v) => v.operatorAddress === val && bondStatusToJSON(v.status) === 'BOND_STATUS_BONDED'));
    });

    it(`a delegation agrees with the staking contract (${how})`, async () => {
      const { msg, height } = await call('cosmos.staking.v1beta1.Query', 'Delegation', staking.QueryDelegationRequest, staking.QueryDelegationResponse,
        { delegatorAddr: del(), validatorAddr: val }, { text });
      const d = msg.delegationResponse;
      const c = await view(STAKING, 'Staking', 'getDelegation', [devWallet(ACCOUNTS.grpcweb).address, valHex], height);
      assert.equal(d.delegation.delegatorAddress, del());
      assert.equal(d.balance.amount, c.amount.toString());
      assert.ok(BigInt(d.balance.amount) >= DELEGATED);
      // Shares are a Dec, on the wire times 10^18; the contract counts whole shares.
      assert.equal(d.delegation.shares, (c.shares * 10n ** 18n).toString());
    });

    it(`an account agrees with eth_getBalance and the nonce (${how})`, async () => {
      const addr = devWallet(ACCOUNTS.grpcweb).address;
      const acct = await call('cosmos.auth.v1beta1.Query', 'Account', auth.QueryAccountRequest, auth.QueryAccountResponse, { address: del() }, { text });
      const any = acct.msg.account;
      assert.equal(any.typeUrl, '/cosmos.auth.v1beta1.BaseAccount');
      const base = BaseAccount.decode(any.value);
      assert.equal(base.address, del());
      assert.equal(base.sequence, BigInt(await env.provider.getTransactionCount(addr, acct.height)));
      const bal = await call('cosmos.bank.v1beta1.Query', 'Balance', bank.QueryBalanceRequest, bank.QueryBalanceResponse, { address: del(), denom: 'achain' }, { text });
      assert.equal(bal.msg.balance.amount, (await env.provider.getBalance(addr, bal.height)).toString());
    });

    it(`a proposal and its vote agree with the governance contract (${how})`, async () => {
      const { msg, height } = await call('cosmos.gov.v1beta1.Query', 'Proposal', gov.QueryProposalRequest, gov.QueryProposalResponse, { proposalId }, { text });
      const c = await view(GOVERNANCE, 'Governance', 'getProposal', [proposalId], height);
      assert.equal(msg.proposal.proposalId, proposalId);
      assert.equal(proposalStatusToJSON(msg.proposal.status), STATUS[Number(c.status)]);
      assert.equal(msg.proposal.totalDeposit[0].amount, c.totalDeposit.toString());
      assert.equal(BigInt(msg.proposal.votingEndTime.seconds), c.votingEnd);
      const v = await call('cosmos.gov.v1beta1.Query', 'Vote', gov.QueryVoteRequest, gov.QueryVoteResponse, { proposalId, voter: del() }, { text });
      const cv = await view(GOVERNANCE, 'Governance', 'getVote', [proposalId, devWallet(ACCOUNTS.grpcweb).address], v.height);
      assert.equal(v.msg.vote.options.length, 1);
      assert.equal(v.msg.vote.options[0].option, 1); // VOTE_OPTION_YES
      assert.ok(cv.yes > 0n && cv.no === 0n && cv.abstain === 0n && cv.noWithVeto === 0n);
    });
  }

  // osmojs's LCD client (Telescope's, over axios) reads the REST port as
  // dashboards built on it do; its answers are the gateway's JSON.
  it('osmojs\'s LCD client reads the same as JSON-RPC', async () => {
    const lcd = await osmosis.ClientFactory.createLCDClient({ restEndpoint: env.node.rest });
    const me = devWallet(ACCOUNTS.grpcweb).address;
    const vals = await lcd.cosmos.staking.v1beta1.validators({ status: '' });
    const addrs = await view(STAKING, 'Staking', 'getValidators', [], 'latest');
    assert.equal(vals.validators.length, addrs.length);
    for (const v of vals.validators) {
      const c = await view(STAKING, 'Staking', 'getValidator', [ethers.getAddress(bech32Decode(v.operator_address))], 'latest');
      assert.equal(v.tokens, c.tokens.toString());
      assert.equal(v.description.moniker, c.moniker);
    }
    const d = await lcd.cosmos.staking.v1beta1.delegation({ delegatorAddr: del(), validatorAddr: val });
    const cd = await view(STAKING, 'Staking', 'getDelegation', [me, valHex], 'latest');
    assert.equal(d.delegation_response.balance.amount, cd.amount.toString());
    const acct = (await lcd.cosmos.auth.v1beta1.account({ address: del() })).account;
    assert.equal(acct['@type'], '/cosmos.auth.v1beta1.BaseAccount');
    const base = acct;
    assert.equal(base.address, del());
    assert.equal(base.sequence, String(await env.provider.getTransactionCount(me, 'latest')));
    const bal = await lcd.cosmos.bank.v1beta1.balance({ address: del(), denom: 'achain' });
    assert.equal(bal.balance.amount, (await env.provider.getBalance(me, 'latest')).toString());
    const p = (await lcd.cosmos.gov.v1beta1.proposal({ proposalId: proposalId.toString() })).proposal;
    const cp = await view(GOVERNANCE, 'Governance', 'getProposal', [proposalId], 'latest');
    assert.equal(p.status, STATUS[Number(cp.status)]);
    assert.equal(p.total_deposit[0].amount, cp.totalDeposit.toString());
  });

  it('a read at an earlier height, and a failure, reach the page as gRPC statuses', async () => {
    const h = BigInt(await env.provider.getBlockNumber()) - 1n;
    const { msg, height } = await call('cosmos.bank.v1beta1.Query', 'Balance', bank.QueryBalanceRequest, bank.QueryBalanceResponse,
      { address: del(), denom: 'achain' }, { height: h.toString() });
    assert.equal(height, h);
    assert.equal(msg.balance.amount, (await env.provider.getBalance(devWallet(ACCOUNTS.grpcweb).address, h)).toString());
    const req = Buffer.from(gov.QueryProposalRequest.encode({ proposalId: 424242n }).finish()).toString('base64');
    const got = await dash.raw('cosmos.gov.v1beta1.Query', 'Proposal', req);
    assert.equal(got.httpStatus, 200);
    assert.equal(got.messages.length, 0);
    assert.equal(got.trailers['grpc-status'], '5'); // NOT_FOUND
    assert.match(got.trailers['grpc-message'], /424242/);
    assert.deepEqual(dash.problems, []);
  });
});
