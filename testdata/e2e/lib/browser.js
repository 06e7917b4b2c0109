// A dashboard page in Debian's chromium (driven by playwright-core), served
// from a port of its own so every call it makes to the node is a
// cross-origin one, with its CORS preflight. Its only script is
// lib/grpcweb-client.js, which frames bytes for gRPC-Web over fetch.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync, existsSync } from 'node:fs';
import { chromium } from 'playwright-core';

function chromiumPath() {
  for (const p of [process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser']) {
    if (p && existsSync(p)) return p;
  }
  throw new Error('chromium not found: install Debian\'s chromium (.ci/run does) or set CHROMIUM');
}

function serveDashboard() {
  const client = readFileSync(new URL('./grpcweb-client.js', import.meta.url));
  const page = '<!doctype html><meta charset="utf-8"><title>dashboard</title>'
    + '<script type="module">import { call } from "./grpcweb-client.js"; window.grpcWeb = call; document.title = "ready";</script>';
  const srv = createServer((req, res) => {
    if (req.url === '/grpcweb-client.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(client);
    } else {
      res.writeHead(200, { 'content-type': 'text/html' }).end(page);
    }
  });
  return new Promise((res) => srv.listen(0, '127.0.0.1', () => res(srv)));
}

/**
 * Opens the dashboard against the gRPC port at grpcBase (http://host:port):
 * { raw(service, method, requestB64, opts), call(service, method, Req,
 * Resp, fields, opts), rpc(opts), problems, close() }. raw is the page's
 * answer as it saw it; call encodes the request with a cosmjs-types codec,
 * insists on a 200, a trailer with grpc-status 0, one message, a readable
 * height header and the content type asked for, and decodes the answer:
 * { msg, height }. rpc is the request interface cosmjs-types' query
 * clients call, over the page. problems collects the page's console errors.
 */
export async function openDashboard(grpcBase) {
  const dashboard = await serveDashboard();
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', '--disable-gpu'] });
  const problems = [];
  try {
    const page = await browser.newPage();
    page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    await page.goto(`http://127.0.0.1:${dashboard.address().port}/`);
    await page.waitForFunction(() => document.title === 'ready');
    const raw = (service, method, requestB64, opts = {}) =>
      page.evaluate(([base, s, m, r, o]) => window.grpcWeb(base, s, m, r, o), [grpcBase, service, method, requestB64, opts]);
    const frame = async (service, method, bytes, opts) => {
      const got = await raw(service, method, Buffer.from(bytes).toString('base64'), opts);
      assert.equal(got.httpStatus, 200, `${method}: HTTP ${got.httpStatus}`);
      assert.ok(got.trailers, `${method}: no trailer frame`);
      assert.equal(got.trailers['grpc-status'], '0', `${method}: ${got.trailers['grpc-status']} ${got.trailers['grpc-message']}`);
      assert.equal(got.messages.length, 1);
      assert.ok(got.height && /^[0-9]+$/.test(got.height), `${method}: height header ${got.height} not readable by the page`);
      assert.equal(got.contentType, opts.text ? 'application/grpc-web-text+proto' : 'application/grpc-web+proto');
      return { bytes: Buffer.from(got.messages[0], 'base64'), height: BigInt(got.height) };
    };
    return {
      raw,
      problems,
      async call(service, method, Req, Resp, fields, opts = {}) {
        const { bytes, height } = await frame(service, method, Req.encode(Req.fromPartial(fields)).finish(), opts);
        return { msg: Resp.decode(bytes), height };
      },
      rpc: (opts = {}) => ({ request: async (service, method, data) => new Uint8Array((await frame(service, method, data, opts)).bytes) }),
      async close() {
        await browser.close();
        await new Promise((res) => dashboard.close(res));
      },
    };
  } catch (e) {
    await browser.close();
    await new Promise((res) => dashboard.close(res));
    throw e;
  }
}
