"""frontier-worker on a three-shard cluster (issue 21, docs/cluster.md,
docs/worker.md): three one-process shards on 127.0.0.2-.4 (cluster_harness.py's
Cluster), a web site of eight hosts on 127.0.0.10-.17 served from this
process (tests/clients/example_worker_test.py's Site), and one
frontier-worker given the three nodes (--nodes). Every process is stopped
by its PID, every wait bounded.

- every page is fetched exactly once, whatever shard its site lives on (the
  worker, connected to one node, takes the other shards' URLs with BPOP
  ANYSHARD; its MADDs spread the links over the shards), and politely: never
  two fetches of one host at once;
- the worker stops by itself when STATS CLUSTER says nothing is queued or
  leased on any shard (--exit-when-done);
- a node of --nodes that does not answer is passed over.

    python3 cluster_worker_test.py path/to/frontierd
"""
import os
import subprocess
import sys
import time
import unittest

from redis.crc import key_slot

import cluster_harness
from cluster_harness import HOSTS, Cluster, shard_of_slot
import servers

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "clients"))
from example_worker_test import Site  # noqa: E402

SITE_HOSTS = [f"127.0.0.{10 + i}" for i in range(8)]
PAGES = 6


class PoliteSite(Site):
    """Site, counting the fetches of each host in progress at once."""

    def __init__(self, hosts):
        super().__init__(hosts)
        self.busy = {h: 0 for h in hosts}
        self.most = {h: 0 for h in hosts}
        inner = self.servers[0].RequestHandlerClass.do_GET
        site = self

        def do_get(handler):
            host = handler.server.server_address[0]
            with site.lock:
                site.busy[host] += 1
                site.most[host] = max(site.most[host], site.busy[host])
            time.sleep(0.02)
            try:
                inner(handler)
            finally:
                with site.lock:
                    site.busy[host] -= 1

        for server in self.servers:
            server.RequestHandlerClass.do_GET = do_get


class ClusterWorkerTest(unittest.TestCase):
    def test_one_worker_crawls_every_shard_once_politely(self):
        worker_binary = os.path.join(
            os.path.dirname(os.path.abspath(cluster_harness.BINARY)),
            "frontier-worker")
        self.assertTrue(os.path.exists(worker_binary), worker_binary)
        owners = {shard_of_slot(key_slot(h.encode())) for h in SITE_HOSTS}
        self.assertGreaterEqual(len(owners), 2, owners)
        site = PoliteSite(SITE_HOSTS)
        try:
            # Page i of host k links to page i+1 of its host and page i of
            # the next host: every page is reachable from the seed.
            for k, host in enumerate(SITE_HOSTS):
                nxt = SITE_HOSTS[(k + 1) % len(SITE_HOSTS)]
                for i in range(PAGES):
                    links = [site.url(nxt, f"/{i}")]
                    if i + 1 < PAGES:
                        links.append(f"/{i + 1}")
                    site.pages[(host, f"/{i}")] = " ".join(
                        f'<a href="{u}">x</a>' for u in links)
            with Cluster() as c:
                r = c.client(0)
                self.assertEqual(r.execute_command(
                    "ADD", site.url(SITE_HOSTS[0], "/0")), 1)
                # The first node named answers nothing: passed over.
                dead = f"127.0.0.2:{servers.free_port('127.0.0.2')}"
                nodes = ",".join([dead] + [f"{h}:{p}" for h, p in
                                           zip(HOSTS, c.ports)])
                out = open(os.path.join(c.tmp, "worker.out"), "wb")
                worker = subprocess.Popen(
                    [worker_binary, "--nodes", nodes, "--exit-when-done",
                     "-c", "4", "--reconnect", "0"],
                    stdout=out, stderr=subprocess.STDOUT)
                try:
                    code = worker.wait(timeout=90)
                finally:
                    if worker.poll() is None:
                        worker.kill()
                        worker.wait()
                    out.close()
                with open(os.path.join(c.tmp, "worker.out"),
                          errors="replace") as f:
                    log = f.read()
                self.assertEqual(code, 0, log[-3000:])
                counts = {}
                for host, path, _ in site.log:
                    counts[(host, path)] = counts.get((host, path), 0) + 1
                want = {(h, f"/{i}") for h in SITE_HOSTS for i in range(PAGES)}
                self.assertEqual(set(counts), want)
                self.assertEqual(set(counts.values()), {1}, counts)
                self.assertEqual(set(site.most.values()), {1}, site.most)
                stats = r.execute_command("STATS", "CLUSTER")
                summed = dict(zip(stats[0::2], stats[1::2]))
                self.assertEqual(summed[b"done"], len(want))
                self.assertEqual(summed[b"queued"], 0)
                # Each shard holds its own sites' pages.
                for i, p in enumerate(c.client(k) for k in range(3)):
                    mine = sum(PAGES for h in SITE_HOSTS
                               if shard_of_slot(key_slot(h.encode())) == i)
                    self.assertEqual(p.execute_command("DBSIZE"), mine)
        finally:
            site.close()


if __name__ == "__main__":
    cluster_harness.BINARY = sys.argv.pop(1)
    unittest.main()
