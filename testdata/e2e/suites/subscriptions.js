// Push notifications over WebSocket: newHeads and logs subscriptions through
// ethers' WebSocketProvider (on the HTTP port's upgrade) and a raw client on
// the WebSocket-only port.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ethers } from 'ethers';
import WebSocket from 'ws';
import { env, pump, nextEvent, ACCOUNTS } from '../lib/env.js';

describe('subscriptions (WebSocket)', () => {
  let ws, token, w;

  before(async () => {
    ws = new ethers.WebSocketProvider(env.node.ws, { chainId: 8118, name: 'chaind-dev' }, { staticNetwork: true });
    w = env.wallet(ACCOUNTS.subscriptions);
    const { Token } = env.artifacts;
    const t = await new ethers.ContractFactory(Token.abi, Token.bytecode, w).deploy('Sub', 'SUB', 10n ** 24n);
    await t.waitForDeployment();
    token = t;
  });

  after(async () => {
    await ws?.destroy();
  });

  it('ethers: block events follow new heads', async () => {
    const start = await env.provider.getBlockNumber();
    const got = nextEvent((cb) => ws.once('block', cb), 'a block event');
    const stop = pump(ACCOUNTS.subscriptions);
    let n;
    try {
      n = await got;
    } finally {
      await stop();
    }
    assert.ok(n > start, `block ${n} not after ${start}`);
    const b = await ws.getBlock(n);
    assert.equal(b.number, n);
    assert.equal((await env.provider.getBlock(n)).hash, b.hash);
  });

  it('ethers: contract events arrive through a logs subscription', async () => {
    const to = ethers.Wallet.createRandom().address;
    const c = token.connect(ws);
    const got = nextEvent((cb) => c.on('Transfer', (from, dest, value, ev) => cb({ from, dest, value, ev })), 'a Transfer event');
    // Keep sending the same transfer until the subscription delivers one.
    const sent = [];
    let running = true;
    const loop = (async () => {
      while (running) {
        const tx = await token.transfer(to, 777n);
        sent.push(tx.hash);
        await tx.wait();
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    let e;
    try {
      e = await got;
    } finally {
      running = false;
      await loop;
      await c.removeAllListeners();
    }
    assert.equal(e.from, w.address);
    assert.equal(e.dest, to);
    assert.equal(e.value, 777n);
    assert.ok(sent.includes(e.ev.log.transactionHash), 'event from a transaction we did not send');
    assert.equal(e.ev.log.address, await token.getAddress());
    const rc = await env.provider.getTransactionReceipt(e.ev.log.transactionHash);
    assert.equal(rc.blockHash, e.ev.log.blockHash);
  });

  it('raw: newHeads and logs on the WebSocket-only port, then unsubscribe', async () => {
    const sock = new WebSocket(env.node.wsOnly);
    await new Promise((res, rej) => {
      sock.once('open', res);
      sock.once('error', rej);
    });
    const pending = new Map();
    const notes = [];
    let waiter = null;
    sock.on('message', (data) => {
      const m = JSON.parse(String(data));
      if (m.id !== undefined && pending.has(m.id)) {
        pending.get(m.id)(m);
        pending.delete(m.id);
      } else if (m.method === 'eth_subscription') {
        notes.push(m.params);
        waiter?.();
      }
    });
    let id = 0;
    const call = (method, params) =>
      new Promise((res) => {
        const i = ++id;
        pending.set(i, res);
        sock.send(JSON.stringify({ jsonrpc: '2.0', id: i, method, params }));
      });
    const until = (pred, msg) =>
      nextEvent((cb) => {
        const check = () => {
          const v = notes.find(pred);
          if (v) {
            waiter = null;
            cb(v);
          }
        };
        waiter = check;
        check();
      }, msg);

    try {
      const heads = await call('eth_subscribe', ['newHeads']);
      assert.match(heads.result, /^0x[0-9a-f]+$/);
      const logs = await call('eth_subscribe', ['logs', { address: await token.getAddress(), topics: [ethers.id('Transfer(address,address,uint256)')] }]);
      assert.match(logs.result, /^0x[0-9a-f]+$/);
      assert.notEqual(logs.result, heads.result);

      // The subscriptions are live once their ids came back.
      const to = ethers.Wallet.createRandom().address;
      const rc = await (await token.transfer(to, 42n)).wait();

      const head = await until((p) => p.subscription === heads.result && BigInt(p.result.number) === BigInt(rc.blockNumber), 'the newHeads notification');
      assert.equal(head.result.hash, rc.blockHash);
      const blk = await env.provider.send('eth_getBlockByNumber', [head.result.number, false]);
      for (const f of ['parentHash', 'stateRoot', 'receiptsRoot', 'logsBloom', 'gasUsed', 'baseFeePerGas', 'timestamp']) {
        assert.equal(head.result[f], blk[f], `newHeads ${f}`);
      }

      const log = await until((p) => p.subscription === logs.result, 'the logs notification');
      assert.equal(log.result.transactionHash, rc.hash);
      assert.equal(log.result.topics[2], ethers.zeroPadValue(to.toLowerCase(), 32));
      assert.equal(BigInt(log.result.data), 42n);
      assert.equal(log.result.removed, false);

      assert.equal((await call('eth_unsubscribe', [heads.result])).result, true);
      assert.equal((await call('eth_unsubscribe', [heads.result])).result, false);
      assert.equal((await call('eth_unsubscribe', [logs.result])).result, true);
      const bad = await call('eth_subscribe', ['noSuchKind']);
      assert.ok(bad.error, 'unknown subscription kind accepted');
    } finally {
      sock.close();
    }
  });

  it('refuses subscriptions over plain HTTP', async () => {
    await assert.rejects(env.provider.send('eth_subscribe', ['newHeads']), (e) => {
      assert.match(e.message, /notifications not supported/);
      return true;
    });
  });
});
