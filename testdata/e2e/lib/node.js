// Builds chaind once and runs a throwaway --dev node for the suite: the
// binary goes to a temporary directory, the node picks free ports and says
// which in its "listening" log lines, and it is killed when the suite ends
// (or when this process dies for any reason).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/**
 * Builds ./cmd/chaind into a fresh temporary directory. It runs in the
 * background so the caller can compile the contracts meanwhile; resolves to
 * { bin, cleanup }. CHAIND_BIN names a prebuilt binary instead.
 */
export function buildChaind() {
  if (process.env.CHAIND_BIN) return Promise.resolve({ bin: process.env.CHAIND_BIN, cleanup() {} });
  const dir = mkdtempSync(join(tmpdir(), 'chaind-e2e-'));
  const bin = join(dir, 'chaind');
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  return new Promise((res, rej) => {
    const p = spawn('go', ['build', '-o', bin, './cmd/chaind'], { cwd: repoRoot, stdio: ['ignore', 'inherit', 'inherit'] });
    p.on('error', (e) => { cleanup(); rej(new Error(`go build: ${e.message}`)); });
    p.on('exit', (code) => {
      if (code === 0) res({ bin, cleanup });
      else { cleanup(); rej(new Error(`go build ./cmd/chaind exited with ${code}`)); }
    });
  });
}

const listenRe = /msg=listening kind=(\w+) addr=(\S+)/;

/**
 * Starts `chaind --dev --block-time 0` with every port picked free and
 * resolves once the endpoints are listening: { http, ws, wsOnly, explorer,
 * rest, grpc, stop(), output() }. http is the HTTP endpoint (it also
 * upgrades to WebSocket), wsOnly the WebSocket-only port, explorer the block
 * explorer's page and API, rest the Cosmos REST base URL and grpc the gRPC
 * host:port.
 */
export function startNode(bin, { timeoutMs = 60_000 } = {}) {
  const args = ['--dev', '--block-time', '0', '--http.port', '0', '--ws.port', '0', '--explorer.port', '0', '--rest.port', '0', '--grpc.port', '0', '--cometrpc.port', '0'];
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);

  let log = '';
  const addrs = {};
  let exited = null;
  const exitPromise = new Promise((res) => child.on('exit', (code, sig) => { exited = { code, sig }; res(exited); }));

  const ready = new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`chaind did not start within ${timeoutMs} ms; output:\n${log}`)), timeoutMs);
    const onData = (chunk) => {
      log += chunk;
      for (const line of String(chunk).split('\n')) {
        const m = listenRe.exec(line);
        if (m) addrs[m[1]] = m[2];
      }
      if (addrs.http && addrs.ws && addrs.explorer && addrs.rest && addrs.grpc && addrs.cometrpc) {
        clearTimeout(timer);
        res();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    exitPromise.then((e) => {
      clearTimeout(timer);
      rej(new Error(`chaind exited early (code ${e.code}, signal ${e.sig}); output:\n${log}`));
    });
  });

  return ready.then(() => ({
    http: `http://${addrs.http}`,
    ws: `ws://${addrs.http}`,
    wsOnly: `ws://${addrs.ws}`,
    explorer: `http://${addrs.explorer}`,
    rest: `http://${addrs.rest}`,
    grpc: addrs.grpc,
    cometrpc: `http://${addrs.cometrpc}`,
    output: () => log,
    async stop() {
      process.off('exit', killOnExit);
      if (exited) return exited;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
      const e = await exitPromise;
      clearTimeout(t);
      return e;
    },
  }));
}
