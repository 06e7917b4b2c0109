// The block explorer in a real browser: Debian's chromium driven by
// playwright-core. A transaction sent with ethers appears on the open home
// page without a reload; searching for it opens it, and from there its
// block and its sender's account. Every page is screenshotted into
// artifacts/ (E2E_ARTIFACTS overrides), and the page must log no console
// error. The home page's weight is checked; its first contentful paint is
// measured and reported (a timing, so never asserted).
//
// The proof-of-stake pages: a fresh account delegates to the dev
// validator, starts unbonding part of it, submits a proposal and votes;
// the validator page shows its stake, commission, status, uptime picture,
// the delegator and the blocks it proposed; the account page the
// delegation, the unbonding entry and rewards; the proposal page its tally
// and vote; the staking calls and events are decoded by name; a
// transaction still in the pool shows as pending. Every page is laid out
// at desktop and phone (390×844) sizes without sideways scrolling and with
// every table column on screen and uncut.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, existsSync } from 'node:fs';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ethers } from 'ethers';
import { chromium } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { env, ACCOUNTS } from '../lib/env.js';

const artifacts = process.env.E2E_ARTIFACTS || resolve(dirname(fileURLToPath(import.meta.url)), '..', 'artifacts');

function chromiumPath() {
  for (const p of [process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser']) {
    if (p && existsSync(p)) return p;
  }
  throw new Error('chromium not found: install Debian\'s chromium (.ci/run does) or set CHROMIUM');
}

describe('explorer in a browser', () => {
  let browser, page;
  const problems = [];

  before(async () => {
    mkdirSync(artifacts, { recursive: true });
    browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', '--disable-gpu'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  });

  after(async () => {
    await browser?.close();
  });

  const shot = (name) => page.screenshot({ path: join(artifacts, `explorer-${name}.png`), fullPage: true });

  it('follows a transaction from the live home page to its block and sender', async (t) => {
    await page.goto(env.node.explorer + '/', { waitUntil: 'load' });
    await page.waitForSelector('#latest-blocks tbody tr');
    await page.waitForSelector('#live.on'); // subscribed to newHeads

    const perf = await page.evaluate(() => {
      const fcp = performance.getEntriesByName('first-contentful-paint')[0];
      const nav = performance.getEntriesByType('navigation')[0];
      const assets = performance.getEntriesByType('resource').filter((r) => r.initiatorType !== 'fetch');
      return {
        fcp: fcp ? fcp.startTime : null,
        bytes: nav.decodedBodySize + assets.reduce((n, r) => n + r.decodedBodySize, 0),
        assets: assets.map((r) => r.name),
      };
    });
    t.diagnostic(`home: first contentful paint ${perf.fcp?.toFixed(0)} ms, ${perf.bytes} bytes (${perf.assets.length} assets)`);
    assert.ok(perf.fcp !== null, 'no first contentful paint recorded');
    assert.ok(perf.bytes > 0 && perf.bytes <= 100 * 1024, `home page weighs ${perf.bytes} bytes, over 100 KB`);
    await shot('home');

    // A transaction with an amount that needs all 18 decimals.
    await page.evaluate(() => { window.__sameDocument = true; });
    const w = env.wallet(ACCOUNTS.explorer);
    const value = 1234567890123456789n;
    const tx = await w.sendTransaction({ to: ethers.Wallet.createRandom().address, value });
    const rc = await tx.wait(1, 30_000);
    const row = page.locator(`#latest-txs tr[data-hash="${tx.hash}"]`);
    await row.waitFor({ timeout: 15_000 });
    assert.equal(await page.evaluate(() => window.__sameDocument), true, 'the page reloaded');
    const title = await row.locator('.amount').getAttribute('title');
    assert.ok(title.startsWith('1.234567890123456789 CHAIN'), `amount title ${title}`);
    await shot('home-live');

    // Search for it.
    await page.fill('#q', tx.hash);
    await page.press('#q', 'Enter');
    await page.waitForURL(`**/tx/${tx.hash}`);
    await page.waitForSelector('#tx');
    const txText = await page.textContent('#tx');
    assert.ok(txText.includes(tx.hash) && txText.includes('success'), txText);
    assert.ok(txText.includes(w.address), `sender not shown as EIP-55 ${w.address}`);
    await shot('transaction');

    // Its block.
    await page.click(`#tx a[href="/block/${rc.blockNumber}"]`);
    await page.waitForURL(`**/block/${rc.blockNumber}`);
    await page.waitForSelector(`#block-txs tr[data-hash="${tx.hash}"]`);
    await shot('block');

    // Its sender's account.
    await page.click(`#block-txs tr[data-hash="${tx.hash}"] a[href="/address/${w.address}"]`);
    await page.waitForURL(`**/address/${w.address}`);
    await page.waitForSelector(`#account-txs tr[data-hash="${tx.hash}"]`);
    const accText = await page.textContent('#account');
    assert.ok(accText.includes('Balance') && accText.includes('CHAIN'), accText);
    await shot('account');

    // The other pages, then the home page dark and on a phone.
    for (const [path, sel, name] of [['/validators', 'table a', 'validators'], ['/cycles', 'table a', 'cycles'], [`/cycle/${Math.floor(rc.blockNumber / 10)}`, 'h1', 'cycle']]) {
      await page.goto(env.node.explorer + path);
      await page.waitForSelector(sel);
      await shot(name);
    }
    await page.goto(env.node.explorer + '/validators');
    await page.click('table a[href^="/validator/"]');
    await page.waitForSelector('dl.kv');
    await shot('validator');

    await page.goto(env.node.explorer + '/');
    await page.waitForSelector('#latest-txs tbody tr');
    await page.click('#theme');
    assert.ok(['dark', 'light'].includes(await page.evaluate(() => document.documentElement.dataset.theme)));
    await shot('home-theme');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.waitForSelector('#latest-txs tbody tr');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the phone layout scrolls sideways by ${overflow} px`);
    await shot('home-phone');

    assert.deepEqual(problems, [], problems.join('\n'));

    // Unknown things say so. The browser logs the API's 404 answer as a
    // failed resource: the one console error allowed here.
    await page.goto(env.node.explorer + '/tx/0x' + 'ab'.repeat(32));
    await page.waitForSelector('text=Not found');
    const other = problems.filter((p) => !/status of 404 \(Not Found\)/.test(p));
    assert.deepEqual(other, [], other.join('\n'));
  });

  it('shows the proof-of-stake chain: validators, an account\'s stake, proposals, signers and decoded calls', { timeout: 120_000 }, async () => {
    problems.length = 0;
    const abi = (name) => JSON.parse(readFileSync(new URL(`../../../internal/staking/abi/${name}.abi.json`, import.meta.url)));
    const funder = env.wallet(ACCOUNTS.explorer);
    const me = ethers.Wallet.createRandom().connect(env.provider);
    await (await funder.sendTransaction({ to: me.address, value: ethers.parseEther('50') })).wait();
    const staking = new ethers.Contract('0x0000000000000000000000000000000000000800', abi('Staking'), me);
    const gov = new ethers.Contract('0x0000000000000000000000000000000000000805', abi('Governance'), me);
    const list = await (await fetch(env.node.explorer + '/api/validators')).json();
    assert.equal(list.staking, true);
    const val = list.validators[0];
    assert.equal(val.status, 'active');

    const delegated = await (await staking.delegate(val.operator, { value: ethers.parseEther('20') })).wait();
    await (await staking.undelegate(val.operator, ethers.parseEther('3'))).wait();
    const prc = await (await gov.submitProposal(1, 'explorer text', 'shown on the proposal page', '', '', { value: ethers.parseEther('10') })).wait();
    const proposalId = gov.interface.parseLog(prc.logs[0]).args.proposalId;
    await (await gov.vote(proposalId, 1)).wait();

    // A transaction behind a nonce gap waits in the pool.
    const nonce = await env.provider.getTransactionCount(me.address);
    const gapped = await me.sendTransaction({ to: me.address, value: 1n, nonce: nonce + 1 });

    const sizes = [['desktop', { width: 1280, height: 900 }], ['phone', { width: 390, height: 844 }]];
    const pages = [
      ['validators', '/validators', `#validators tr[data-operator="${val.operator}"]`],
      ['validator', `/validator/${val.operator}`, '#uptime .uptime i'],
      ['account-staking', `/address/${me.address}`, '#account-staking'],
      ['proposals', '/proposals', `#proposals tr[data-proposal="${proposalId}"]`],
      ['proposal', `/proposal/${proposalId}`, '#votes td'],
      ['block-signers', `/block/${delegated.blockNumber}`, '#block-signers td'],
      ['staking-call', `/tx/${delegated.hash}`, '#tx'],
      ['pending', `/tx/${gapped.hash}`, '#tx'],
      ['home-charts', '/', '#chart-bt svg rect'],
    ];
    for (const [size, viewport] of sizes) {
      await page.setViewportSize(viewport);
      for (const [name, path, sel] of pages) {
        await page.goto(env.node.explorer + path);
        await page.waitForSelector(sel);
        const layout = await page.evaluate(() => {
          const W = document.documentElement.clientWidth;
          const bad = [];
          for (const el of document.querySelectorAll('main *')) {
            if (el.closest('pre, svg')) continue; // scroll or scale inside themselves
            const r = el.getBoundingClientRect();
            const what = `${el.tagName.toLowerCase()}${el.dataset.label ? `[${el.dataset.label}]` : ''} "${el.textContent.trim().slice(0, 30)}"`;
            if (el.tagName === 'TD' && getComputedStyle(el).display === 'none') bad.push(`${what} hidden`);
            if (r.width === 0 && r.height === 0) continue;
            if (r.left < -0.5 || r.right > W + 0.5) bad.push(`${what} spans ${r.left.toFixed(0)}..${r.right.toFixed(0)} of ${W}`);
            if (['TD', 'DD', 'A', 'SPAN'].includes(el.tagName) && el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).display !== 'inline') {
              bad.push(`${what} cut: ${el.scrollWidth} > ${el.clientWidth}`);
            }
          }
          return { overflow: document.documentElement.scrollWidth - window.innerWidth, bad };
        });
        assert.ok(layout.overflow <= 0, `${name} at ${size}: scrolls sideways by ${layout.overflow} px`);
        assert.deepEqual(layout.bad, [], `${name} at ${size}:\n${layout.bad.join('\n')}`);
        await shot(`${name}-${size}`);
      }
    }

    // What those pages say (read at phone size, as laid out last).
    await page.goto(env.node.explorer + `/validator/${val.operator}`);
    await page.waitForSelector('#uptime .uptime i');
    const vText = await page.textContent('#validator');
    for (const want of ['active', 'Voting power', 'Self stake', 'Delegated stake', 'Commission', '10%']) {
      assert.ok(vText.includes(want), `validator page lacks ${want}: ${vText}`);
    }
    assert.ok(await page.locator('#uptime .uptime i.u-s').count() > 0, 'no signed block in the uptime picture');
    await page.locator(`#delegators a[href="/address/${me.address}"]`).waitFor();
    assert.ok(await page.locator(`#proposed a[href="/block/${delegated.blockNumber}"]`).count() === 1, 'the block it proposed is not listed');
    assert.ok((await page.textContent('#slashes')).includes('Never slashed'));

    await page.goto(env.node.explorer + `/address/${me.address}`);
    const sText = await page.textContent('#account-staking');
    assert.ok(sText.includes('17 CHAIN') && sText.includes('3 CHAIN') && sText.includes('Rewards'), sText);
    assert.ok(await page.locator(`#account-staking a[href="/validator/${val.operator}"]`).count() >= 2, 'delegation and unbonding rows');

    await page.goto(env.node.explorer + `/proposal/${proposalId}`);
    await page.waitForSelector('#votes td');
    assert.ok((await page.textContent('main')).includes('explorer text'));
    assert.ok((await page.textContent('#tally')).includes('17 CHAIN'), 'the tally counts the voter\'s 17 CHAIN');
    assert.ok(await page.locator(`#votes a[href="/address/${me.address}"]`).count() === 1);

    await page.goto(env.node.explorer + `/block/${delegated.blockNumber}`);
    await page.waitForSelector('#block-signers td');
    const bText = await page.textContent('main');
    assert.ok(bText.includes('1 of 1 validators') && bText.includes('signed'), bText);

    await page.goto(env.node.explorer + `/tx/${delegated.hash}`);
    await page.waitForSelector('#tx');
    const cText = await page.textContent('main');
    assert.ok(cText.includes('Staking.delegate') && cText.includes('Delegate(delegator'), cText);

    await page.goto(env.node.explorer + `/tx/${gapped.hash}`);
    await page.waitForSelector('#tx');
    const pText = await page.textContent('#tx');
    assert.ok(pText.includes('pending') && pText.includes('not in a block yet') && !pText.includes('failed'), pText);
    const pj = await (await fetch(env.node.explorer + `/api/transaction/${gapped.hash}`)).json();
    assert.equal(pj.transaction.pending, true);
    assert.equal(pj.transaction.blockNumber, null);
    assert.equal(pj.transaction.timestamp, null);
    assert.equal(pj.transaction.status, null);
    // Fill the gap, so the pool is empty for the suites after this one.
    await (await me.sendTransaction({ to: me.address, value: 1n, nonce })).wait();
    await gapped.wait();

    const stats = await (await fetch(env.node.explorer + '/api/stats')).json();
    assert.ok(stats.blockTime > 0, `block time ${stats.blockTime}`);
    assert.deepEqual(problems, [], problems.join('\n'));
    await page.setViewportSize({ width: 1280, height: 900 });
  });
});
