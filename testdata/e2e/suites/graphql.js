// GraphQL (EIP-1767) on /graphql, read with the reference implementation
// of GraphQL, the `graphql` package: the node's introspection must rebuild
// its schema, every hive GraphQL query must validate against that schema,
// and the node's answers must agree with JSON-RPC.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { buildClientSchema, getIntrospectionQuery, parse, printSchema, validate } from 'graphql';
import { env } from '../lib/env.js';

const gqlURL = () => env.node.http.replace(/\/?$/, '/graphql');

async function gql(query, variables) {
  const r = await fetch(gqlURL(), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return { status: r.status, body: await r.json() };
}

async function clientSchema() {
  const { status, body } = await gql(getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true }));
  assert.equal(status, 200, JSON.stringify(body.errors));
  return buildClientSchema(body.data);
}

// The hive cases live beside the repository, not in it.
const hiveCases = path.resolve(path.dirname(fileURLToPath(import.meta.url)),
  '../../../../shared/vectors/hive-graphql/testcases');

describe('graphql', () => {
  it('rebuilds the schema from introspection (getIntrospectionQuery + buildClientSchema)', async () => {
    const schema = await clientSchema();
    const query = schema.getQueryType().getFields();
    for (const f of ['block', 'blocks', 'pending', 'transaction', 'logs', 'gasPrice', 'maxPriorityFeePerGas', 'syncing', 'chainID']) {
      assert.ok(query[f], `Query.${f}`);
    }
    assert.ok(schema.getMutationType().getFields().sendRawTransaction);
    const block = schema.getType('Block').getFields();
    for (const f of ['totalDifficulty', 'withdrawals', 'withdrawalsRoot', 'blobGasUsed', 'excessBlobGas', 'nextBaseFeePerGas']) {
      assert.ok(block[f], `Block.${f}`);
    }
    assert.equal(String(block.logs.args[0].type), 'BlockFilterCriteria!');
    assert.ok(schema.getType('Transaction').getFields().blobVersionedHashes);
    assert.match(printSchema(schema), /scalar Bytes32/);
  });

  it('validates every hive GraphQL query against the rebuilt schema', async (t) => {
    if (!existsSync(hiveCases)) {
      t.skip(`hive cases absent (${hiveCases})`);
      return;
    }
    const schema = await clientSchema();
    const files = readdirSync(hiveCases).filter((f) => f.endsWith('.json')).sort();
    assert.ok(files.length > 0);
    for (const f of files) {
      const { request } = JSON.parse(readFileSync(path.join(hiveCases, f), 'utf8'));
      const errors = validate(schema, parse(request));
      assert.deepEqual(errors.map((e) => e.message), [], f);
    }
  });

  it('answers like JSON-RPC for the head block and a dev account', async () => {
    const { status, body } = await gql(`query($a: Address!) { block { number hash gasLimit account(address: $a) { balance transactionCount } } chainID }`,
      { a: env.wallet(9).address });
    assert.equal(status, 200, JSON.stringify(body.errors));
    const b = body.data.block;
    const rpcBlock = await env.provider.send('eth_getBlockByHash', [b.hash, false]);
    assert.equal(b.number, rpcBlock.number);
    assert.equal(b.gasLimit, rpcBlock.gasLimit);
    assert.equal(b.account.balance, await env.provider.send('eth_getBalance', [env.wallet(9).address, b.number]));
    assert.equal(body.data.chainID, await env.provider.send('eth_chainId', []));
  });

  it('refuses a malformed query with 400 and a located error', async () => {
    const { status, body } = await gql('{ block { number ');
    assert.equal(status, 400);
    assert.ok(body.errors[0].locations[0].line >= 1);
  });

  it('serves the query page at /graphql/ui', async () => {
    const r = await fetch(gqlURL() + '/ui');
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type'), /text\/html/);
    assert.match(await r.text(), /chaind GraphQL/);
  });
});
