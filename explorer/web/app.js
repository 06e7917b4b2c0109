// chaind explorer: a small single-page app over the explorer's /api/.
// No framework, no build step: routes are paths, rendered into <main>.
'use strict';

const $ = (sel, el = document) => el.querySelector(sel);
const main = $('#main');
const homeHTML = main.innerHTML;
let cfg = { chainId: 0, webSocket: '', symbol: 'CHAIN', decimals: 18 };
let renderSeq = 0; // a render started later wins over an earlier one still loading

// ---- theme -----------------------------------------------------------------
const root = document.documentElement;
const savedTheme = localStorage.getItem('theme');
if (savedTheme) root.dataset.theme = savedTheme;
$('#theme').addEventListener('click', () => {
  const dark = root.dataset.theme ? root.dataset.theme === 'dark' : matchMedia('(prefers-color-scheme: dark)').matches;
  root.dataset.theme = dark ? 'light' : 'dark';
  localStorage.setItem('theme', root.dataset.theme);
});

// ---- formatting ------------------------------------------------------------
function esc(s) {
  return String(s).replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}

// units renders wei as CHAIN: every digit, without trailing zeros.
function units(wei) {
  const v = BigInt(wei), base = 10n ** BigInt(cfg.decimals);
  const whole = v / base, frac = (v % base).toString().padStart(cfg.decimals, '0').replace(/0+$/, '');
  return whole.toLocaleString('en-US') + (frac ? '.' + frac : '');
}

// amount shows a rounded value; hovering shows the exact one and the wei.
function amount(wei) {
  const exact = units(wei);
  const [w, f = ''] = exact.split('.');
  let short = w + (f ? '.' + f.slice(0, 6) : '');
  let unit = cfg.symbol;
  if (f.length > 6) {
    if (short.replace(/\.?0+$/, '') === '0') [short, unit] = [BigInt(wei).toLocaleString('en-US'), 'wei']; // dust reads better in wei
    else short += '…';
  }
  return `<span class="amount" title="${esc(exact + ' ' + cfg.symbol + ' = ' + BigInt(wei).toLocaleString('en-US') + ' wei')}">${esc(short)} ${esc(unit)}</span>`;
}

function ago(ts) {
  const s = Math.max(0, Math.round(Date.now() / 1000 - ts));
  const txt = s < 60 ? s + 's ago' : s < 3600 ? Math.floor(s / 60) + 'm ago' : s < 86400 ? Math.floor(s / 3600) + 'h ago' : Math.floor(s / 86400) + 'd ago';
  return `<time datetime="${new Date(ts * 1000).toISOString()}" title="${new Date(ts * 1000).toLocaleString()}">${txt}</time>`;
}

// gwei renders a gas price: prices are read in gwei, not in CHAIN.
function gwei(wei) {
  const v = BigInt(wei), g = v / 10n ** 9n, frac = (v % 10n ** 9n).toString().padStart(9, '0').replace(/0+$/, '');
  return `<span class="amount" title="${esc(v.toLocaleString('en-US') + ' wei')}">${esc(g.toLocaleString('en-US') + (frac ? '.' + frac : ''))} gwei</span>`;
}

const short = h => h.length > 14 ? h.slice(0, 8) + '…' + h.slice(-6) : h;
const link = (path, text, full) => `<a href="${esc(path)}" data-link class="mono"${full ? ` title="${esc(full)}"` : ''}>${esc(text)}</a>`;
const addr = (a, full) => a ? link('/address/' + a, full ? a : short(a), a) : '<span class="muted">—</span>';
const txLink = (h, full) => link('/tx/' + h, full ? h : short(h), h);
const blockLink = n => link('/block/' + n, '#' + Number(n).toLocaleString('en-US'));
const num = n => Number(n).toLocaleString('en-US');
const status = s => s ? '<span class="ok">✓ success</span>' : '<span class="bad">✗ failed</span>';

// ---- API -------------------------------------------------------------------
class NotFound extends Error {}
async function api(path) {
  const r = await fetch('/api/' + path, { headers: { Accept: 'application/json' } });
  const body = await r.json();
  if (r.status === 404) throw new NotFound(body.error);
  if (!body.success) throw new Error(body.error || r.statusText);
  return body;
}

// ---- router ----------------------------------------------------------------
const routes = [
  [/^\/$/, home],
  [/^\/block\/([^/]+)$/, block],
  [/^\/tx\/(0x[0-9a-fA-F]{64})$/, tx],
  [/^\/address\/(0x[0-9a-fA-F]{40}|chain(?:valoper)?1[02-9ac-hj-np-z]{38})$/i, account],
  [/^\/validators$/, validators],
  [/^\/validator\/([^/]+)$/, validator],
  [/^\/cycles$/, cycles],
  [/^\/cycle\/(\d+)$/, cycle],
  [/^\/proposals$/, proposals],
  [/^\/proposal\/(\d+)$/, proposal],
];

function go(path) {
  history.pushState(null, '', path);
  route();
  window.scrollTo(0, 0);
}

async function route() {
  const seq = ++renderSeq;
  const path = location.pathname;
  for (const [re, fn] of routes) {
    const m = path.match(re);
    if (!m) continue;
    try {
      const html = await fn(decodeURIComponent(m[1] || ''), seq);
      if (seq === renderSeq && html !== undefined) main.innerHTML = html;
    } catch (e) {
      if (seq !== renderSeq) return;
      main.innerHTML = e instanceof NotFound
        ? `<div class="card msg"><h1>Not found</h1><p>${esc(e.message)}</p><p><a href="/" data-link>Back to the latest blocks</a></p></div>`
        : `<div class="card msg"><h1>Something went wrong</h1><p>${esc(e.message)}</p></div>`;
    }
    document.title = (path === '/' ? '' : path.split('/').slice(1).join(' ') + ' · ') + 'chaind explorer';
    return;
  }
  main.innerHTML = `<div class="card msg"><h1>Not found</h1><p>No page at ${esc(path)}.</p></div>`;
}

document.addEventListener('click', e => {
  const a = e.target.closest('a[data-link]');
  if (!a || e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
  e.preventDefault();
  go(a.getAttribute('href'));
});
addEventListener('popstate', route);

// ---- search ----------------------------------------------------------------
$('#search').addEventListener('submit', async e => {
  e.preventDefault();
  const q = $('#q').value.trim();
  if (/^0x[0-9a-fA-F]{40}$/.test(q) || /^chain(valoper)?1[02-9ac-hj-np-z]{38}$/i.test(q)) return go('/address/' + q);
  if (/^\d+$/.test(q)) return go('/block/' + q);
  if (/^0x[0-9a-fA-F]{64}$/.test(q)) {
    try { await api('transaction/' + q); return go('/tx/' + q); } catch (err) { if (!(err instanceof NotFound)) throw err; }
    return go('/block/' + q);
  }
  main.innerHTML = `<div class="card msg"><h1>Nothing to search for</h1><p>“${esc(q)}” is not a block number, a 0x hash of 64 hex digits, a 0x address of 40 or a bech32 chain1… / chainvaloper1… address.</p></div>`;
});

// ---- home ------------------------------------------------------------------
function blockTable(blocks, fresh) {
  return table([
    ['Block', b => blockLink(b.number)],
    ['Age', b => ago(b.timestamp)],
    ['Txs', b => num(b.transactionCount)],
    ['Proposer', b => addr(b.miner)],
  ], blocks, b => ` data-block="${b.number}"${fresh.has('b' + b.number) ? ' class="new"' : ''}`);
}

function latestTxTable(txs, fresh) {
  if (!txs.length) return '<p class="msg muted">No transactions yet.</p>';
  return table([
    ['Hash', t => txLink(t.hash)],
    ['From → To', t => `${addr(t.from)} → ${addr(t.to || t.contractAddress)}`],
    ['Value', t => amount(t.value)],
    ['Status', t => status(t.status)],
  ], txs, t => ` data-hash="${t.hash}"${fresh.has(t.hash) ? ' class="new"' : ''}`);
}

// fmtInterval renders seconds, in ms below 10 s.
const fmtInterval = s => !s ? '—' : s < 10 ? Math.round(s * 1000).toLocaleString('en-US') + ' ms' : s.toFixed(2) + ' s';

// chart draws a bar chart of values as inline SVG (no library, nothing
// fetched): one bar per block, the largest value on the axis.
function chart(id, title, points, value, fmt) {
  const w = 600, h = 120, pad = 2;
  const vals = points.map(value);
  const top = Math.max(...vals, 0) || 1;
  const bw = points.length ? w / points.length : w;
  const bars = points.map((p, i) => {
    const bh = Math.max(1, (vals[i] / top) * (h - 14));
    return `<rect x="${(i * bw + pad / 2).toFixed(1)}" y="${(h - bh).toFixed(1)}" width="${Math.max(1, bw - pad).toFixed(1)}" height="${bh.toFixed(1)}"><title>block ${p.number}: ${esc(fmt(vals[i]))}</title></rect>`;
  }).join('');
  const avg = vals.length ? vals.reduce((a, b) => a + b, 0) / vals.length : 0;
  return `<figure class="chart" id="${id}"><figcaption>${esc(title)} <span class="muted">max ${esc(fmt(top))} · mean ${esc(fmt(avg))} · last ${points.length} blocks</span></figcaption>
    <svg viewBox="0 0 ${w} ${h}" preserveAspectRatio="none" role="img" aria-label="${esc(title)}">${bars}</svg></figure>`;
}

function charts(points) {
  return chart('chart-bt', 'Block time', points, p => p.intervalMs / 1000, fmtInterval) +
    chart('chart-tps', 'Transactions per second', points, p => p.intervalMs > 0 ? p.transactionCount / (p.intervalMs / 1000) : 0, v => v.toFixed(1) + ' tx/s');
}

let seen = new Set();
async function refreshHome(seq) {
  const [stats, blocks, txs, ch] = await Promise.all([api('stats'), api('blocks?count=10'), api('transaction?count=10'), api('chart?count=60')]);
  if (seq !== renderSeq || location.pathname !== '/') return;
  $('#s-head').textContent = num(stats.head);
  $('#s-bt').textContent = fmtInterval(stats.blockTime);
  $('#s-tps').textContent = stats.txPerSecond.toFixed(2);
  $('#s-vals').textContent = num(stats.activeValidators);
  $('#s-txs').textContent = num(stats.totalTransactions);
  $('#s-cycle').innerHTML = link('/cycle/' + stats.cycle, num(stats.cycle));
  const fresh = new Set();
  const keys = [...blocks.blocks.map(b => 'b' + b.number), ...txs.transactions.map(t => t.hash)];
  if (seen.size) keys.forEach(k => { if (!seen.has(k)) fresh.add(k); });
  seen = new Set(keys);
  $('#charts').innerHTML = charts(ch.blocks);
  $('#latest-blocks .body').innerHTML = blockTable(blocks.blocks, fresh);
  $('#latest-txs .body').innerHTML = latestTxTable(txs.transactions, fresh);
}

async function home(_, seq) {
  main.innerHTML = homeHTML + `<section class="card charts" id="charts"></section><div class="cols">
    <section class="card" id="latest-blocks"><h2>Latest blocks</h2><div class="body"></div></section>
    <section class="card" id="latest-txs"><h2>Latest transactions</h2><div class="body"></div></section></div>`;
  seen = new Set();
  await refreshHome(seq);
}

// ---- tables ------------------------------------------------------------------
// table renders rows under headings; every cell carries its heading, so on
// a phone each row stacks as label/value pairs and no column is cut off.
// cols: [heading, cell(row) -> html, class?]
function table(cols, rows, attrs = () => '') {
  return `<table class="rows"><thead><tr>${cols.map(([h, , c]) => `<th${c ? ` class="${c}"` : ''}>${esc(h)}</th>`).join('')}</tr></thead><tbody>` +
    rows.map(r => `<tr${attrs(r)}>${cols.map(([h, f, c]) => `<td data-label="${esc(h)}"${c ? ` class="${c}"` : ''}><div class="v">${f(r)}</div></td>`).join('')}</tr>`).join('') +
    '</tbody></table>';
}

// pct renders an 18-decimal fraction (10^18 = 100%) as a percentage.
const pct18 = f => (Number(BigInt(f) * 10000n / 10n ** 18n) / 100).toLocaleString('en-US', { maximumFractionDigits: 2 }) + '%';
const pill = (s, cls = '') => `<span class="pill ${esc(cls || s)}">${esc(s)}</span>`;
const statusPill = s => pill(s, 'st-' + s);

// ---- detail pages ------------------------------------------------------------
const kv = rows => '<dl class="kv">' + rows.filter(Boolean).map(([k, v]) => `<dt>${esc(k)}</dt><dd>${v}</dd>`).join('') + '</dl>';

function txTable(txs, empty) {
  if (!txs.length) return `<p class="msg muted">${esc(empty)}</p>`;
  return table([
    ['Hash', t => txLink(t.hash)],
    ['Block', t => blockLink(t.blockNumber)],
    ['Age', t => ago(t.timestamp)],
    ['From → To', t => `${addr(t.from)} → ${addr(t.to || t.contractAddress)}`],
    ['Method', t => t.method ? `<span class="mono">${esc(t.method.length > 20 ? t.method.slice(0, 18) + '…' : t.method)}</span>` : ''],
    ['Value', t => amount(t.value)],
    ['Status', t => status(t.status)],
  ], txs, t => ` data-hash="${t.hash}"`);
}

async function block(id) {
  const { block: b } = await api('block/' + encodeURIComponent(id));
  return `<h1>Block ${esc('#' + num(b.number))}</h1><section class="card">` + kv([
    ['Hash', `<span class="mono">${esc(b.hash)}</span>`],
    ['Parent', b.number > 0 ? link('/block/' + b.parentHash, b.parentHash) : '—'],
    ['Time', ago(b.timestamp) + ` <span class="muted">(${new Date(b.timestamp * 1000).toISOString()})</span>`],
    ['Cycle', link('/cycle/' + b.cycle, num(b.cycle))],
    ['Proposer', b.signing ? validatorLink(b.signing.proposer, true) : addr(b.miner, true)],
    b.signing && ['Signatures', b.signing.recorded
      ? `${b.signing.signers.filter(x => x.signed).length} of ${b.signing.signers.length} validators`
      : '<span class="muted">recorded by the next block</span>'],
    ['Transactions', num(b.transactionCount)],
    ['Gas used', `${num(b.gasUsed)} of ${num(b.gasLimit)}`],
    b.baseFeePerGas && ['Base fee', gwei(b.baseFeePerGas)],
    ['Size', num(b.size) + ' bytes'],
    ['State root', `<span class="mono">${esc(b.stateRoot)}</span>`],
  ]) + `</section><div class="pager">${b.number > 0 ? link('/block/' + (b.number - 1), '← #' + num(b.number - 1)) : ''} ${link('/block/' + (b.number + 1), '#' + num(b.number + 1) + ' →')}</div>
  ${b.signing ? `<section class="card" id="block-signers"><h2>Validators</h2>${table([
    ['Validator', x => validatorLink(x.operator)],
    ['Voting power', x => num(x.votingPower)],
    ['Signed', x => !b.signing.recorded ? '<span class="muted">pending</span>' : x.signed ? '<span class="ok">✓ signed</span>' : '<span class="bad">✗ missed</span>'],
  ], b.signing.signers)}</section>` : ''}
  <section class="card" id="block-txs"><h2>Transactions</h2>${txTable(b.transactions || [], 'This block holds no transactions.')}</section>`;
}

const validatorLink = (a, full) => link('/validator/' + a, full ? a : short(a), a);

const argView = a => `<span class="arg">${esc(a.name)}: ${a.type === 'address' ? addr(a.value, true) : `<span class="mono">${esc(a.value)}</span>`}</span>`;

function logsTable(logs) {
  return table([
    ['#', l => String(l.logIndex)],
    ['Contract', l => addr(l.address)],
    ['Event', l => (l.event ? `<b>${esc(l.event.name)}</b>(${l.event.args.map(argView).join(', ')})` : '<span class="muted">unknown event</span>') +
      `<pre>${l.topics.map(esc).join('\n')}${l.data !== '0x' ? '\n' + esc(l.data) : ''}</pre>`, 'ev'],
  ], logs);
}

async function tx(hash) {
  const { transaction: t } = await api('transaction/' + hash);
  const st = t.pending ? '<span class="pill">pending</span>' : status(t.status);
  return `<h1>Transaction</h1><section class="card" id="tx">` + kv([
    ['Hash', `<span class="mono">${esc(t.hash)}</span>`],
    ['Status', st + (t.revertReason ? ` — reverted: “${esc(t.revertReason)}”` : t.error ? ` — ${esc(t.error)}` : '')],
    t.pending && ['Block', '<span class="muted">not in a block yet</span>'],
    !t.pending && ['Block', blockLink(t.blockNumber) + ` <span class="muted">position ${t.transactionIndex}, cycle ${link('/cycle/' + t.cycle, num(t.cycle))}</span>`],
    !t.pending && ['Time', ago(t.timestamp)],
    ['From', addr(t.from, true)],
    ['To', t.to ? addr(t.to, true) : 'contract creation' + (t.contractAddress ? ': ' + addr(t.contractAddress, true) : '')],
    ['Value', amount(t.value)],
    !t.pending && ['Fee', amount(t.fee)],
    ['Gas', t.pending ? num(t.gas) : `${num(t.gasUsed)} used of ${num(t.gas)}`],
    ['Gas price', gwei(t.gasPrice)],
    ['Nonce', num(t.nonce)],
    ['Type', `${t.type}` + (t.method ? ` · <span class="mono">${esc(t.method)}</span>` : '')],
    t.call && ['Call', `<span class="mono">${esc(t.call.contract)}.<b>${esc(t.call.name)}</b></span>(${t.call.args.map(argView).join(', ')})`],
    ['Input', `<pre>${esc(t.input)}</pre>`],
  ]) + `</section>` + (t.logs.length ? `<section class="card" id="logs"><h2>Logs (${t.logs.length})</h2>${logsTable(t.logs)}</section>` : '');
}

async function account(a) {
  const page = Number(new URLSearchParams(location.search).get('page') || 1);
  const { account: acc } = await api(`account/${a}?page=${page}`);
  const pager = acc.totalPages > 1 ? `<div class="pager">${page > 1 ? link(`/address/${acc.address}?page=${page - 1}`, '← newer') : ''}
    <span class="muted">page ${page} of ${acc.totalPages}</span>${page < acc.totalPages ? link(`/address/${acc.address}?page=${page + 1}`, 'older →') : ''}</div>` : '';
  return `<h1>${acc.isContract ? 'Contract' : 'Account'} <span class="mono">${esc(acc.address)}</span></h1><section class="card" id="account">` + kv([
    ['Balance', amount(acc.balance)],
    ['Nonce', num(acc.nonce)],
    ['Transactions', num(acc.transactionCount)],
    acc.isContract && ['Code size', num(acc.codeSize) + ' bytes'],
    ['Roles', acc.roles.length ? acc.roles.map(r => r === 'validator' && acc.validator ? link('/validator/' + acc.address, r) : `<span class="pill">${esc(r)}</span>`).join(' ') : '<span class="muted">none</span>'],
  ]) + `</section>${acc.staking ? accountStake(acc.staking) : ''}<section class="card" id="account-txs"><h2>Transactions</h2>${txTable(acc.transactions, 'No transactions touch this address.')}${pager}</section>`;
}

function accountStake(st) {
  return `<section class="card" id="account-staking"><h2>Staking</h2>` + kv([
    ['Delegated', amount(st.totalDelegated)],
    ['Rewards', amount(st.totalRewards) + ' <span class="muted">withdrawable now</span>'],
    ['Unbonding', amount(st.totalUnbonding)],
    ['Rewards go to', addr(st.withdrawAddress, true)],
  ]) + (st.delegations.length ? '<h2>Delegations</h2>' + table([
    ['Validator', d => validatorLink(d.validator)],
    ['Amount', d => amount(d.amount)],
    ['Rewards', d => amount(d.rewards)],
  ], st.delegations) : '<p class="msg muted">No delegations.</p>') + (st.unbonding.length ? '<h2>Unbonding</h2>' + table([
    ['Validator', u => validatorLink(u.validator)],
    ['Amount', u => amount(u.amount)],
    ['Started', u => blockLink(u.creationHeight)],
    ['Completes', u => until(u.completionTime)],
  ], st.unbonding) : '') + '</section>';
}

// until shows a moment that may be ahead.
function until(ts) {
  const s = Math.round(ts - Date.now() / 1000);
  const when = new Date(ts * 1000);
  if (s <= 0) return ago(ts);
  const txt = s < 60 ? `in ${s}s` : s < 3600 ? `in ${Math.floor(s / 60)}m` : s < 86400 ? `in ${Math.floor(s / 3600)}h` : `in ${Math.floor(s / 86400)}d`;
  return `<span title="${esc(when.toLocaleString())}">${txt}</span>`;
}

const uptimePct = v => v.signed + v.missed ? (100 * v.signed / (v.signed + v.missed)).toFixed(1) + '%' : '—';

async function validators() {
  const r = await api('validators');
  if (!r.staking) return nodeValidators(r.validators);
  const total = r.validators.reduce((n, v) => n + (v.status === 'active' ? v.votingPower : 0), 0);
  return `<h1>Validators</h1><p class="muted">${r.validators.length} validators; uptime over blocks ${num(r.windowFrom)}–${num(r.windowTo)}.</p><section class="card" id="validators">` + table([
    ['Validator', v => `${link('/validator/' + v.operator, v.moniker || short(v.operator), v.operator)}<br><span class="mono muted">${esc(short(v.operator))}</span>`],
    ['Status', v => statusPill(v.status)],
    ['Voting power', v => num(v.votingPower) + (total && v.status === 'active' ? ` <span class="muted">${(100 * v.votingPower / total).toFixed(1)}%</span>` : '')],
    ['Self stake', v => amount(v.selfStake)],
    ['Delegated', v => amount(v.delegatedStake)],
    ['Commission', v => pct18(v.commissionRate)],
    ['Uptime', v => `${uptimePct(v)} <span class="muted">${v.missed} missed</span>`],
  ], r.validators, v => ` data-operator="${v.operator}"`) + '</section>';
}

function nodeValidators(vs) {
  return `<h1>Validators</h1><section class="card" id="validators">` + table([
    ['Address', v => link('/validator/' + v.address, short(v.address), v.address)],
    ['Node ID', v => `<span class="mono">${esc(short(v.id))}</span>`],
    ['Endpoint', v => `<span class="mono">${esc(v.ip + ':' + v.port)}</span>`],
  ], vs) + '</section>';
}

// uptimePicture draws one square per recent block: signed, missed, or
// not in the validator set.
function uptimePicture(u) {
  const names = { s: 'signed', m: 'missed', '-': 'not in the set' };
  const cells = [...u.blocks].map((c, i) => `<i class="u-${c === '-' ? 'x' : c}" title="block ${num(u.from + i)}: ${names[c]}"></i>`).join('');
  return `<div class="uptime" role="img" aria-label="${[...u.blocks].filter(c => c === 's').length} signed, ${[...u.blocks].filter(c => c === 'm').length} missed of blocks ${u.from} to ${u.to}">${cells}</div>
    <p class="muted legend"><i class="u-s"></i> signed <i class="u-m"></i> missed <i class="u-x"></i> not in the set · blocks ${num(u.from)}–${num(u.to)}</p>`;
}

async function validator(id) {
  const r = await api('validator/' + id);
  if (r.uptime) return stakeValidator(r);
  const v = r.validator;
  return `<h1>Validator</h1><section class="card">` + kv([
    ['Address', addr(v.address, true)],
    ['Node ID', `<span class="mono">${esc(v.id)}</span>`],
    ['Public key', `<span class="mono">${esc(v.publicKey)}</span>`],
    ['Endpoint', `<span class="mono">${esc(v.ip + ':' + v.port)}</span>`],
  ]) + '</section>';
}

const reasons = { double_sign: 'double sign', missed_blocks: 'missed blocks', left_network_early: 'left the network early' };

function stakeValidator(r) {
  const v = r.validator;
  return `<h1>Validator ${esc(v.moniker || '')}</h1><section class="card" id="validator">` + kv([
    ['Operator', addr(v.operator, true)],
    ['Status', statusPill(v.status) + (v.jailed && v.jailedUntil ? ` <span class="muted">may unjail ${until(v.jailedUntil)}</span>` : '')],
    ['Voting power', num(v.votingPower)],
    ['Bonded', amount(v.tokens)],
    ['Self stake', amount(v.selfStake)],
    ['Delegated stake', amount(v.delegatedStake)],
    ['Commission', `${pct18(v.commissionRate)} <span class="muted">(max ${pct18(v.maxRate)}, change ≤ ${pct18(v.maxChangeRate)} a day)</span>`],
    ['Slashed', amount(v.slashed)],
    ['Missed (liveness window)', num(v.missedBlocks)],
    ['Consensus address', `<span class="mono">${esc(v.consensusAddress)}</span>`],
    v.node && ['Node', `<span class="mono">${esc(v.node.ip + ':' + v.node.port)}</span> <span class="mono muted">${esc(short(v.node.id))}</span>`],
    v.website && ['Website', esc(v.website)],
    v.details && ['Details', esc(v.details)],
  ]) + `</section>
  <section class="card" id="uptime"><h2>Uptime ${uptimePct(v)}</h2>${uptimePicture(r.uptime)}</section>
  <section class="card" id="delegators"><h2>Delegators (${r.delegators.length})</h2>${r.delegators.length ? table([
    ['Delegator', d => addr(d.delegator)],
    ['Amount', d => amount(d.amount)],
    ['Rewards', d => amount(d.rewards)],
  ], r.delegators) : '<p class="msg muted">No delegations.</p>'}</section>
  <section class="card" id="slashes"><h2>Slashing events</h2>${r.slashes.length ? table([
    ['Block', s => blockLink(s.height)],
    ['Reason', s => esc(reasons[s.reason] || s.reason)],
    ['Offence at', s => blockLink(s.infractionHeight)],
    ['Penalty', s => `${(s.ppm / 10000).toLocaleString('en-US')}% · ${amount(s.amount)}`],
    ['When', s => ago(s.timestamp)],
  ], r.slashes.slice().reverse()) : '<p class="msg muted">Never slashed.</p>'}</section>
  <section class="card" id="proposed"><h2>Proposed blocks (${r.proposedBlocks.length} of the last ${r.uptime.blocks.length})</h2>${r.proposedBlocks.length ? table([
    ['Block', b => blockLink(b.number)],
    ['Age', b => ago(b.timestamp)],
    ['Transactions', b => num(b.transactionCount)],
  ], r.proposedBlocks.slice(0, 25)) : '<p class="msg muted">None in this window.</p>'}</section>`;
}

// ---- governance --------------------------------------------------------------
const tallyKeys = [['yes', 'Yes'], ['no', 'No'], ['noWithVeto', 'No with veto'], ['abstain', 'Abstain']];

// tallyBar draws the tally as one SVG bar (attributes, not inline styles:
// the page's content security policy forbids those).
function tallyBar(t) {
  const sum = tallyKeys.reduce((n, [k]) => n + BigInt(t[k]), 0n);
  if (sum === 0n) return '<span class="muted">no votes yet</span>';
  let x = 0;
  const parts = tallyKeys.map(([k, n]) => [k, n, Number(BigInt(t[k]) * 1000n / sum) / 10]);
  return `<svg class="tally" viewBox="0 0 100 10" preserveAspectRatio="none" role="img" aria-label="${esc(parts.map(([, n, w]) => `${n} ${w}%`).join(', '))}">` +
    parts.map(([k, n, w]) => { const r = w ? `<rect class="t-${k}" x="${x}" y="0" width="${w}" height="10"><title>${esc(n)} ${w}%</title></rect>` : ''; x += w; return r; }).join('') + '</svg>';
}

async function proposals() {
  const { proposals: ps } = await api('proposals');
  return `<h1>Governance proposals</h1><section class="card" id="proposals">` + (ps.length ? table([
    ['#', p => link('/proposal/' + p.id, '#' + p.id)],
    ['Title', p => link('/proposal/' + p.id, p.title)],
    ['Kind', p => esc(p.kind.replace('_', ' '))],
    ['Status', p => statusPill(p.status.replace('_', ' '))],
    ['Tally', p => tallyBar(p.tally)],
  ], ps, p => ` data-proposal="${p.id}"`) : '<p class="msg muted">No proposals yet.</p>') + '</section>';
}

const weight = ppm => (ppm / 10000).toLocaleString('en-US') + '%';

async function proposal(id) {
  const { proposal: p, votes, deposits } = await api('proposal/' + id);
  return `<h1>Proposal #${esc(p.id)}: ${esc(p.title)}</h1><section class="card" id="proposal">` + kv([
    ['Status', statusPill(p.status.replace('_', ' '))],
    ['Kind', esc(p.kind.replace('_', ' '))],
    p.param && ['Changes', `<span class="mono">${esc(p.param)}</span> → <span class="mono">${esc(p.value)}</span>`],
    ['Proposer', addr(p.proposer, true)],
    ['Description', esc(p.description)],
    ['Submitted', ago(p.submitTime)],
    ['Deposit', amount(p.totalDeposit) + (p.votingStart ? '' : ` <span class="muted">deposit period ends ${until(p.depositEnd)}</span>`)],
    p.votingStart && ['Voting', `${ago(p.votingStart)} – ${until(p.votingEnd)}`],
  ]) + `</section><section class="card" id="tally"><h2>Tally</h2>${tallyBar(p.tally)}` + kv(tallyKeys.map(([k, n]) => [n, amount(p.tally[k])])) + `</section>
  <section class="card" id="votes"><h2>Votes (${votes.length})</h2>${votes.length ? table([
    ['Voter', v => addr(v.voter)],
    ['Yes', v => weight(v.yes)],
    ['No', v => weight(v.no)],
    ['Veto', v => weight(v.noWithVeto)],
    ['Abstain', v => weight(v.abstain)],
  ], votes) : '<p class="msg muted">No votes yet.</p>'}</section>
  <section class="card" id="deposits"><h2>Deposits</h2>${deposits.length ? table([
    ['Depositor', d => addr(d.depositor)],
    ['Amount', d => amount(d.amount)],
  ], deposits) : '<p class="msg muted">No deposits.</p>'}</section>`;
}

async function cycles() {
  const { cycles: cs } = await api('cycles?count=20');
  return `<h1>Cycles</h1><p class="muted">A cycle is ten blocks; validator changes, rewards and penalties take effect at its boundaries.</p><section class="card">` + table([
    ['Cycle', c => link('/cycle/' + c.counter, num(c.counter))],
    ['Blocks', c => `${blockLink(c.startBlock)} – ${blockLink(c.endBlock)}`],
    ['Transactions', c => num(c.transactionCount)],
    ['Validators', c => `${c.active} active`],
    ['Started', c => ago(c.start)],
  ], cs) + '</section>';
}

async function cycle(n) {
  const page = Number(new URLSearchParams(location.search).get('page') || 1);
  const [{ cycle: c }, list] = await Promise.all([api('cycle/' + n), api(`transaction?startCycle=${n}&page=${page}`)]);
  const pager = list.totalPages > 1 ? `<div class="pager">${page > 1 ? link(`/cycle/${n}?page=${page - 1}`, '← previous') : ''}
    <span class="muted">page ${page} of ${list.totalPages}</span>${page < list.totalPages ? link(`/cycle/${n}?page=${page + 1}`, 'next →') : ''}</div>` : '';
  return `<h1>Cycle ${esc(num(c.counter))}</h1><section class="card">` + kv([
    ['Blocks', `${blockLink(c.startBlock)} – ${blockLink(c.endBlock)}`],
    ['Started', ago(c.start)],
    ['Transactions', num(c.transactionCount)],
    ['Validators', `${c.active} active, ${c.standby} standby, ${c.syncing} syncing (desired ${c.desired})`],
  ]) + `</section><div class="pager">${c.counter > 0 ? link('/cycle/' + (c.counter - 1), '← cycle ' + num(c.counter - 1)) : ''} ${link('/cycle/' + (c.counter + 1), 'cycle ' + num(c.counter + 1) + ' →')}</div>
  <section class="card"><h2>Transactions</h2>${txTable(list.transactions, 'No transactions in this cycle.')}${pager}</section>`;
}

// ---- live updates over the node's WebSocket (newHeads) -------------------------
const live = $('#live');
function connect(delay = 1000) {
  if (!cfg.webSocket) { // the node serves no WebSocket: poll instead
    live.textContent = '○ polling every 5 s';
    setInterval(() => { if (location.pathname === '/') refreshHome(renderSeq).catch(() => {}); }, 5000);
    return;
  }
  const u = new URL(cfg.webSocket);
  u.hostname = location.hostname; // the node's address as this browser reaches it
  const ws = new WebSocket(u);
  ws.onopen = () => {
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
    live.textContent = '● live'; live.classList.add('on'); delay = 1000;
  };
  ws.onmessage = ev => {
    const m = JSON.parse(ev.data);
    if (m.method !== 'eth_subscription') return;
    if (location.pathname === '/') refreshHome(renderSeq).catch(() => {});
  };
  ws.onclose = () => {
    live.textContent = '○ reconnecting'; live.classList.remove('on');
    setTimeout(() => connect(Math.min(delay * 2, 30000)), delay);
  };
}

(async () => {
  try {
    cfg = await api('config');
    $('#chain-id').textContent = cfg.chainId;
  } catch (e) { /* the pages still work; amounts use the defaults */ }
  await route();
  connect();
  setInterval(() => document.querySelectorAll('time').forEach(t => {
    const ts = Date.parse(t.getAttribute('datetime')) / 1000;
    t.outerHTML = ago(ts);
  }), 10000);
})();
