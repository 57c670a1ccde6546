"""The failover hold (issue 21, docs/cluster.md, "The failover hold"): a
command forwarded to a shard that has no reachable master waits, up to
cluster-failover-hold, and is sent once the shard has a master again.

Shard a is a replicated group of three (127.0.0.2-.4), shard b one process
(127.0.0.5), from a cluster file. A client ADDs URLs of shard a through
shard b's node, one at a time, with no retry of its own:

- shard a's master is killed with SIGKILL while the client writes: the
  group elects a new master, and the client sees no error (its commands
  are held, then served by the new master); every acknowledged URL is on
  the new master;
- then the new master is killed too: the one member left cannot be
  elected, and an ADD gets CLUSTERDOWN once the hold is over (not before).

Every process is stopped by its PID; every wait is bounded.

    python3 cluster_failover_test.py path/to/frontierd
"""
import signal
import sys
import threading
import time
import unittest

import redis
from redis.crc import key_slot

import cluster_harness
from cluster_etcd_test import wait_for
from cluster_harness import GroupCluster

SPLIT = 8191  # shard a: 0-8191, shard b: 8192-16383
HOLD_S = 8


def url_of_shard_a(start):
    """The first URL from `start` on whose site is in shard a, and the
    number to go on from."""
    for i in range(start, start + 10_000):
        site = f"s{i}.example"
        if key_slot(site.encode()) <= SPLIT:
            return f"http://{site}/p", i + 1
    raise AssertionError("no URL found")


class Writer(threading.Thread):
    """ADDs URLs of shard a through `client`, one at a time; an error is
    a failure (no retry here: the hold is what is tested)."""

    def __init__(self, client):
        super().__init__(daemon=True)
        self.client = client
        self.stop = threading.Event()
        self.acked_urls = []
        self.errors = []
        self.slowest_s = 0.0

    def run(self):
        n = 0
        while not self.stop.is_set() and len(self.acked_urls) < 50_000:
            url, n = url_of_shard_a(n)
            started = time.monotonic()
            try:
                self.client.execute_command("ADD", url)
                self.acked_urls.append(url)
            except (redis.RedisError, OSError) as e:
                self.errors.append(f"{url}: {e}")
            self.slowest_s = max(self.slowest_s, time.monotonic() - started)
            time.sleep(0.005)


class ClusterFailoverTest(unittest.TestCase):
    def test_a_failover_is_held_and_a_shard_without_master_is_clusterdown(
            self):
        writer = None
        with GroupCluster("--politeness-delay", "0",
                          "--cluster-forward-timeout", "2",
                          "--cluster-failover-hold", str(HOLD_S),
                          repl_extra=("--repl-election-timeout", "2")) as g:
            try:
                clients = [g.client(i, timeout=60) for i in range(4)]
                wait_for(lambda: clients[0].info("replication")[
                    "repl_sites"] == 3, 30, "shard a's group of three")
                b = clients[3]

                writer = Writer(b)
                writer.start()
                wait_for(lambda: len(writer.acked_urls) >= 30, 20,
                         "forwarded writes")
                # Kill -9 the master in the middle of the writes.
                before = len(writer.acked_urls)
                killed = time.monotonic()
                g.nodes[0].proc.send_signal(signal.SIGKILL)
                g.nodes[0].proc.wait(timeout=10)
                wait_for(lambda: any(
                    clients[i].execute_command("ROLE")[0] == b"master"
                    for i in (1, 2)), 30, "a new master of shard a")
                wait_for(lambda: len(writer.acked_urls) >= before + 30, 30,
                         "writes through b to the new master")
                served = time.monotonic() - killed
                writer.stop.set()
                writer.join(timeout=30)
                print(f"writes reached the new master {served:.2f} s after "
                      f"SIGKILL; the slowest ADD took "
                      f"{writer.slowest_s:.2f} s; {len(writer.acked_urls)} "
                      f"acknowledged", file=sys.stderr)
                self.assertEqual(writer.errors, [])
                info = b.info("cluster")
                self.assertGreater(info["cluster_forward_held"], 0)
                self.assertEqual(info["cluster_forward_held_bytes"], 0)
                roles = [clients[i].execute_command("ROLE")[0]
                         for i in (1, 2)]
                new = 1 if roles[0] == b"master" else 2
                # Every acknowledged ADD is on the new master.
                urls = writer.acked_urls
                for k in range(0, len(urls), 500):
                    part = urls[k:k + 500]
                    self.assertEqual(
                        clients[new].execute_command("MSEEN", *part),
                        [1] * len(part))

                # The new master killed too: the one member left cannot be
                # elected (a quorum is two of three), so the shard has no
                # master: the command is held, then CLUSTERDOWN.
                g.nodes[new].proc.send_signal(signal.SIGKILL)
                g.nodes[new].proc.wait(timeout=10)
                url, _ = url_of_shard_a(10**6)
                started = time.monotonic()
                with self.assertRaises(redis.ResponseError) as caught:
                    b.execute_command("ADD", url)
                took = time.monotonic() - started
                self.assertTrue(
                    str(caught.exception).startswith("CLUSTERDOWN"),
                    str(caught.exception))
                self.assertIn("cluster-failover-hold", str(caught.exception))
                self.assertGreaterEqual(took, HOLD_S * 0.9)
                self.assertLess(took, HOLD_S + 4)
                # Shard b itself goes on serving.
                url_b = next(f"http://t{i}.example/p" for i in range(10_000)
                             if key_slot(f"t{i}.example".encode()) > SPLIT)
                self.assertEqual(b.execute_command("ADD", url_b), 1)
            finally:
                if writer is not None:
                    writer.stop.set()
                    writer.join(timeout=30)


if __name__ == "__main__":
    cluster_harness.BINARY = sys.argv.pop(1)
    unittest.main()
