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
function blockRows(blocks, fresh) {
  return blocks.map(b => `<tr${fresh.has('b' + b.number) ? ' class="new"' : ''} data-block="${b.number}">
    <td>${blockLink(b.number)}</td><td>${ago(b.timestamp)}</td><td>${num(b.transactionCount)} tx</td>
    <td class="hide-sm">${addr(b.miner)}</td></tr>`).join('');
}

function txRows(txs, fresh) {
  return txs.map(t => `<tr${fresh.has(t.hash) ? ' class="new"' : ''} data-hash="${t.hash}">
    <td>${txLink(t.hash)}</td><td>${addr(t.from)} → ${addr(t.to || t.contractAddress)}</td>
    <td>${amount(t.value)}</td><td class="hide-sm">${t.status ? '' : '<span class="bad">failed</span>'}</td></tr>`).join('');
}

let seen = new Set();
async function refreshHome(seq) {
  const [stats, blocks, txs] = await Promise.all([api('stats'), api('blocks?count=10'), api('transaction?count=10')]);
  if (seq !== renderSeq || location.pathname !== '/') return;
  $('#s-head').textContent = num(stats.head);
  $('#s-bt').textContent = stats.blockTime ? stats.blockTime.toFixed(2) + ' s' : '—';
  $('#s-tps').textContent = stats.txPerSecond.toFixed(2);
  $('#s-vals').textContent = num(stats.activeValidators);
  $('#s-txs').textContent = num(stats.totalTransactions);
  $('#s-cycle').innerHTML = link('/cycle/' + stats.cycle, num(stats.cycle));
  const fresh = new Set();
  const keys = [...blocks.blocks.map(b => 'b' + b.number), ...txs.transactions.map(t => t.hash)];
  if (seen.size) keys.forEach(k => { if (!seen.has(k)) fresh.add(k); });
  seen = new Set(keys);
  $('#latest-blocks tbody').innerHTML = blockRows(blocks.blocks, fresh);
  $('#latest-txs tbody').innerHTML = txs.transactions.length ? txRows(txs.transactions, fresh)
    : '<tr><td colspan="4" class="muted">No transactions yet.</td></tr>';
}

async function home(_, seq) {
  main.innerHTML = homeHTML + `<div class="cols">
    <section class="card" id="latest-blocks"><h2>Latest blocks</h2><table><tbody></tbody></table></section>
    <section class="card" id="latest-txs"><h2>Latest transactions</h2><table><tbody></tbody></table></section></div>`;
  seen = new Set();
  await refreshHome(seq);
}

// ---- detail pages ------------------------------------------------------------
const kv = rows => '<dl class="kv">' + rows.filter(Boolean).map(([k, v]) => `<dt>${esc(k)}</dt><dd>${v}</dd>`).join('') + '</dl>';

function txTable(txs, empty) {
  if (!txs.length) return `<p class="msg muted">${esc(empty)}</p>`;
  return `<table><thead><tr><th>Hash</th><th>Block</th><th class="hide-sm">Age</th><th>From → To</th><th>Value</th><th class="hide-sm">Status</th></tr></thead><tbody>` +
    txs.map(t => `<tr data-hash="${t.hash}"><td>${txLink(t.hash)}</td><td>${blockLink(t.blockNumber)}</td><td class="hide-sm">${ago(t.timestamp)}</td>
    <td>${addr(t.from)} → ${addr(t.to || t.contractAddress)}</td><td>${amount(t.value)}</td><td class="hide-sm">${status(t.status)}</td></tr>`).join('') + '</tbody></table>';
}

async function block(id) {
  const { block: b } = await api('block/' + encodeURIComponent(id));
  return `<h1>Block ${esc('#' + num(b.number))}</h1><section class="card">` + kv([
    ['Hash', `<span class="mono">${esc(b.hash)}</span>`],
    ['Parent', b.number > 0 ? link('/block/' + b.parentHash, b.parentHash) : '—'],
    ['Time', ago(b.timestamp) + ` <span class="muted">(${new Date(b.timestamp * 1000).toISOString()})</span>`],
    ['Cycle', link('/cycle/' + b.cycle, num(b.cycle))],
    ['Proposer', addr(b.miner, true)],
    ['Transactions', num(b.transactionCount)],
    ['Gas used', `${num(b.gasUsed)} of ${num(b.gasLimit)}`],
    b.baseFeePerGas && ['Base fee', gwei(b.baseFeePerGas)],
    ['Size', num(b.size) + ' bytes'],
    ['State root', `<span class="mono">${esc(b.stateRoot)}</span>`],
  ]) + `</section><div class="pager">${b.number > 0 ? link('/block/' + (b.number - 1), '← #' + num(b.number - 1)) : ''} ${link('/block/' + (b.number + 1), '#' + num(b.number + 1) + ' →')}</div>
  <section class="card" id="block-txs"><h2>Transactions</h2>${txTable(b.transactions || [], 'This block holds no transactions.')}</section>`;
}

function logView(l) {
  const ev = l.event
    ? `<b>${esc(l.event.name)}</b>(${l.event.args.map(a => `${esc(a.name)}: ${a.type === 'address' ? addr(a.value, true) : `<span class="mono">${esc(a.value)}</span>`}`).join(', ')})`
    : '<span class="muted">unknown event</span>';
  return `<tr><td>${l.logIndex}</td><td>${addr(l.address)}</td><td>${ev}<pre>${l.topics.map(esc).join('\n')}${l.data !== '0x' ? '\n' + esc(l.data) : ''}</pre></td></tr>`;
}

async function tx(hash) {
  const { transaction: t } = await api('transaction/' + hash);
  const st = t.pending ? '<span class="pill">pending</span>' : status(t.status);
  return `<h1>Transaction</h1><section class="card" id="tx">` + kv([
    ['Hash', `<span class="mono">${esc(t.hash)}</span>`],
    ['Status', st + (t.revertReason ? ` — reverted: “${esc(t.revertReason)}”` : t.error ? ` — ${esc(t.error)}` : '')],
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
    ['Input', `<pre>${esc(t.input)}</pre>`],
  ]) + `</section>` + (t.logs.length ? `<section class="card"><h2>Logs (${t.logs.length})</h2><table><tbody>${t.logs.map(logView).join('')}</tbody></table></section>` : '');
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
  ]) + `</section><section class="card" id="account-txs"><h2>Transactions</h2>${txTable(acc.transactions, 'No transactions touch this address.')}${pager}</section>`;
}

async function validators() {
  const { validators: vs } = await api('validators');
  return `<h1>Validators</h1><section class="card"><table><thead><tr><th>Address</th><th class="hide-sm">Node ID</th><th>Endpoint</th></tr></thead><tbody>` +
    vs.map(v => `<tr><td>${link('/validator/' + v.address, v.address)}</td><td class="hide-sm mono">${esc(short(v.id))}</td><td class="mono">${esc(v.ip + ':' + v.port)}</td></tr>`).join('') +
    '</tbody></table></section>';
}

async function validator(id) {
  const { validator: v } = await api('validator/' + id);
  return `<h1>Validator</h1><section class="card">` + kv([
    ['Address', addr(v.address, true)],
    ['Node ID', `<span class="mono">${esc(v.id)}</span>`],
    ['Public key', `<span class="mono">${esc(v.publicKey)}</span>`],
    ['Endpoint', `<span class="mono">${esc(v.ip + ':' + v.port)}</span>`],
  ]) + '</section>';
}

function cycleRow(c) {
  return `<tr><td>${link('/cycle/' + c.counter, num(c.counter))}</td><td>${blockLink(c.startBlock)} – ${blockLink(c.endBlock)}</td><td>${num(c.transactionCount)}</td><td class="hide-sm">${c.active} active</td><td class="hide-sm">${ago(c.start)}</td></tr>`;
}

async function cycles() {
  const { cycles: cs } = await api('cycles?count=20');
  return `<h1>Cycles</h1><p class="muted">A cycle is ten blocks; validator changes, rewards and penalties take effect at its boundaries.</p><section class="card"><table><thead><tr><th>Cycle</th><th>Blocks</th><th>Transactions</th><th class="hide-sm">Validators</th><th class="hide-sm">Started</th></tr></thead><tbody>` +
    cs.map(cycleRow).join('') + '</tbody></table></section>';
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
