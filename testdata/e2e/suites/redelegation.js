// A redelegation made with ethers through the Staking system contract,
// read back as Cosmos tools read it: over gRPC with cosmjs-types' codecs
// and over REST with fetch, the two compared field by field, and both
// holding exactly what the transaction did — the amount, the block, and
// the end of the cooldown. It moves part of the cosmos suite's delegation
// from the dev validator to the one the staking suite made, so it runs
// after both.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import grpc from '@grpc/grpc-js';
import { ethers } from 'ethers';
import { bech32, bech32Decode } from '../lib/bech32.js';
import * as staking from 'cosmjs-types/cosmos/staking/v1beta1/query';
import { env, devWallet, ACCOUNTS } from '../lib/env.js';
import { Rpc, rest, decWire, sameFields } from '../lib/cosmos.js';

const abi = (name) => JSON.parse(readFileSync(new URL(`../../../internal/staking/abi/${name}.abi.json`, import.meta.url)));
const STAKING = '0x0000000000000000000000000000000000000800';
const MOVED = ethers.parseEther('1');

describe('redelegations (gRPC with cosmjs-types, REST with fetch)', () => {
  let rpc;
  let q;
  let src; // the dev validator
  let dst; // the staking suite's validator
  let block; // the block that moved the stake
  const del = bech32('chain', devWallet(ACCOUNTS.redelegation).address);
  before(async () => {
    rpc = new Rpc(env.node.grpc);
    q = new staking.QueryClientImpl(rpc);
    const ds = (await rest(`/cosmos/staking/v1beta1/delegations/${del}`)).body.delegation_responses;
    assert.ok(ds.length >= 1, 'the cosmos suite delegated from this account');
    src = ds[0].delegation.validator_address;
    const vs = (await rest('/cosmos/staking/v1beta1/validators')).body.validators;
    const other = vs.find((v) => v.operator_address !== src);
    assert.ok(other, 'the staking suite made a second validator');
    dst = other.operator_address;
    const stake = new ethers.Contract(STAKING, abi('Staking'), env.wallet(ACCOUNTS.redelegation));
    const rc = await (await stake.redelegate(bech32Decode(src), bech32Decode(dst), MOVED)).wait();
    assert.equal(rc.status, 1);
    assert.equal(stake.interface.parseLog(rc.logs[0]).name, 'Redelegate');
    block = await env.provider.getBlock(rc.blockNumber);
  });
  after(() => rpc.close());

  it('the redelegation reads the same over gRPC and REST, with what the transaction did', async () => {
    const unbondingTime = (await rest('/cosmos/staking/v1beta1/params')).body.params.unbonding_time; // "60s"
    const completion = new Date((block.timestamp + Number(unbondingTime.slice(0, -1))) * 1000).toISOString().replace('.000Z', 'Z');
    const dstVal = (await rest(`/cosmos/staking/v1beta1/validators/${dst}`)).body.validator;
    const cases = [
      [{ delegatorAddr: del }, `/cosmos/staking/v1beta1/delegators/${del}/redelegations`],
      [{ delegatorAddr: del, srcValidatorAddr: src, dstValidatorAddr: dst },
        `/cosmos/staking/v1beta1/delegators/${del}/redelegations?src_validator_addr=${src}&dst_validator_addr=${dst}`],
    ];
    for (const [req, path] of cases) {
      const got = await q.Redelegations(staking.QueryRedelegationsRequest.fromPartial(req));
      const r = await rest(path);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(sameFields(r.body, staking.QueryRedelegationsResponse.toJSON(got)), null, path);
      assert.equal(r.body.redelegation_responses.length, 1);
      const red = r.body.redelegation_responses[0];
      assert.deepEqual(red.redelegation, { delegator_address: del, validator_src_address: src, validator_dst_address: dst, entries: [] });
      assert.equal(red.entries.length, 1);
      const e = red.entries[0];
      assert.equal(e.redelegation_entry.creation_height, String(block.number));
      assert.equal(e.redelegation_entry.completion_time, completion);
      assert.equal(e.redelegation_entry.initial_balance, MOVED.toString());
      assert.equal(e.redelegation_entry.unbonding_on_hold_ref_count, '0');
      // The balance is what the destination shares are worth at the
      // destination's exchange rate.
      const shares = BigInt(decWire(e.redelegation_entry.shares_dst));
      assert.equal(e.balance, (shares * BigInt(dstVal.tokens) / BigInt(decWire(dstVal.delegator_shares))).toString());
      assert.equal(got.redelegationResponses[0].entries[0].redelegationEntry.initialBalance, MOVED.toString());
    }
    // The source validator alone lists everyone's redelegations out of it.
    const bySrc = await q.Redelegations(staking.QueryRedelegationsRequest.fromPartial({ srcValidatorAddr: src }));
    assert.ok(bySrc.redelegationResponses.some((x) => x.redelegation.delegatorAddress === del && x.redelegation.validatorDstAddress === dst));
    // The reverse direction does not exist: NotFound from both, in the same words.
    const nr = await rest(`/cosmos/staking/v1beta1/delegators/${del}/redelegations?src_validator_addr=${dst}&dst_validator_addr=${src}`);
    assert.equal(nr.status, 404);
    await assert.rejects(q.Redelegations(staking.QueryRedelegationsRequest.fromPartial({ delegatorAddr: del, srcValidatorAddr: dst, dstValidatorAddr: src })),
      (e) => e.code === grpc.status.NOT_FOUND && e.details === nr.body.message);
    // The stake moved in cannot hop on while the entry is pending.
    const stake = new ethers.Contract(STAKING, abi('Staking'), env.wallet(ACCOUNTS.redelegation));
    await assert.rejects(stake.redelegate.staticCall(bech32Decode(dst), bech32Decode(src), MOVED), /cannot move on until/);
  });
});
