#!/usr/bin/env node
// A minimal frontierd crawler worker in Node.js, the README's Python worker
// translated: ioredis for frontierd, the built-in fetch for pages.
//
//   npm install --no-package-lock --prefix clients/examples/node
//   node clients/examples/node/worker.js [seed-url ...]
//
// Connects to FRONTIERD_HOST and FRONTIERD_PORT (default 127.0.0.1:7379),
// password FRONTIERD_PASSWORD if set; or, with FRONTIERD_SENTINELS=
// host:port,... (a replication group's sites), to the master they name
// (FRONTIERD_REPL_NAME, default frontierd), and to the new one after a
// failover: a command that failed with the old master is re-issued. Each seed is added; then it leases a
// URL (BPOP), fetches it, adds the page's links (MADD, the page as ref) and
// confirms it (CONFIRM, with the HTTP status and the fetch time), or
// reports a failure (FAIL with a delay). SIGINT
// or SIGTERM stop it after the page in hand; a URL leased and not fetched
// is handed back.
'use strict';

const Redis = require('ioredis');

const HREF = /href\s*=\s*["']([^"'#]*)/gi;
const MAX_BYTES = 2000000;
const RETRY_DELAY = 60; // seconds before a failed fetch is tried again

let stopping = false;
process.on('SIGINT', () => { stopping = true; });
process.on('SIGTERM', () => { stopping = true; });

async function fetchPage(url) {
  const response = await fetch(url, {
    headers: { 'User-Agent': 'frontierd-example-node/0.1' },
    redirect: 'follow',
    signal: AbortSignal.timeout(30000),
  });
  const text = await response.text();
  return { status: response.status, finalUrl: response.url || url,
           html: text.slice(0, MAX_BYTES) };
}

function linksOf(html, base) {
  const links = new Set();
  for (const match of html.matchAll(HREF)) {
    try {
      const link = new URL(match[1], base);
      link.hash = '';
      if (link.protocol === 'http:' || link.protocol === 'https:') {
        links.add(link.href);
      }
    } catch (error) {
      // not a URL: skipped, as a browser would
    }
  }
  return [...links];
}

// What a failover of a replication group makes a command fail with: the
// connection lost, or an answer from a site that is no longer the master.
const RETRYABLE = new RegExp('^(NOQUORUM|NOREPLICAS|READONLY|TRYAGAIN)|Connection is ' +
    "closed|ECONNRE|EPIPE|Stream isn't writeable|max retries per request", 'i');
const RETRY_FOR = 60000; // ms

async function again(call) {
  const deadline = Date.now() + RETRY_FOR;
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (!RETRYABLE.test(error.message) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

function connect() {
  const options = {
    password: process.env.FRONTIERD_PASSWORD || undefined,
    // frontierd is not a Redis: no INFO-based ready check, no retries that
    // would replay a BPOP (again() re-issues what a failover broke).
    enableReadyCheck: false,
    maxRetriesPerRequest: 0,
    // A master that became a replica: connect again, to the one the
    // sentinels name now.
    reconnectOnError: (error) => /^READONLY/.test(error.message),
  };
  const sentinels = process.env.FRONTIERD_SENTINELS;
  if (sentinels) {
    options.sentinels = sentinels.split(',').map((site) => {
      const colon = site.lastIndexOf(':');
      return { host: site.slice(0, colon), port: Number(site.slice(colon + 1)) };
    });
    options.name = process.env.FRONTIERD_REPL_NAME || 'frontierd';
    options.sentinelPassword = options.password;
  } else {
    options.host = process.env.FRONTIERD_HOST || '127.0.0.1';
    options.port = Number(process.env.FRONTIERD_PORT || 7379);
  }
  return new Redis(options);
}

// The crawl: `frontier.call(name, url, ...args)` runs a command on the
// URL (re-issued as a failover requires), `frontier.bpop()` leases a URL
// (null when none came within 1 s). cluster_worker.js gives its own.
async function crawl(frontier, seeds) {
  for (const seed of seeds) await frontier.call('ADD', seed);
  while (!stopping) {
    const url = await frontier.bpop();
    if (url === null) continue;
    if (stopping) { // leased while stopping: give it back at once
      await frontier.call('FAIL', url);
      break;
    }
    const started = Date.now();
    let page;
    try {
      page = await fetchPage(url);
    } catch (error) { // no answer: try again later
      console.log('failed:', url, error.message);
      await frontier.call('FAIL', url, 'DELAY', RETRY_DELAY);
      continue;
    }
    if (page.status === 429 || page.status >= 500) {
      console.log(page.status, url);
      await frontier.call('FAIL', url, 'DELAY', RETRY_DELAY);
      continue;
    }
    const links = page.status < 300 ? linksOf(page.html, page.finalUrl) : [];
    if (links.length > 0) {
      // One reply per link: 1 new, 0 known, -1 refused, or an error for a
      // link that is not a valid URL.
      await frontier.call('MADD', url, ...links);
    }
    const fetchMs = Date.now() - started;
    await frontier.call('CONFIRM', url, 'STATUS', page.status,
        'FETCH-MS', fetchMs);
    console.log(page.status, url, links.length, 'links');
  }
}

async function main() {
  const r = connect();
  await crawl({
    call: (...args) => again(() => r.call(...args)),
    // wait up to 1 s for a ready URL
    bpop: () => again(() => r.call('BPOP', 1)),
  }, process.argv.slice(2));
  r.disconnect();
}

module.exports = { crawl };

// Run, not required by cluster_worker.js.
if (require.main === module) {
  main().catch((error) => {
    console.error('worker:', error.message);
    process.exit(1);
  });
}
