"""MADD over the shards of a cluster (issue 21, docs/cluster.md): three
one-process shards on 127.0.0.2-.4 (cluster_harness.py's Cluster), each
process stopped by its PID, every wait bounded.

- a MADD of 1,000 links over 300 sites, sent to a node that does not own
  its ref (forwarded there whole): each link is stored on the shard that
  owns its site (a tagged SEEN on the owner, which runs there on its own
  data), with the depth a MADD on one node gives it (the ref's depth + 1
  within the ref's depth-scope site, 1 outside it; max-depth refuses on
  every shard alike); the reply keeps argument order (a known link's
  element is 0, a new one's 1, a bad URL's an error in its place);
- with one shard stopped, only that shard's links get error elements,
  within cluster-forward-timeout; the others are stored; several MADDs at
  once keep the forwarder's bytes in flight (INFO) within its limit;
- MADDLINKS, the internal command, is refused to an ordinary client;
- the MADDs of one pass (several clients' MADDs read at once) send each
  other shard one MADDLINKS (INFO's cluster_madd_batches), each MADD's
  reply still its own links' answers in argument order, with its own
  ref's depth and values; MADDLINKS GROUPS with a wrong count refuses the
  whole command and stores nothing;
- SITE TOP [n] CLUSTER merges every shard's SITE TOP.

    python3 cluster_madd_test.py path/to/frontierd
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

MAX_BYTES = 64 * 1024
SITES = 300


def owner_of(site):
    return shard_of_slot(key_slot(site.encode()))


def link(i):
    site = f"s{i % SITES}.example.com"
    return f"http://{site}/p/{i}", site


def tagged(url, site):
    return "{" + site + "}" + url


class ClusterMaddTest(unittest.TestCase):
    def chain(self, r, depth):
        """A ref of depth `depth` on one host (its own shard), by ADDs."""
        prev = None
        for d in range(1, depth + 1):
            url = f"http://ref.example.com/{d}"
            args = ["ADD", url] + ([prev] if prev else [])
            r.execute_command(*args)
            prev = url
        info = r.execute_command("URLINFO", prev)
        self.assertEqual(int(dict(zip(info[0::2], info[1::2]))[b"depth"]), depth)
        return prev

    def depth_on_owner(self, c, url, site):
        info = c.client(owner_of(site)).execute_command(
            "URLINFO", tagged(url, site))
        return int(dict(zip(info[0::2], info[1::2]))[b"depth"])

    def test_madd_spreads_its_links_to_their_shards_in_order(self):
        with Cluster("--max-depth", "5") as c:
            plain = [c.client(i) for i in range(3)]
            ref = self.chain(plain[0], 2)
            ref_owner = owner_of("ref.example.com")
            sender = (ref_owner + 1) % 3  # forwarded to the ref's owner
            links = [link(i) for i in range(1000)]
            self.assertEqual({owner_of(s) for _, s in links}, {0, 1, 2})
            known = set(range(0, 1000, 7))
            for i in known:
                self.assertEqual(plain[i % 3].execute_command(
                    "ADD", links[i][0]), 1)
            argv = [u for u, _ in links]
            argv[500:500] = ["ftp://bad"]
            started = time.monotonic()
            reply = plain[sender].execute_command("MADD", ref, *argv)
            self.assertLess(time.monotonic() - started, 20)
            self.assertEqual(len(reply), 1001)
            self.assertIsInstance(reply[500], redis.ResponseError)
            del reply[500]
            for i, element in enumerate(reply):
                self.assertEqual(element, 0 if i in known else 1, i)
            # Each link on its owner, read there, and nowhere else.
            for url, site in links:
                owner = owner_of(site)
                self.assertEqual(plain[owner].execute_command(
                    "SEEN", tagged(url, site)), 1, url)
            counts = [p.execute_command("DBSIZE") for p in plain]
            expected = [0, 0, 0]
            for _, site in links:
                expected[owner_of(site)] += 1
            expected[ref_owner] += 2  # the ref's chain
            self.assertEqual(counts, expected)
            # SITE TOP ... CLUSTER: the largest queues of every shard,
            # merged (a site lives on one shard).
            merged = []
            for p in plain:
                top = p.execute_command("SITE", "TOP", "5")
                merged += list(zip(top[0::2], top[1::2]))
            merged.sort(key=lambda row: (-row[1], row[0]))
            flat = [x for row in merged[:5] for x in row]
            for p in plain:
                self.assertEqual(p.execute_command(
                    "SITE", "TOP", "5", "CLUSTER"), flat)
            self.assertEqual(len(plain[0].execute_command(
                "SITE", "TOP", "CLUSTER")), 20)
            # Depth as on one node: the ref's + 1 in its domain.
            for i in range(1, 1000, 37):
                if i in known:
                    continue
                self.assertEqual(self.depth_on_owner(c, *links[i]), 3, i)
            # A ref at max-depth: its domain's links are refused on every
            # shard, another domain's are added at depth 1.
            deep = self.chain(plain[0], 5)
            more = [(f"http://s{k}.example.com/deep", f"s{k}.example.com")
                    for k in range(60)]
            other = [(f"http://o{k}.example.org/x", f"o{k}.example.org")
                     for k in range(30)]
            self.assertEqual({owner_of(s) for _, s in more}, {0, 1, 2})
            reply = plain[sender].execute_command(
                "MADD", deep, *[u for u, _ in more + other])
            self.assertEqual(reply, [-1] * 60 + [1] * 30)
            for url, site in other:
                self.assertEqual(self.depth_on_owner(c, url, site), 1)
            # MADD ... DATA over shards: each value stored with its link.
            pairs = []
            for k in range(30):
                pairs += [f"http://d{k}.example.net/", f"value-{k}"]
            self.assertEqual(plain[sender].execute_command(
                "MADD", ref, "DATA", *pairs), [1] * 30)
            for k in range(30):
                url, site = f"http://d{k}.example.net/", f"d{k}.example.net"
                info = plain[owner_of(site)].execute_command(
                    "URLINFO", tagged(url, site))
                self.assertEqual(dict(zip(info[0::2], info[1::2]))[b"data"],
                                 f"value-{k}".encode())
            # The internal command is refused to an ordinary client, and
            # changes nothing.
            with self.assertRaises(redis.ResponseError) as caught:
                plain[0].execute_command("MADDLINKS", ref, "7", "example.com",
                                         "http://s1.example.com/forged")
            self.assertIn("internal to the cluster", str(caught.exception))
            self.assertEqual(plain[owner_of("s1.example.com")].execute_command(
                "SEEN", tagged("http://s1.example.com/forged",
                               "s1.example.com")), 0)

    def test_a_stopped_shard_fails_only_its_links(self):
        with Cluster("--cluster-forward-max-bytes", str(MAX_BYTES)) as c:
            ref, ref_site = "http://ref.example.com/", "ref.example.com"
            ref_owner = owner_of(ref_site)
            stopped = (ref_owner + 2) % 3
            r = c.client(ref_owner)
            self.assertEqual(r.execute_command("ADD", ref), 1)
            links = [link(i) for i in range(1000)]
            os.kill(c.nodes[stopped].proc.pid, signal.SIGSTOP)
            try:
                started = time.monotonic()
                reply = r.execute_command("MADD", ref, *[u for u, _ in links])
                took = time.monotonic() - started
                self.assertLess(took, cluster_harness.FORWARD_TIMEOUT_S + 2)
                self.assertEqual(len(reply), 1000)
                for (url, site), element in zip(links, reply):
                    if owner_of(site) == stopped:
                        self.assertIsInstance(element, redis.ResponseError)
                        self.assertIn("may or may not have run", str(element))
                    else:
                        self.assertEqual(element, 1, url)
                # Sent to the third node, which forwards it whole to the
                # ref's owner: the same, the stopped shard's links only
                # failing (the owner's parts get a shorter timeout than
                # the forward that waits for them).
                third = 3 - ref_owner - stopped
                more = [link(1000 + i) for i in range(300)]
                started = time.monotonic()
                reply = c.client(third).execute_command(
                    "MADD", ref, *[u for u, _ in more])
                self.assertLess(time.monotonic() - started,
                                cluster_harness.FORWARD_TIMEOUT_S + 2)
                for (url, site), element in zip(more, reply):
                    if owner_of(site) == stopped:
                        self.assertIsInstance(element, redis.ResponseError)
                    else:
                        self.assertEqual(element, 1, url)
                # Several MADDs at once: the bytes in flight stay within
                # the limit per peer (two peers: the stopped one and the
                # other live one).
                peak = [0]
                done = threading.Event()

                def watch():
                    w = c.client(ref_owner)
                    while not done.is_set():
                        peak[0] = max(peak[0], w.info("cluster")[
                            "cluster_forward_bytes_in_flight"])
                        time.sleep(0.01)

                def madd(k):
                    batch = [f"http://s{j % SITES}.example.com/w{k}/{j}"
                             for j in range(1000)]
                    results[k] = c.client(ref_owner).execute_command(
                        "MADD", ref, *batch)

                results = [None] * 8
                watcher = threading.Thread(target=watch)
                watcher.start()
                workers = [threading.Thread(target=madd, args=(k,))
                           for k in range(8)]
                started = time.monotonic()
                for t in workers:
                    t.start()
                for t in workers:
                    t.join(60)
                took = time.monotonic() - started
                done.set()
                watcher.join(10)
                self.assertLess(took, 30)
                self.assertGreater(peak[0], 0)
                self.assertLessEqual(peak[0], 2 * MAX_BYTES)
                for k, result in enumerate(results):
                    self.assertEqual(len(result), 1000, k)
                    for j, element in enumerate(result):
                        site = f"s{j % SITES}.example.com"
                        if owner_of(site) == stopped:
                            self.assertIsInstance(element,
                                                  redis.ResponseError)
                        else:
                            self.assertEqual(element, 1, (k, j))
            finally:
                os.kill(c.nodes[stopped].proc.pid, signal.SIGCONT)
            # The live shards stored their links.
            for url, site in links:
                owner = owner_of(site)
                if owner != stopped:
                    self.assertEqual(c.client(owner).execute_command(
                        "SEEN", tagged(url, site)), 1)


    def test_the_madds_of_one_pass_share_one_maddlinks_per_peer(self):
        with Cluster() as c:
            ref_owner = owner_of("ref.example.com")
            r = c.client(ref_owner)
            # Refs of depth 1, 2 and 3, all on the ref's shard.
            self.chain(r, 3)
            refs = [f"http://ref.example.com/{d}" for d in (1, 2, 3)]

            def links_of(k):
                urls = [f"http://s{j}.example.com/b{k}/{j}" for j in range(40)]
                self.assertEqual({owner_of(f"s{j}.example.com")
                                  for j in range(40)}, {0, 1, 2})
                return urls

            def argv_of(k):
                urls = links_of(k)
                if k == 1:  # values with the links
                    pairs = []
                    for j, u in enumerate(urls):
                        pairs += [u, f"v{k}-{j}"]
                    return ["MADD", refs[k % 3], "DATA", *pairs]
                if k == 2:  # a bad URL in the middle
                    urls = urls[:20] + ["ftp://bad"] + urls[20:]
                return ["MADD", refs[k % 3], *urls]

            clients = [c.client(ref_owner) for _ in range(6)]
            for one in clients:
                self.assertTrue(one.ping())
            before = r.info("cluster")
            results = [None] * len(clients)

            def madd(k):
                results[k] = clients[k].execute_command(*argv_of(k))

            # The node stopped while the MADDs arrive: it reads them all in
            # its next pass.
            node = c.nodes[ref_owner].proc.pid
            os.kill(node, signal.SIGSTOP)
            try:
                workers = [threading.Thread(target=madd, args=(k,))
                           for k in range(len(clients))]
                for t in workers:
                    t.start()
                time.sleep(0.5)
            finally:
                os.kill(node, signal.SIGCONT)
            for t in workers:
                t.join(30)
            after = r.info("cluster")
            for k, result in enumerate(results):
                self.assertIsNotNone(result, k)
                if k == 2:
                    self.assertIsInstance(result[20], redis.ResponseError)
                    del result[20]
                self.assertEqual(result, [1] * 40, k)
                for j, url in enumerate(links_of(k)):
                    site = f"s{j}.example.com"
                    self.assertEqual(self.depth_on_owner(c, url, site),
                                     k % 3 + 2, (k, j))
                    if k == 1:
                        info = c.client(owner_of(site)).execute_command(
                            "URLINFO", tagged(url, site))
                        self.assertEqual(
                            dict(zip(info[0::2], info[1::2]))[b"data"],
                            f"v1-{j}".encode())
            # Two parts per MADD (the two other shards), one MADDLINKS per
            # peer for the whole pass.
            self.assertEqual(after["cluster_madd_parts"] -
                             before["cluster_madd_parts"], 2 * len(clients))
            self.assertEqual(after["cluster_madd_batches"] -
                             before["cluster_madd_batches"], 2)
            self.assertEqual(r.execute_command("CONFIG", "RESETSTAT"), b"OK")
            zeroed = r.info("cluster")
            self.assertEqual((zeroed["cluster_madd_parts"],
                              zeroed["cluster_madd_batches"]), (0, 0))
            # One client's pipeline: each MADD answered in order.
            pipe = c.client(ref_owner).pipeline(transaction=False)
            for k in range(6, 10):
                pipe.execute_command("MADD", refs[0], *links_of(k))
            self.assertEqual(pipe.execute(), [[1] * 40] * 4)
            # MADDLINKS GROUPS on a node's link: a count that does not
            # match the groups refuses the whole command.
            other = (ref_owner + 1) % 3
            site = next(f"s{j}.example.com" for j in range(SITES)
                        if owner_of(f"s{j}.example.com") == other)
            link_conn = c.client(other)
            self.assertEqual(link_conn.execute_command("CLUSTER", "LINK"),
                             b"OK")
            url = f"http://{site}/grouped"
            with self.assertRaises(redis.ResponseError) as caught:
                link_conn.execute_command(
                    "MADDLINKS", "GROUPS", "2", refs[0], "0", "example.com",
                    "-", "1", url)
            self.assertIn("GROUPS", str(caught.exception))
            self.assertEqual(c.client(other).execute_command(
                "SEEN", tagged(url, site)), 0)
            self.assertEqual(link_conn.execute_command(
                "MADDLINKS", "GROUPS", "2", refs[0], "0", "example.com",
                "-", "1", url, refs[0], "-", "example.com", "DATA", "1",
                url + "2", "v"), [1, 1])
            self.assertEqual(self.depth_on_owner(c, url, site), 1)


if __name__ == "__main__":
    cluster_harness.BINARY = sys.argv.pop(1)
    unittest.main()
