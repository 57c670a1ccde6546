// The frontierd dashboard: polls /api/stats every second, keeps the last
// five minutes of samples and draws them as SVG line charts. No library,
// nothing loaded from elsewhere (the server's Content-Security-Policy
// allows only its own files).
'use strict';

const HISTORY = 300;      // samples kept (one a second: five minutes)
const POLL_MS = 1000;
const SVG = 'http://www.w3.org/2000/svg';
// {t: when it arrived (the page's clock, for the x axis), stats}; rates
// use the server's own stats.time_ms.
const samples = [];

const $ = (id) => document.getElementById(id);

function fmtInt(n) {
  if (n === undefined || n === null) return '–';
  return Number(n).toLocaleString('en-US');
}
function fmtShort(n) {
  const a = Math.abs(n);
  if (a >= 1e9) return (n / 1e9).toFixed(1) + 'G';
  if (a >= 1e6) return (n / 1e6).toFixed(1) + 'M';
  if (a >= 1e3) return (n / 1e3).toFixed(1) + 'k';
  if (a >= 10 || Number.isInteger(n)) return n.toFixed(0);
  return n.toFixed(2);
}
function fmtBytes(b) {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (b >= 1024 && i < units.length - 1) { b /= 1024; i++; }
  return b.toFixed(i ? 1 : 0) + ' ' + units[i];
}
function fmtDuration(ms) {
  let s = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(s / 86400); s %= 86400;
  const h = Math.floor(s / 3600); s %= 3600;
  const m = Math.floor(s / 60); s %= 60;
  if (d) return d + 'd ' + h + 'h';
  if (h) return h + 'h ' + m + 'm';
  if (m) return m + 'm ' + s + 's';
  return s + 's';
}

// A date a person reads: the browser's local time, to the second
// ("2025-11-22 10:24:02"). The API keeps epoch milliseconds.
function fmtDate(ms) {
  const d = new Date(ms);
  const p = (n) => String(n).padStart(2, '0');
  return d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate()) + ' ' +
      p(d.getHours()) + ':' + p(d.getMinutes()) + ':' + p(d.getSeconds());
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
function svgEl(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  return e;
}

// Per-second rate of a counter between consecutive samples.
function rates(pick) {
  const out = [];
  for (let i = 1; i < samples.length; i++) {
    const dt = (samples[i].stats.time_ms - samples[i - 1].stats.time_ms) / 1000;
    const dv = pick(samples[i].stats) - pick(samples[i - 1].stats);
    out.push({t: samples[i].t, v: dt > 0 && dv >= 0 ? dv / dt : 0});
  }
  return out;
}
function values(pick) {
  return samples.map((s) => ({t: s.t, v: pick(s.stats)}));
}

// The smallest 1, 2 or 5 times a power of ten that is >= v.
function niceCeil(v) {
  if (v <= 0) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

// Draws `series` ([{name, points}]) in the figure `id`, values printed
// with `fmt`; `fixedMax` pins the y axis (e.g. 1 for a ratio).
function chart(id, series, fmt, fixedMax) {
  const fig = $(id);
  // Drawn at the figure's own pixel size, so text is never stretched.
  const W = Math.max(fig.clientWidth - 24, 200), H = 150, L = 58, R = 8, T = 8, B = 18;
  fig.replaceChildren();
  fig.appendChild(el('div', 'title', fig.dataset.title));
  const svg = svgEl('svg', {viewBox: `0 0 ${W} ${H}`, width: W, height: H,
                            role: 'img', 'aria-label': fig.dataset.title});
  const now = samples.length ? samples[samples.length - 1].t : Date.now();
  // The window grows with the history, from ten seconds to five minutes.
  const first = samples.length ? samples[0].t : now;
  const span = Math.min(Math.max(now - first, 10000), HISTORY * 1000);
  const t0 = now - span;
  let max = 0;
  for (const s of series) for (const p of s.points) max = Math.max(max, p.v);
  max = fixedMax || niceCeil(max * 1.05);
  const x = (t) => L + (W - L - R) * (t - t0) / span;
  const y = (v) => T + (H - T - B) * (1 - v / max);
  for (let i = 0; i <= 4; i++) {
    const v = max * i / 4;
    svg.appendChild(svgEl('line', {class: 'grid', x1: L, x2: W - R, y1: y(v), y2: y(v)}));
    const label = svgEl('text', {class: 'axis', x: L - 6, y: y(v) + 3, 'text-anchor': 'end'});
    label.textContent = fmt(v);
    svg.appendChild(label);
  }
  const step = [2000, 5000, 10000, 15000, 30000, 60000].find((st) => span / st <= 5) || 60000;
  for (let ago = step; ago <= span; ago += step) {
    const label = svgEl('text', {class: 'axis', x: x(now - ago), y: H - 3,
                                 'text-anchor': ago + step > span ? 'start' : 'middle'});
    label.textContent = ago % 60000 ? '-' + ago / 1000 + 's' : '-' + ago / 60000 + ' min';
    svg.appendChild(label);
  }
  series.forEach((s, i) => {
    const pts = s.points.filter((p) => p.t >= t0);
    if (!pts.length) return;
    const d = pts.map((p, k) => (k ? 'L' : 'M') + x(p.t).toFixed(1) + ' ' +
                               y(p.v).toFixed(1)).join(' ');
    svg.appendChild(svgEl('path', {class: 'series s' + i, d: d,
                                   'data-series': s.name}));
  });
  fig.appendChild(svg);
  const legend = el('div', 'legend');
  series.forEach((s, i) => {
    const item = el('span', 's' + i, s.name);
    const last = s.points.length ? s.points[s.points.length - 1].v : 0;
    item.appendChild(el('b', '', fmt(last)));
    legend.appendChild(item);
  });
  fig.appendChild(legend);
}

function setText(id, text) {
  const e = $(id);
  if (e.textContent !== text) e.textContent = text;
}

function fillTable(id, rows) {
  const body = $(id).tBodies[0];
  body.replaceChildren();
  for (const row of rows) {
    const tr = el('tr');
    row.forEach((cell, i) => {
      const numeric = typeof cell === 'number';
      const numberLike = numeric || /^[0-9.,]+[kMG]?$/.test(cell);
      const td = el('td', numberLike && i > 0 ? 'num' : (i === 0 ? 'name' : ''),
                    numeric ? fmtInt(cell) : String(cell));
      if (i === 0) td.title = String(cell);
      tr.appendChild(td);
    });
    body.appendChild(tr);
  }
  if (!rows.length) {
    const tr = el('tr');
    const td = el('td', 'muted', 'none');
    td.colSpan = $(id).tHead.rows[0].cells.length;
    tr.appendChild(td);
    body.appendChild(tr);
  }
}

function fillKv(id, pairs) {
  const dl = $(id);
  dl.replaceChildren();
  for (const [k, v, bad] of pairs) {
    dl.appendChild(el('dt', '', k));
    dl.appendChild(el('dd', bad ? 'bad' : '', v));
  }
}

function render(s) {
  const f = s.frontier, srv = s.server, p = s.persistence, m = s.memory;
  setText('version', srv.version);
  setText('uptime', fmtDuration(srv.uptime_ms));
  setText('started', fmtDate(s.time_ms - srv.uptime_ms));
  const writes = $('writes');
  writes.textContent = p.writes_refused ? 'writes refused' : 'writes ok';
  writes.className = 'pill ' + (p.writes_refused ? 'bad' : 'ok');
  // Queued + leased + done + scheduled + dead + excluded = URLs.
  for (const k of ['urls', 'queued', 'leased', 'done', 'scheduled', 'dead', 'excluded',
                   'sites']) {
    setText('v-' + k, fmtInt(f[k]));
  }
  setText('v-clients', fmtInt(srv.connected_clients));

  chart('chart-throughput', [
    {name: 'popped', points: rates((x) => x.frontier.popped)},
    {name: 'added', points: rates((x) => x.frontier.added)},
    {name: 'confirmed', points: rates((x) => x.frontier.confirmed)},
    {name: 'failed', points: rates((x) => x.frontier.failed)},
  ], fmtShort);
  chart('chart-queue', [
    {name: 'queued', points: values((x) => x.frontier.queued)},
    {name: 'leased', points: values((x) => x.frontier.leased)},
    {name: 'scheduled', points: values((x) => x.frontier.scheduled)},
  ], fmtShort);
  chart('chart-sites', [
    {name: 'ready', points: values((x) => x.frontier.ready_sites)},
    {name: 'waiting', points: values((x) => x.frontier.waiting_sites)},
    {name: 'busy', points: values((x) => x.frontier.busy_sites)},
  ], fmtShort);
  chart('chart-commands', [
    {name: 'commands', points: rates((x) => x.server.total_commands_processed)},
    {name: 'log flushes', points: rates((x) => x.persistence.log_flushes)},
  ], fmtShort);
  chart('chart-memory', [
    {name: 'RSS', points: values((x) => x.memory.rss_bytes)},
    {name: 'data on disk', points: values((x) => x.memory.data_bytes)},
  ], fmtBytes);
  chart('chart-cache', [
    {name: 'hit ratio', points: values((x) => x.memory.cache_hit_ratio || 0)},
  ], (v) => (v * 100).toFixed(v >= 0.1 || v === 0 ? 0 : 1) + '%', 1);

  // Every crawl's counts, DEFAULT first (/api/stats "crawls").
  fillTable('crawls', s.crawls.map((x) => [x.name, x.urls, x.queued, x.leased, x.done,
                                           x.excluded, x.sites]));
  fillTable('sites', s.largest_sites.map((x) => [x.name, x.queued, x.leased, x.urls]));
  fillKv('site-states', [
    ['ready', fmtInt(f.ready_sites)],
    ['waiting (politeness delay)', fmtInt(f.waiting_sites)],
    ['busy (at site-max-leases)', fmtInt(f.busy_sites)],
  ]);
  const flushes = p.log_flushes;
  fillKv('persistence', [
    ['fsync', p.fsync],
    ['log flushes', fmtInt(flushes) + (flushes ?
        ' · avg ' + (p.log_flush_ns_sum / flushes / 1000).toFixed(0) + ' µs · ' +
        (p.commits_flushed / flushes).toFixed(1) + ' commits each' : '')],
    ['last log flush', p.last_log_flush_ok ? 'ok' : 'failed', !p.last_log_flush_ok],
    ['last checkpoint', p.last_checkpoint_ms ?
        fmtDate(p.last_checkpoint_ms) + ' (' +
        fmtDuration(s.time_ms - p.last_checkpoint_ms) + ' ago), took ' +
        p.last_checkpoint_duration_ms + ' ms' + (p.last_checkpoint_ok ? '' : ' (failed)')
        : 'none since start', !p.last_checkpoint_ok],
    ['write errors', p.writes_refused ? p.last_write_error : 'none', p.writes_refused],
    ['recovery at start', p.recovery_ms + ' ms'],
    ['RSS / data / cache', fmtBytes(m.rss_bytes) + ' / ' + fmtBytes(m.data_bytes) +
        ' / ' + fmtBytes(m.cache_size_bytes)],
  ]);
  setText('clients-note', srv.connected_clients + ' connected, ' +
          srv.blocked_clients + ' in BPOP');
  fillTable('clients', s.clients.map((c) => [String(c.id), c.addr, c.name || '–',
      c.cmd || '–', fmtDuration(c.idle_ms)]));
  // The replication group (/api/stats "replication"), with replication yes:
  // each site by its replication address, where clients reach it ('–'
  // until the group's directory names it), its link to this site, its log
  // offset and, for a replica on the master, the bytes of the master's log
  // it lacked at its last report and how old that report is.
  const repl = s.replication;
  $('replication-panel').hidden = !repl || repl.role === 'none';
  if (repl && repl.role !== 'none') {
    setText('replication-note', 'this site is the ' + repl.role + ', ' +
            repl.group_sites + ' sites in the group');
    const lag = (x) => x.self || x.lag_seconds === undefined ? '–'
        : x.lag_seconds < 0 ? 'no report yet'
        : fmtBytes(x.lag_bytes) + ' (' + x.lag_seconds + ' s ago)';
    fillTable('replication', repl.sites.map((x) => [x.site, x.role,
        x.self ? 'this site' : x.link, x.client || '–',
        x.offset === undefined ? '–' : String(x.offset), lag(x)]));
  }
  const prev = samples.length > 1 ? samples[samples.length - 2] : null;
  const dt = prev ? (s.time_ms - prev.stats.time_ms) / 1000 : 0;
  const before = new Map(prev ? prev.stats.commands.map((c) => [c.name, c.calls]) : []);
  fillTable('commands', s.commands.slice().sort((a, b) => b.calls - a.calls).map((c) => [
    c.name, c.calls, (c.usec / Math.max(c.calls, 1)).toFixed(1),
    dt > 0 ? fmtShort(Math.max(0, c.calls - (before.get(c.name) || 0)) / dt) : '–']));
}

async function poll() {
  const live = $('live');
  try {
    const r = await fetch('/api/stats', {cache: 'no-store'});
    if (!r.ok) throw new Error('HTTP ' + r.status);
    const stats = await r.json();
    samples.push({t: Date.now(), stats: stats});
    while (samples.length > HISTORY + 1) samples.shift();
    render(stats);
    live.textContent = 'live';
    live.className = 'pill ok';
  } catch (e) {
    live.textContent = 'disconnected';
    live.className = 'pill bad';
  }
  setTimeout(poll, POLL_MS);
}

poll();
