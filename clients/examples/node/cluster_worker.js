#!/usr/bin/env node
// The example worker (worker.js) against a frontierd cluster
// (docs/cluster.md), with ioredis's Cluster:
//
//   FRONTIERD_CLUSTER=host:port[,host:port...] \
//       node clients/examples/node/cluster_worker.js [seed-url ...]
//
// The client reads the cluster's map (CLUSTER SLOTS) from the nodes given.
// Every URL is written "{site}url", its site in a Redis Cluster hash tag,
// so ADD, MADD (placed by its ref, the page) and CONFIRM/FAIL go straight
// to the shard that owns the site: nothing is forwarded. The site is the
// URL's host, as frontierd names it under `politeness-scope host` (its
// default). BPOP has no key: ioredis sends it to a node of its choice, with
// ANYSHARD, so that it takes another shard's URL when that node's shard
// has none ready. Password FRONTIERD_PASSWORD if set. The loop is
// worker.js's crawl(); SIGINT or SIGTERM stop it after the page in hand.
'use strict';

const Redis = require('ioredis');
const calculateSlot = require('cluster-key-slot');
const { crawl } = require('./worker.js');

// url as a key of its site's slot: "{site}url".
function tagged(url) {
  return '{' + new URL(url).hostname + '}' + url;
}

// NAME "{site}url" args... on the shard of url's site. ioredis does not
// know frontierd's commands, hence not their keys: it is given the slot
// (a MOVED would be followed all the same).
function onShard(rc, name, url, ...args) {
  const key = tagged(url);
  const command = new Redis.Command(name, [key, ...args],
      { replyEncoding: 'utf8' });
  command.slot = calculateSlot(key);
  return rc.sendCommand(command);
}

function connect() {
  const nodes = process.env.FRONTIERD_CLUSTER.split(',').map((address) => {
    const colon = address.lastIndexOf(':');
    return { host: address.slice(0, colon),
             port: Number(address.slice(colon + 1)) };
  });
  return new Redis.Cluster(nodes, {
    // frontierd is not a Redis: no INFO-based ready check.
    enableReadyCheck: false,
    redisOptions: { password: process.env.FRONTIERD_PASSWORD || undefined },
  });
}

async function main() {
  const rc = connect();
  await crawl({
    // Straight to the URL's shard; a MADD there sends the links of other
    // shards on, one command to each.
    call: (name, url, ...args) => onShard(rc, name, url, ...args),
    // Any node; ANYSHARD: another shard's URL if that one has none.
    bpop: () => rc.call('BPOP', 1, 'ANYSHARD'),
  }, process.argv.slice(2));
  rc.disconnect();
}

main().catch((error) => {
  console.error('worker:', error.message);
  process.exit(1);
});
