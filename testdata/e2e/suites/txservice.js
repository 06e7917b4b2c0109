// The Cosmos tx service as an explorer reads it: cosmjs-types' tx
// ServiceClientImpl over @grpc/grpc-js finds a delegation and a vote this
// suite makes with ethers — by Ethereum hash, by CometBFT hash, by sender
// and height in GetTxsEvent, and in their block's GetBlockWithTxs — and
// every value must agree with JSON-RPC: the raw transaction inside the
// MsgEthereumTx is the one eth_getTransactionByHash gives, and height,
// gas, status, logs and block time are the receipt's and the block's.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { ethers } from 'ethers';
import * as txs from 'cosmjs-types/cosmos/tx/v1beta1/service';
import { TxRaw, TxBody, AuthInfo } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { bech32, bech32Decode } from '../lib/bech32.js';
import { env, rpc as rpcRaw, ACCOUNTS } from '../lib/env.js';
import { Rpc, rest, fields } from '../lib/cosmos.js';

const rpc = async (m, p) => (await rpcRaw(m, p)).result;
const abi = (name) => JSON.parse(readFileSync(new URL(`../../../internal/staking/abi/${name}.abi.json`, import.meta.url)));
const STAKING = '0x0000000000000000000000000000000000000800';
const GOVERNANCE = '0x0000000000000000000000000000000000000805';

const str = (b) => Buffer.from(b).toString();
const hex = (b) => '0x' + Buffer.from(b).toString('hex');

describe('cosmos tx service (cosmjs-types over gRPC) agrees with JSON-RPC receipts', () => {
  let grpc, svc;
  const made = {}; // name -> { rc, tx } of the transactions made with ethers
  before(async () => {
    grpc = new Rpc(env.node.grpc);
    svc = new txs.ServiceClientImpl(grpc);
    const w = env.wallet(ACCOUNTS.txservice);
    const vs = await rest('/cosmos/staking/v1beta1/validators?status=BOND_STATUS_BONDED');
    const val = ethers.getAddress(bech32Decode(vs.body.validators[0].operator_address));
    const stake = new ethers.Contract(STAKING, abi('Staking'), w);
    made.delegation = { rc: await (await stake.delegate(val, { value: ethers.parseEther('1') })).wait() };
    const gov = new ethers.Contract(GOVERNANCE, abi('Governance'), w);
    const deposit = BigInt((await rest('/cosmos/gov/v1beta1/params/deposit')).body.deposit_params.min_deposit[0].amount);
    const sub = await (await gov.submitProposal(1, 'found by the tx service', 'a text proposal', '', '', { value: deposit })).wait();
    const id = gov.interface.parseLog(sub.logs[0]).args.proposalId;
    made.vote = { rc: await (await gov.vote(id, 1)).wait() };
    for (const m of Object.values(made)) {
      assert.equal(m.rc.status, 1);
      m.tx = await rpc('eth_getTransactionByHash', [m.rc.hash]);
      m.receipt = await rpc('eth_getTransactionReceipt', [m.rc.hash]);
      m.raw = ethers.Transaction.from(await w.provider.getTransaction(m.rc.hash)).serialized;
    }
  });
  after(() => grpc.close());

  // agrees checks one tx service answer (its Tx and TxResponse) against
  // what JSON-RPC says of the same transaction.
  function agrees(m, tx, resp) {
    const r = m.receipt;
    assert.equal(resp.height, BigInt(r.blockNumber));
    assert.equal(r.status, '0x1');
    assert.equal(resp.code, 0);
    assert.equal(resp.gasUsed, BigInt(r.gasUsed));
    assert.equal(resp.gasWanted, BigInt(m.tx.gas));
    // The body: one MsgEthereumTx carrying the sender and the raw
    // transaction JSON-RPC knows.
    assert.equal(tx.body.messages.length, 1);
    assert.equal(tx.body.messages[0].typeUrl, '/cosmos.evm.vm.v1.MsgEthereumTx');
    const msg = fields(tx.body.messages[0].value);
    assert.equal(hex(msg[5][0]), m.tx.from.toLowerCase());
    assert.equal(hex(msg[6][0]), m.raw);
    assert.equal(ethers.Transaction.from(hex(msg[6][0])).hash, m.rc.hash);
    assert.equal(tx.body.extensionOptions[0].typeUrl, '/cosmos.evm.vm.v1.ExtensionOptionsEthereumTx');
    // The fee: gas limit times the price offered, in achain.
    assert.equal(tx.authInfo.fee.gasLimit, BigInt(m.tx.gas));
    assert.equal(tx.authInfo.fee.amount[0].amount, (BigInt(m.tx.gas) * BigInt(m.tx.maxFeePerGas ?? m.tx.gasPrice)).toString());
    assert.deepEqual(tx.authInfo.signerInfos, []);
    // The hash is sha256 of the TxRaw the body and auth info make.
    const txRaw = TxRaw.encode(TxRaw.fromPartial({ bodyBytes: TxBody.encode(tx.body).finish(), authInfoBytes: AuthInfo.encode(tx.authInfo).finish() })).finish();
    assert.equal(resp.txhash, createHash('sha256').update(txRaw).digest('hex').toUpperCase());
    // The result data: one MsgEthereumTxResponse with the receipt's logs.
    const data = fields(Buffer.from(resp.data, 'hex'));
    const any = fields(data[2][0]);
    assert.equal(str(any[1][0]), '/cosmos.evm.vm.v1.MsgEthereumTxResponse');
    const out = fields(any[2][0]);
    assert.equal(str(out[1][0]), m.rc.hash);
    assert.equal(out[5][0], BigInt(r.gasUsed));
    const logs = (out[2] || []).map(fields);
    assert.ok(r.logs.length > 0, 'the system contract logged nothing');
    assert.equal(logs.length, r.logs.length);
    logs.forEach((l, i) => {
      const want = r.logs[i];
      assert.equal(str(l[1][0]).toLowerCase(), want.address.toLowerCase());
      assert.deepEqual((l[2] || []).map(str), want.topics);
      assert.equal(hex(l[3] ? l[3][0] : []), want.data);
      assert.equal(l[8] ? l[8][0] : 0n, BigInt(want.logIndex));
    });
    // The events name the Ethereum hash and the sender.
    const attr = (type, key) => resp.events.filter((e) => e.type === type).flatMap((e) => e.attributes.filter((a) => a.key === key).map((a) => a.value));
    assert.ok(attr('ethereum_tx', 'ethereumTxHash').includes(m.rc.hash));
    assert.ok(attr('ethereum_tx', 'txGasUsed').includes(BigInt(r.gasUsed).toString()));
    assert.ok(attr('message', 'sender').includes(bech32('chain', m.tx.from)));
  }

  for (const name of ['delegation', 'vote']) {
    it(`GetTx finds the ${name} by either hash, as its receipt says`, async () => {
      const m = made[name];
      const byEth = await svc.GetTx(txs.GetTxRequest.fromPartial({ hash: m.rc.hash }));
      agrees(m, byEth.tx, byEth.txResponse);
      const byComet = await svc.GetTx(txs.GetTxRequest.fromPartial({ hash: byEth.txResponse.txhash }));
      assert.deepEqual(txs.GetTxResponse.toJSON(byComet), txs.GetTxResponse.toJSON(byEth));
      // Its timestamp is its block's time (RFC 3339 seconds, as the SDK
      // writes it).
      const block = await rpc('eth_getBlockByNumber', [m.receipt.blockNumber, false]);
      assert.equal(Date.parse(byEth.txResponse.timestamp) / 1000, Number(BigInt(block.timestamp)));
      // REST serves the same answer.
      const r = await rest(`/cosmos/tx/v1beta1/txs/${byEth.txResponse.txhash}`);
      assert.equal(r.status, 200);
      assert.equal(r.body.tx_response.height, byEth.txResponse.height.toString());
      assert.equal(r.body.tx_response.gas_used, BigInt(m.receipt.gasUsed).toString());
      assert.equal(r.body.tx.auth_info.tip, null);
    });
  }

  it('GetTxsEvent finds both by sender, newest first, and by height', async () => {
    const sender = bech32('chain', made.vote.tx.from);
    const got = await svc.GetTxsEvent(txs.GetTxsEventRequest.fromPartial({ query: `message.sender='${sender}'`, orderBy: txs.OrderBy.ORDER_BY_DESC, limit: 100n }));
    const hashes = got.txResponses.map((t) => t.events.find((e) => e.type === 'ethereum_tx').attributes.find((a) => a.key === 'ethereumTxHash').value);
    assert.equal(hashes[0], made.vote.rc.hash);
    assert.ok(hashes.indexOf(made.delegation.rc.hash) > 0, 'the delegation is not listed after the vote');
    assert.equal(got.total, BigInt(Number(BigInt(await rpc('eth_getTransactionCount', [made.vote.tx.from, 'latest'])))));
    for (const m of Object.values(made)) {
      const at = await svc.GetTxsEvent(txs.GetTxsEventRequest.fromPartial({ query: `tx.height=${BigInt(m.receipt.blockNumber)}` }));
      const i = at.txResponses.findIndex((t) => t.events.some((e) => e.attributes.some((a) => a.key === 'ethereumTxHash' && a.value === m.rc.hash)));
      assert.ok(i >= 0, `tx.height does not find ${m.rc.hash}`);
      agrees(m, at.txs[i], at.txResponses[i]);
    }
  });

  it('GetBlockWithTxs lists each in its block, at its receipt index, both ways', async () => {
    for (const m of Object.values(made)) {
      const height = BigInt(m.receipt.blockNumber);
      const eb = await rpc('eth_getBlockByNumber', [m.receipt.blockNumber, false]);
      const index = Number(BigInt(m.receipt.transactionIndex));
      const one = await svc.GetBlockWithTxs(txs.GetBlockWithTxsRequest.fromPartial({ height, pagination: { offset: BigInt(index), limit: 1n } }));
      assert.equal(one.pagination.total, BigInt(eb.transactions.length));
      assert.equal(hex(fields(one.txs[0].body.messages[0].value)[6][0]), m.raw);
      assert.equal('0x' + Buffer.from(one.blockId.hash).toString('hex'), eb.hash);
      // The header's time is the block's to the millisecond: its seconds
      // are the Ethereum timestamp.
      assert.equal(one.block.header.time.seconds, BigInt(eb.timestamp));
      assert.equal(one.block.header.time.nanos % 1_000_000, 0);
      const rev = await svc.GetBlockWithTxs(txs.GetBlockWithTxsRequest.fromPartial({ height, pagination: { reverse: true } }));
      assert.equal(rev.txs.length, eb.transactions.length);
      const back = rev.txs[eb.transactions.length - 1 - index];
      assert.equal(hex(fields(back.body.messages[0].value)[6][0]), m.raw);
    }
  });
});
