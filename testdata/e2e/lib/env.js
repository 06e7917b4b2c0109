// The suite's shared world: one dev node, the compiled contracts, ethers and
// viem clients, and the dev keys derived client-side from the mnemonic (so a
// wrong derivation on the node shows up as a mismatch, not as silence).
import { ethers } from 'ethers';
import { createPublicClient, createWalletClient, defineChain, http, webSocket } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { buildChaind, startNode } from './node.js';
import { compile } from './compile.js';

export const MNEMONIC = 'test test test test test test test test test test test junk';
export const CHAIN_ID = 8118;
export const DEV_BALANCE = ethers.parseEther('10000');

/** Dev wallet i (m/44'/60'/0'/0/i), not connected. */
export function devWallet(i) {
  return ethers.HDNodeWallet.fromPhrase(MNEMONIC, undefined, `m/44'/60'/0'/0/${i}`);
}

// Which dev account each suite spends from, so suites never race on nonces
// and balance checks stay exact.
export const ACCOUNTS = {
  nodeHeld: 0,
  legacy: 1,
  accessList: 2,
  dynamic: 3,
  contracts: 4,
  subscriptions: 5,
  filters: 6,
  viem: 7,
  // The cosmos suite delegates and deposits on a proposal whose refund
  // lands later, so it must not share an account with a suite that counts
  // balance changes; it runs after the viem suite is over.
  cosmos: 7,
  // The redelegation suite moves part of the cosmos suite's delegation to
  // the validator the staking suite made, after both are over.
  redelegation: 7,
  // The explorer and staking suites run one after the other (suites are
  // imported in sequence) and neither asserts an absolute balance, so they
  // share the last spendable account.
  explorer: 8,
  staking: 8,
  // The browser's gRPC-Web suite delegates and votes after those two;
  // it compares balances with JSON-RPC at the same height, never
  // across suites.
  grpcweb: 8,
  // The tx service suite delegates and votes after the gRPC-Web suite,
  // and asserts no balance.
  txservice: 8,
  // The four-client suite delegates and votes after those, and compares
  // every balance with JSON-RPC at the height it was read at.
  clients: 8,
  untouched: 9,
};

export const env = {};

export async function setup() {
  const building = buildChaind();
  env.artifacts = compile(); // CPU-bound; runs while go build does
  const built = await building;
  env.cleanup = built.cleanup;
  env.node = await startNode(built.bin);

  env.provider = new ethers.JsonRpcProvider(env.node.http, { chainId: CHAIN_ID, name: 'chaind-dev' }, {
    staticNetwork: true,
    pollingInterval: 50,
    cacheTimeout: -1,
  });
  env.wallet = (i) => devWallet(i).connect(env.provider);

  env.chain = defineChain({
    id: CHAIN_ID,
    name: 'chaind dev',
    nativeCurrency: { name: 'CHAIN', symbol: 'CHAIN', decimals: 18 },
    rpcUrls: { default: { http: [env.node.http], webSocket: [env.node.ws] } },
  });
  // cacheTime 0: viem keeps getBlockNumber's answer for cacheTime (the
  // polling interval by default), so a read right after mining blocks on
  // a fast machine saw the old number (CI: 213 where 3 mined blocks made 216).
  env.publicClient = createPublicClient({ chain: env.chain, transport: http(env.node.http), pollingInterval: 50, cacheTime: 0 });
  env.walletClient = (i) =>
    createWalletClient({
      account: privateKeyToAccount(devWallet(i).privateKey),
      chain: env.chain,
      transport: http(env.node.http),
      pollingInterval: 50,
    });
  env.wsClient = (url = env.node.ws) => createPublicClient({ chain: env.chain, transport: webSocket(url, { reconnect: false }), pollingInterval: 50 });
  return env;
}

export async function teardown() {
  env.provider?.destroy();
  if (env.node) {
    const e = await env.node.stop();
    // A clean exit on SIGTERM is part of what we test.
    if (e.code !== 0) {
      throw new Error(`chaind exited with code ${e.code} signal ${e.sig}; output:\n${env.node.output()}`);
    }
  }
  env.cleanup?.();
  // What still holds the event loop once the node is gone. The runner is
  // started with --test-force-exit, so a suite that leaves a socket or a
  // timer open cannot hang the run; this line names the leak.
  const left = process.getActiveResourcesInfo();
  if (left.length) console.error(`e2e: still open after teardown: ${left.join(', ')}`);
}

/** Raw JSON-RPC over HTTP, returning the whole response object (result or error). */
export async function rpc(method, params = [], url = env.node.http) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return res.json();
}

/** Waits until pred() is truthy, polling; fails with msg after timeoutMs. */
export async function waitFor(pred, msg, timeoutMs = 15_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await pred();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${msg}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Resolves with the first value a callback-registering fn delivers, or rejects after timeoutMs. */
export function nextEvent(register, msg, timeoutMs = 15_000) {
  return new Promise((res, rej) => {
    const t = setTimeout(() => rej(new Error(`timed out waiting for ${msg}`)), timeoutMs);
    register((v) => {
      clearTimeout(t);
      res(v);
    });
  });
}

/**
 * Sends 1-wei transfers from dev account i until stop() is called. A
 * --block-time 0 node seals only when something is pending, and a client
 * cannot tell exactly when its subscription is live on the server, so tests
 * that wait for a pushed event keep the chain moving until it arrives.
 * stop() resolves to the hashes sent.
 */
export function pump(i, intervalMs = 200) {
  const w = env.wallet(i);
  const sink = '0x000000000000000000000000000000000000dEaD';
  const hashes = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const tx = await w.sendTransaction({ to: sink, value: 1n });
      hashes.push(tx.hash);
      await tx.wait();
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return async () => {
    running = false;
    await loop;
    return hashes;
  };
}
