// Runs this Hardhat project unchanged against a throwaway chaind --dev
// node: `npx hardhat test --network chaind`, its exit code this script's.
import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildChaind, startNode } from '../e2e/lib/node.js';

const here = dirname(fileURLToPath(import.meta.url));
const { bin, cleanup } = await buildChaind();
let node;
let code = 1;
try {
  node = await startNode(bin);
  code = await new Promise((res, rej) => {
    const p = spawn('npx', ['hardhat', 'test', '--network', 'chaind'], {
      cwd: here,
      stdio: 'inherit',
      env: { ...process.env, CHAIND_URL: node.http, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true' },
    });
    p.on('error', rej);
    p.on('exit', (c, sig) => res(c ?? (sig ? 1 : 0)));
  });
} finally {
  if (node) await node.stop();
  cleanup();
}
process.exit(code);
