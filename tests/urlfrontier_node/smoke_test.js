// URL Frontier's gRPC API through a second, independent HTTP/2 and gRPC
// stack (@grpc/grpc-js, pure JavaScript, and proto-loader reading the
// project's proto at run time): PutURLs acks each item (SKIPPED for an
// invalid URL), GetURLs hands the URLs out once with metadata, ListCrawls
// and GetStats answer. Starts its own frontierd on free loopback ports in a
// temp dir and stops it by PID.
//
//   node smoke_test.js path/to/frontierd
'use strict';

const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO = path.join(__dirname, '..', '..', 'proto', 'urlfrontier.proto');

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

function unary(client, method, request) {
  return new Promise((resolve, reject) => {
    client[method](request, { deadline: Date.now() + 10000 },
                   (err, reply) => (err ? reject(err) : resolve(reply)));
  });
}

function collect(call) {
  return new Promise((resolve, reject) => {
    const out = [];
    call.on('data', (m) => out.push(m));
    call.on('end', () => resolve(out));
    call.on('error', reject);
  });
}

async function main() {
  const binary = path.resolve(process.argv[2]);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'frontierd-node-'));
  const port = await freePort();
  const grpcPort = await freePort();
  const server = spawn(binary, [
    '--port', String(port), '--bind', '127.0.0.1', '--dir',
    path.join(dir, 'data'), '--logfile', path.join(dir, 'frontierd.log'),
    '--urlfrontier-port', String(grpcPort), '--politeness-delay', '0',
  ], { stdio: 'ignore' });
  try {
    const def = protoLoader.loadSync(PROTO, {
      keepCase: true, defaults: true, enums: String,
    });
    const { urlfrontier } = grpc.loadPackageDefinition(def);
    const client = new urlfrontier.URLFrontier(
      `127.0.0.1:${grpcPort}`, grpc.credentials.createInsecure());
    await new Promise((resolve, reject) => client.waitForReady(
      Date.now() + 15000, (err) => (err ? reject(err) : resolve())));

    const put = client.PutURLs({ deadline: Date.now() + 10000 });
    const acks = collect(put);
    const item = (url, ID) => ({
      ID,
      discovered: { info: { url, metadata: { from: { values: ['node'] } } } },
    });
    put.write(item('https://example.com/node', 'a'));
    put.write(item('no scheme at all', 'b'));
    put.write(item('https://example.org/node', 'c'));
    put.end();
    const byId = Object.fromEntries((await acks).map((a) => [a.ID, a.status]));
    assert.deepEqual(byId, { a: 'OK', b: 'SKIPPED', c: 'OK' });

    const got = await collect(client.GetURLs(
      { max_queues: 10, max_urls_per_queue: 1 },
      { deadline: Date.now() + 10000 }));
    assert.deepEqual(got.map((u) => u.url).sort(),
                     ['https://example.com/node', 'https://example.org/node']);
    for (const u of got) {
      assert.deepEqual(u.metadata.from.values, ['node']);
      assert.equal(u.crawlID, 'DEFAULT');
    }
    const again = await collect(client.GetURLs(
      { max_queues: 10 }, { deadline: Date.now() + 10000 }));
    assert.equal(again.length, 0);

    const crawls = await unary(client, 'ListCrawls', {});
    assert.deepEqual(crawls.values, ['DEFAULT']);
    const stats = await unary(client, 'GetStats', {});
    assert.equal(Number(stats.inProcess), 2);
    client.close();
    console.log('urlfrontier node smoke test: OK');
  } finally {
    server.kill('SIGTERM');
    await new Promise((resolve) => {
      const timer = setTimeout(() => { server.kill('SIGKILL'); resolve(); },
                               10000);
      server.on('exit', () => { clearTimeout(timer); resolve(); });
    });
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
