// Runs this Foundry project against a throwaway chaind --dev node, as a
// Foundry user would: `forge script --broadcast` deploys a Counter with
// `new Counter{salt: …}()` (through the predeployed CREATE2 deployer), and
// `forge test --fork-url` runs the tests in forge's EVM on chaind's state.
// Exit code 0 only if both pass and the deployment is on chaind.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildChaind, startNode } from '../e2e/lib/node.js';

const here = dirname(fileURLToPath(import.meta.url));
// The dev mnemonic's first account, which chaind --dev funds (as anvil).
const devKey = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const create2Deployer = '0x4e59b44847b379578588920ca78fbf26c0b4956c';

function forge(args) {
  console.log(`$ forge ${args.join(' ')}`);
  return new Promise((res, rej) => {
    const p = spawn('npx', ['--no-install', 'forge', ...args], { cwd: here, stdio: 'inherit' });
    p.on('error', rej);
    p.on('exit', (c, sig) => (c === 0 ? res() : rej(new Error(`forge ${args[0]} exited with ${c ?? sig}`))));
  });
}

async function rpc(url, method, params) {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const j = await r.json();
  if (j.error) throw new Error(`${method}: ${j.error.message}`);
  return j.result;
}

const started = Date.now();
// Compile while chaind builds.
const [built, compiled] = await Promise.allSettled([buildChaind(), forge(['build'])]);
const cleanup = built.status === 'fulfilled' ? built.value.cleanup : () => {};
let node;
let code = 1;
try {
  if (built.status === 'rejected') throw built.reason;
  if (compiled.status === 'rejected') throw compiled.reason;
  node = await startNode(built.value.bin);
  const url = node.http;
  await forge(['script', 'script/Deploy.s.sol:Deploy', '--rpc-url', url, '--broadcast', '--private-key', devKey]);
  // The broadcast went to chaind: a CREATE2 through the deployer, mined,
  // and the counter's code is there.
  const chainId = BigInt(await rpc(url, 'eth_chainId', []));
  const run = JSON.parse(readFileSync(join(here, 'broadcast', 'Deploy.s.sol', String(chainId), 'run-latest.json'), 'utf8'));
  const deploy = run.transactions.find((t) => t.transactionType === 'CREATE2');
  if (!deploy || deploy.transaction.to?.toLowerCase() !== create2Deployer) throw new Error('the script sent no CREATE2 through the deployer');
  if (!run.receipts.every((r) => r.status === '0x1')) throw new Error('a broadcast transaction failed');
  const code_ = await rpc(url, 'eth_getCode', [deploy.contractAddress, 'latest']);
  if (code_ === '0x') throw new Error(`no code at ${deploy.contractAddress} on chaind`);
  console.log(`deployed ${deploy.contractName} at ${deploy.contractAddress} through ${create2Deployer}`);
  await forge(['test', '--fork-url', url, '-vv']);
  code = 0;
  console.log(`foundry: passed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
} catch (e) {
  console.error(`foundry: FAILED — ${e.message}`);
  if (node) console.error(node.output().split('\n').slice(-30).join('\n'));
} finally {
  if (node) await node.stop();
  cleanup();
}
process.exit(code);
