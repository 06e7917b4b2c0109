// The CometBFT RPC as cosmjs reads it: @cosmjs/stargate's StargateClient
// connects and reads the chain id, height, blocks and balances, and a
// QueryClient with the bank, staking, distribution and gov extensions
// reads through abci_query; every read must agree with JSON-RPC (and the
// staking reads with REST). Transactions sent with ethers are found by
// searchTx and getTx as Cosmos EVM shows them (a MsgEthereumTx in a TxRaw,
// with its ethereum_tx events), and a WebSocket subscription receives new
// blocks. Accounts read by getAccount decode with accountFromAny.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { StargateClient, QueryClient, setupBankExtension, setupStakingExtension, setupDistributionExtension, setupGovExtension } from '@cosmjs/stargate';
import { connectComet, Comet38Client, WebsocketClient } from '@cosmjs/tendermint-rpc';
import { toHex } from '@cosmjs/encoding';
import { TxRaw, TxBody } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { createHash } from 'node:crypto';
import { ethers } from 'ethers';
import { bech32 } from '../lib/bech32.js';
import { env, rpc as rpcRaw, devWallet, ACCOUNTS, CHAIN_ID, pump } from '../lib/env.js';

const rpc = async (m, p) => (await rpcRaw(m, p)).result;
import { rest } from '../lib/cosmos.js';
import { commitHash, dateParts } from '../lib/agree.js';

describe('CometBFT RPC (cosmjs StargateClient and QueryClient)', () => {
  let client;
  let q;
  let comet;
  before(async () => {
    // Queries read a block's state, and a chain at genesis has decided
    // none (cosmjs refuses height 0): run alone, make one block.
    if (BigInt(await rpc('eth_blockNumber')) === 0n) {
      const w = env.wallet(ACCOUNTS.cosmos);
      await (await w.sendTransaction({ to: w.address, value: 0 })).wait();
    }
    client = await StargateClient.connect(env.node.cometrpc);
    comet = await connectComet(env.node.cometrpc);
    q = QueryClient.withExtensions(comet, setupBankExtension, setupStakingExtension, setupDistributionExtension, setupGovExtension);
  });
  after(() => { client.disconnect(); comet.disconnect(); });

  it('chain id and height agree with JSON-RPC', async () => {
    assert.equal(await client.getChainId(), String(CHAIN_ID));
    const h = await client.getHeight();
    const eth = Number(BigInt(await rpc('eth_blockNumber')));
    assert.ok(h >= 1 && Math.abs(h - eth) <= 1, `height ${h} vs eth_blockNumber ${eth}`);
  });

  it('blocks agree with eth_getBlockByNumber', async () => {
    const b = await client.getBlock(1);
    const eb = await rpc('eth_getBlockByNumber', ['0x1', false]);
    assert.equal(b.header.height, 1);
    assert.equal(b.id, eb.hash.slice(2).toUpperCase());
    // The header's time carries the block's milliseconds; its seconds are
    // the Ethereum timestamp.
    assert.equal(Math.floor(new Date(b.header.time).getTime() / 1000), Number(BigInt(eb.timestamp)));
    assert.equal(b.txs.length, eb.transactions.length);
  });

  it('balances agree with eth_getBalance', async () => {
    const w = devWallet(ACCOUNTS.untouched);
    const addr = bech32('chain', w.address);
    const bal = await client.getBalance(addr, 'achain');
    assert.equal(bal.amount, BigInt(await rpc('eth_getBalance', [w.address, 'latest'])).toString());
    assert.deepEqual(await client.getAllBalances(addr), [bal]);
  });

  it('staking, distribution and gov read through abci_query agree with REST', async () => {
    const vs = await q.staking.validators('BOND_STATUS_BONDED');
    const r = await rest('/cosmos/staking/v1beta1/validators?status=BOND_STATUS_BONDED');
    assert.deepEqual(vs.validators.map((v) => [v.operatorAddress, v.tokens]), r.body.validators.map((v) => [v.operator_address, v.tokens]));
    const val = vs.validators[0].operatorAddress;
    const dels = await q.staking.validatorDelegations(val);
    const rd = await rest(`/cosmos/staking/v1beta1/validators/${val}/delegations`);
    assert.deepEqual(dels.delegationResponses.map((d) => [d.delegation.delegatorAddress, d.balance.amount]),
      rd.body.delegation_responses.map((d) => [d.delegation.delegator_address, d.balance.amount]));
    const out = await q.distribution.validatorOutstandingRewards(val);
    const ro = await rest(`/cosmos/distribution/v1beta1/validators/${val}/outstanding_rewards`);
    assert.equal(out.rewards.rewards.length, ro.body.rewards.rewards.length);
    const props = await q.gov.proposals(0, '', '');
    const rp = await rest('/cosmos/gov/v1beta1/proposals');
    assert.deepEqual(props.proposals.map((p) => p.proposalId.toString()), rp.body.proposals.map((p) => p.proposal_id));
  });

  it('blocks carry last_commit with the signatures the chain recorded', async () => {
    // Block 1 carries no commit (nothing was decided before it).
    if (await client.getHeight() < 2) {
      const w = env.wallet(ACCOUNTS.cosmos);
      await (await w.sendTransaction({ to: w.address, value: 0 })).wait();
    }
    const h = await client.getHeight();
    const { block } = await comet.block(h);
    const parent = await rpc('eth_getBlockByNumber', ['0x' + (h - 1).toString(16), false]);
    assert.ok(block.lastCommit, 'no last_commit');
    assert.equal(block.lastCommit.height, h - 1);
    assert.equal(toHex(block.lastCommit.blockId.hash), parent.hash.slice(2));
    const set = await comet.validatorsAll(h - 1);
    assert.equal(block.lastCommit.signatures.length, set.validators.length);
    const signed = block.lastCommit.signatures.filter((s) => s.blockIdFlag === 2);
    assert.ok(signed.length > 0, 'no signature recorded');
    for (const s of signed) {
      assert.ok(set.validators.some((v) => toHex(v.address) === toHex(s.validatorAddress)), 'a signer outside the set');
      assert.equal(s.signature.length, 64); // R || S, as CometBFT signs
    }
    // The header's last_commit_hash is CometBFT's hash of that commit.
    const sigs = block.lastCommit.signatures.map((s) => ({ flag: s.blockIdFlag, address: s.validatorAddress ?? new Uint8Array(),
      ...dateParts(s.timestamp), signature: s.signature ?? new Uint8Array() }));
    assert.equal(toHex(block.header.lastCommitHash), commitHash(sigs));
    assert.deepEqual(block.evidence, []);
  });

  it('the head\'s commit is the certificate the node decided it with', async () => {
    const call = async (params) => (await (await fetch(env.node.cometrpc, { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'commit', params }) })).json()).result;
    const head = await call({});
    const h = Number(head.signed_header.header.height);
    const eb = await rpc('eth_getBlockByNumber', ['0x' + h.toString(16), false]);
    // No block carries it yet, so it is not canonical (CometBFT's seen
    // commit), but it holds the head's signatures, not an empty commit.
    assert.equal(head.canonical, false);
    assert.equal(head.signed_header.commit.height, String(h));
    assert.equal(head.signed_header.commit.block_id.hash, eb.hash.slice(2).toUpperCase());
    const signed = head.signed_header.commit.signatures.filter((s) => s.block_id_flag === 2);
    assert.ok(signed.length >= 1, `the head's commit has no signature: ${JSON.stringify(head.signed_header.commit)}`);
    for (const s of signed) assert.equal(Buffer.from(s.signature, 'base64').length, 64);
    // The parent's is canonical: the one the head carries as last_commit.
    const parent = await call({ height: String(h - 1) });
    assert.equal(parent.canonical, true);
    const { block } = await comet.block(h);
    assert.equal(parent.signed_header.commit.block_id.hash, toHex(block.lastCommit.blockId.hash).toUpperCase());
    assert.equal(parent.signed_header.commit.signatures.length, block.lastCommit.signatures.length);
  });

  it('accounts are BaseAccounts that accountFromAny decodes, with stable, distinct numbers', async () => {
    const w = env.wallet(ACCOUNTS.cosmos);
    const addr = bech32('chain', w.address);
    const acct = await client.getAccount(addr);
    assert.ok(acct, 'no account');
    assert.equal(acct.address, addr);
    assert.equal(acct.sequence, Number(BigInt(await rpc('eth_getTransactionCount', [w.address, 'latest']))));
    const r = await rest(`/cosmos/auth/v1beta1/accounts/${addr}`);
    assert.equal(r.body.account['@type'], '/cosmos.auth.v1beta1.BaseAccount');
    assert.equal(String(acct.accountNumber), r.body.account.account_number);
    assert.ok(Number.isSafeInteger(acct.accountNumber));
    const other = await client.getAccount(bech32('chain', devWallet(ACCOUNTS.untouched).address));
    assert.notEqual(other.accountNumber, acct.accountNumber);
    assert.equal((await client.getAccount(addr)).accountNumber, acct.accountNumber);
  });

  it('validators and status name the dev validator', async () => {
    const st = await comet.status();
    assert.equal(st.nodeInfo.network, String(CHAIN_ID));
    const set = await comet.validatorsAll();
    assert.ok(set.validators.some((v) => toHex(v.address) === toHex(st.validatorInfo.address)));
  });

  it('searchTx and getTx find an ethers transfer as Cosmos EVM shows it', async () => {
    const w = env.wallet(ACCOUNTS.cosmos);
    const sent = await w.sendTransaction({ to: w.address, value: 1 });
    const rc = await sent.wait();
    const raw = ethers.Transaction.from(await w.provider.getTransaction(rc.hash)).serialized;
    const inBlock = await client.searchTx([{ key: 'tx.height', value: rc.blockNumber }]);
    const found = inBlock.find((t) => t.events.some((e) => e.type === 'ethereum_tx' &&
      e.attributes.some((a) => a.key === 'ethereumTxHash' && a.value === rc.hash)));
    assert.ok(found, `no transaction of block ${rc.blockNumber} names ${rc.hash}`);
    assert.equal(found.height, rc.blockNumber);
    assert.equal(found.code, 0);
    assert.equal(found.gasUsed, rc.gasUsed);
    // The CometBFT hash is sha256 of the TxRaw bytes, which hold the
    // Ethereum transaction as Cosmos EVM's MsgEthereumTx.
    assert.equal(found.hash, createHash('sha256').update(found.tx).digest('hex').toUpperCase());
    const body = TxBody.decode(TxRaw.decode(found.tx).bodyBytes);
    assert.equal(body.messages[0].typeUrl, '/cosmos.evm.vm.v1.MsgEthereumTx');
    assert.equal(body.extensionOptions[0].typeUrl, '/cosmos.evm.vm.v1.ExtensionOptionsEthereumTx');
    assert.ok(Buffer.from(body.messages[0].value).toString('hex').includes(raw.slice(2)), 'MsgEthereumTx does not carry the raw transaction');
    assert.equal(found.msgResponses[0].typeUrl, '/cosmos.evm.vm.v1.MsgEthereumTxResponse');

    const got = await client.getTx(found.hash);
    assert.equal(got.hash, found.hash);
    assert.equal(got.height, rc.blockNumber);
    const bySender = await client.searchTx([{ key: 'message.sender', value: bech32('chain', w.address) }]);
    assert.ok(bySender.some((t) => t.hash === found.hash), 'message.sender does not find it');
    const block = await client.getBlock(rc.blockNumber);
    assert.ok(block.txs.some((t) => createHash('sha256').update(t).digest('hex').toUpperCase() === found.hash), 'block data lacks it');
    const results = await comet.blockResults(rc.blockNumber);
    assert.equal(results.results.length, block.txs.length);
  });

  it('a WebSocket subscription receives new blocks', async () => {
    const ws = await Comet38Client.create(new WebsocketClient(env.node.cometrpc.replace(/^http/, 'ws')));
    const stop = pump(ACCOUNTS.cosmos);
    try {
      const ev = await new Promise((res, rej) => {
        const t = setTimeout(() => rej(new Error('no NewBlock event within 15 s')), 15_000);
        const sub = ws.subscribeNewBlock().subscribe({
          next: (b) => { clearTimeout(t); sub.unsubscribe(); res(b); },
          error: (e) => { clearTimeout(t); rej(e); },
          complete: () => {},
        });
      });
      const eb = await rpc('eth_getBlockByNumber', ['0x' + ev.header.height.toString(16), false]);
      assert.equal(toHex(ev.header.lastBlockId.hash).toUpperCase(), eb.parentHash.slice(2).toUpperCase());
    } finally {
      await stop();
      ws.disconnect();
    }
  });
});
