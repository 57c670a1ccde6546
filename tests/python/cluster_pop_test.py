"""POP and BPOP ... ANYSHARD on a cluster (issue 21, docs/cluster.md):
three one-process shards on 127.0.0.2-.4 (cluster_harness.py's Cluster),
each process stopped by its PID, every wait bounded.

- POP ANYSHARD takes from this node's shard first, then from another
  shard when this one has nothing ready; the lease lives on the owner, so
  CONFIRM through any node finds it; with nothing anywhere it answers as
  POP does (nil, or an empty array with COUNT);
- a shard that does not answer is passed over, within the forward timeout;
- BPOP ANYSHARD takes another shard's URL at once, and with nothing
  anywhere waits on this shard as BPOP does (a URL added here later is
  its answer; else nil at its timeout);
- without ANYSHARD, POP and BPOP serve this node's shard only.

    python3 cluster_pop_test.py path/to/frontierd
"""
import os
import signal
import sys
import threading
import time
import unittest

import redis
from redis.crc import key_slot

import cluster_harness
from cluster_harness import Cluster, shard_of_slot


def urls_of_shard(shard, n, tag="p"):
    out = []
    for i in range(10000):
        site = f"{tag}{i}.example"
        if shard_of_slot(key_slot(site.encode())) == shard:
            out.append(f"http://{site}/")
            if len(out) == n:
                return out
    raise AssertionError("no such sites")


class ClusterPopTest(unittest.TestCase):
    def test_pop_anyshard_takes_from_other_shards_when_this_one_is_empty(self):
        with Cluster() as c:
            r = [c.client(i) for i in range(3)]
            far = urls_of_shard(2, 3)
            for url in far:
                self.assertEqual(r[1].execute_command("ADD", url), 1)
            # Plain POP serves this node's shard only.
            self.assertIsNone(r[0].execute_command("POP"))
            self.assertEqual(r[0].execute_command("POP", "COUNT", "2"), [])
            got = r[0].execute_command("POP", "ANYSHARD").decode()
            self.assertIn(got, far)
            # Leased on its owner; CONFIRM through another node finds it.
            info = r[1].execute_command("URLINFO", got)
            self.assertEqual(dict(zip(info[0::2], info[1::2]))[b"state"],
                             b"leased")
            self.assertEqual(r[0].execute_command("CONFIRM", got), 1)
            rest = r[1].execute_command("POP", "COUNT", "5", "LEASE", "30",
                                        "anyshard")
            self.assertEqual(sorted(u.decode() for u in rest),
                             sorted(u for u in far if u != got))
            # Nothing anywhere: POP's own empty answers.
            self.assertIsNone(r[0].execute_command("POP", "ANYSHARD"))
            self.assertEqual(
                r[0].execute_command("POP", "COUNT", "2", "ANYSHARD"), [])
            # This shard first.
            near = urls_of_shard(0, 1, "q")[0]
            other = urls_of_shard(2, 1, "q")[0]
            self.assertEqual(r[0].execute_command("ADD", other), 1)
            self.assertEqual(r[0].execute_command("ADD", near), 1)
            self.assertEqual(r[0].execute_command("POP", "ANYSHARD").decode(),
                             near)
            # A shard that does not answer is passed over in time.
            os.kill(c.nodes[1].proc.pid, signal.SIGSTOP)
            try:
                started = time.monotonic()
                self.assertEqual(
                    r[0].execute_command("POP", "ANYSHARD").decode(), other)
                self.assertLess(time.monotonic() - started,
                                cluster_harness.FORWARD_TIMEOUT_S + 2)
                started = time.monotonic()
                self.assertIsNone(r[0].execute_command("POP", "ANYSHARD"))
                self.assertLess(time.monotonic() - started,
                                cluster_harness.FORWARD_TIMEOUT_S + 2)
            finally:
                os.kill(c.nodes[1].proc.pid, signal.SIGCONT)
            # A bad option is refused before anything is asked.
            with self.assertRaises(redis.ResponseError):
                r[0].execute_command("POP", "ANYSHARD", "COUNT", "0")

    def test_bpop_anyshard_takes_elsewhere_then_waits_here(self):
        with Cluster() as c:
            r = [c.client(i) for i in range(3)]
            far = urls_of_shard(1, 1)[0]
            self.assertEqual(r[0].execute_command("ADD", far), 1)
            started = time.monotonic()
            self.assertEqual(
                r[0].execute_command("BPOP", "5", "ANYSHARD").decode(), far)
            self.assertLess(time.monotonic() - started, 3)
            # Nothing anywhere: it waits here until its timeout...
            started = time.monotonic()
            self.assertIsNone(
                r[0].execute_command("BPOP", "0.5", "ANYSHARD"))
            took = time.monotonic() - started
            self.assertGreaterEqual(took, 0.4)
            self.assertLess(took, 5)
            # ...or until a URL of this shard comes.
            near = urls_of_shard(0, 1, "w")[0]
            answer = {}

            def wait():
                answer["v"] = c.client(0).execute_command(
                    "BPOP", "10", "COUNT", "1", "ANYSHARD")

            waiter = threading.Thread(target=wait)
            waiter.start()
            time.sleep(0.5)
            self.assertEqual(r[2].execute_command("ADD", near), 1)
            waiter.join(15)
            self.assertFalse(waiter.is_alive())
            self.assertEqual(answer["v"], [near.encode()])
            # Without ANYSHARD, BPOP serves this shard only.
            self.assertEqual(r[0].execute_command(
                "ADD", urls_of_shard(2, 1, "z")[0]), 1)
            self.assertIsNone(r[0].execute_command("BPOP", "0.3"))


if __name__ == "__main__":
    cluster_harness.BINARY = sys.argv.pop(1)
    unittest.main()
