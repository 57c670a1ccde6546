"""The cluster (issue 21, docs/cluster.md): three one-process shards of
frontierd on 127.0.0.2, .3 and .4, each on a free port, with a cluster file
written here; every process is stopped by its PID and every wait is
bounded.

- the CLUSTER commands answer in Redis Cluster's formats: SLOTS covers
  0-16383 exactly once, KEYSLOT of a URL is redis-py's key_slot of its
  site, INFO says cluster_enabled:1; redis-py's RedisCluster starts against
  the cluster and its tagged ("{site}url") commands meet no MOVED;
- 600 ADDs over 200 hosts sent to random nodes by plain clients: each
  shard holds exactly the URLs whose slot it owns, SEEN is 1 from every
  node;
- a shard that does not answer: a command forwarded to it gets an error
  within cluster-forward-timeout (may or may not have run), one whose
  process is gone, once cluster-failover-hold is over, CLUSTERDOWN saying
  it was not run; the other shards go on,
  and an MSEEN over all shards gets errors only for that shard's URLs;
- MSEEN over several shards answers in argument order; STATS CLUSTER sums
  the shards' counters;
- in a shard that is a replication group, the replicas name its master
  (CLUSTER NODES, SLOTS) and a forwarded write reaches it;
- internal connections log in (requirepass); a small forwarding limit
  still lets every command through, in order;
- a cluster file with a gap, or without this node, refuses the start;
  CLUSTER RELOAD of a bad file changes nothing.

    python3 cluster_test.py path/to/frontierd
"""
import hashlib
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import redis
from redis.cluster import RedisCluster
from redis.crc import key_slot

import cluster_harness
import servers
from cluster_harness import (HOSTS, Cluster, GroupCluster, FORWARD_TIMEOUT_S,
                             FAILOVER_HOLD_S, advice, cluster_text,
                             shard_of_slot, url_of)


class ClusterTest(unittest.TestCase):
    def test_cluster_commands_answer_in_redis_formats(self):
        with Cluster() as c:
            r = c.client(1)
            slots = r.execute_command("CLUSTER", "SLOTS")
            covered = [0] * 16384
            for entry in slots:
                first, last = entry[0], entry[1]
                for s in range(first, last + 1):
                    covered[s] += 1
                host, port = entry[2][0].decode(), entry[2][1]
                self.assertEqual(shard_of_slot(first),
                                 HOSTS.index(host))
                self.assertEqual(port, c.ports[HOSTS.index(host)])
            self.assertEqual(set(covered), {1})
            me = f"{HOSTS[1]}:{c.ports[1]}".encode()
            self.assertEqual(r.execute_command("CLUSTER", "MYID"),
                             hashlib.sha1(me).hexdigest().encode())
            nodes = r.execute_command("CLUSTER", "NODES")
            if isinstance(nodes, bytes):
                nodes = nodes.decode()
            lines = [line for line in str(nodes).splitlines() if line]
            self.assertEqual(len(lines), 3)
            mine = [line for line in lines if "myself" in line]
            self.assertEqual(len(mine), 1)
            self.assertIn("5461-10922", mine[0])
            info = r.execute_command("CLUSTER", "INFO").decode()
            self.assertIn("cluster_state:ok", info)
            self.assertIn("cluster_known_nodes:3", info)
            self.assertIn("cluster_size:3", info)
            self.assertEqual(r.info("cluster")["cluster_enabled"], 1)
            shards = r.execute_command("CLUSTER", "SHARDS")
            self.assertEqual(len(shards), 3)
            # KEYSLOT of a URL is the slot of its site (the normalised
            # host), which any Redis library computes as key_slot(site).
            for url, site in [("http://WWW.Example.COM:80/a?b", "www.example.com"),
                              ("https://a.b.example.org/x", "a.b.example.org"),
                              ("example.net", "example.net")] + [
                                  url_of(i) for i in range(200)]:
                self.assertEqual(
                    r.execute_command("CLUSTER", "KEYSLOT", url),
                    key_slot(site.encode()), url)
            # COMMAND reports the key positions cluster clients route by.
            self.assertEqual(r.command_getkeys(
                "ADD", "http://a.example/", "ref"), ["http://a.example/"])
            self.assertEqual(r.command_getkeys("SITE", "INFO", "a.example"),
                             ["a.example"])
            with self.assertRaises(redis.ResponseError):
                r.command_getkeys("POP", "COUNT", "2")

    def test_redis_cluster_client_routes_tagged_keys_without_moved(self):
        with Cluster() as c:
            rc = RedisCluster(host=HOSTS[0], port=c.ports[0],
                              socket_timeout=30)
            try:
                self.assertEqual(len(rc.get_primaries()), 3)
                plain = [c.client(i) for i in range(3)]
                for i in range(60):
                    url, site = url_of(i, 30)
                    key = "{" + site + "}" + url
                    node = rc.get_node_from_key(key)
                    owner = shard_of_slot(key_slot(site.encode()))
                    self.assertEqual((node.host, node.port),
                                     (HOSTS[owner], c.ports[owner]))
                    # Sent straight to where the client routes it: run
                    # there, no MOVED.
                    self.assertEqual(plain[owner].execute_command(
                        "ADD", key), 1)
                    self.assertEqual(rc.execute_command("SEEN", key), 1)
                    self.assertEqual(rc.execute_command(
                        "URLINFO", key)[0:2], [b"url", url.encode()])
                    # Elsewhere, a MOVED naming the owner.
                    other = (owner + 1) % 3
                    with self.assertRaises(redis.ResponseError) as caught:
                        plain[other].execute_command("SEEN", key)
                    self.assertEqual(
                        str(caught.exception),
                        f"MOVED {key_slot(site.encode())} "
                        f"{HOSTS[owner]}:{c.ports[owner]}")
                # A tag that is not the URL's site is refused everywhere.
                for p in plain:
                    with self.assertRaises(redis.ResponseError) as caught:
                        p.execute_command("ADD", "{x.example}http://y.example/")
                    self.assertIn("names another site", str(caught.exception))
                    self.assertEqual(p.execute_command(
                        "SEEN", "http://y.example/"), 0)
            finally:
                rc.close()

    def test_plain_adds_land_on_their_owner_and_are_seen_everywhere(self):
        rng = random.Random(21)
        with Cluster() as c:
            plain = [c.client(i) for i in range(3)]
            urls = [url_of(i) for i in range(600)]
            for url, _ in urls:
                self.assertEqual(rng.choice(plain).execute_command(
                    "ADD", url), 1)
            expected = [0, 0, 0]
            for url, site in urls:
                owner = shard_of_slot(key_slot(site.encode()))
                expected[owner] += 1
                # On its owner, a tagged read runs there, on its own data.
                self.assertEqual(plain[owner].execute_command(
                    "SEEN", "{" + site + "}" + url), 1)
            self.assertEqual(sum(expected), 600)
            self.assertTrue(all(n > 0 for n in expected), expected)
            # DBSIZE is not keyed: each node counts its own URLs only.
            self.assertEqual([p.execute_command("DBSIZE") for p in plain],
                             expected)
            for url, _ in rng.sample(urls, 100):
                for p in plain:
                    self.assertEqual(p.execute_command("SEEN", url), 1)
            for p in plain:
                self.assertEqual(p.execute_command(
                    "SEEN", "http://h7.example/never"), 0)
            # INFO counts the forwards; none is left in flight.
            info = plain[0].info("cluster")
            self.assertGreater(info["cluster_forwarded"], 100)
            self.assertEqual(info["cluster_forward_errors"], 0)
            self.assertEqual(info["cluster_forward_bytes_in_flight"], 0)
            # Another node's link is never forwarded again: a command of
            # a third shard gets MOVED (no loop when two maps disagree).
            link = c.client(0)
            self.assertTrue(link.execute_command("CLUSTER", "LINK"))
            url, site = next(u for u in urls if shard_of_slot(
                key_slot(u[1].encode())) == 2)
            with self.assertRaises(redis.ResponseError) as caught:
                link.execute_command("SEEN", url)
            self.assertEqual(str(caught.exception),
                             f"MOVED {key_slot(site.encode())} "
                             f"{HOSTS[2]}:{c.ports[2]}")
            # Nor split again.
            first = next(u for u, s in urls
                         if shard_of_slot(key_slot(s.encode())) == 0)
            with self.assertRaises(redis.ResponseError) as caught:
                link.execute_command("MSEEN", first, url)
            self.assertIn("CROSSSLOT", str(caught.exception))
            # MSEEN over every shard: split, answered in argument order,
            # a bad URL's error in its place.
            batch = [u for u, _ in rng.sample(urls, 30)]
            batch[5:5] = ["http://h7.example/never", "ftp://bad"]
            for p in plain:
                answers = p.execute_command("MSEEN", *batch)
                self.assertEqual(len(answers), 32)
                for k, answer in enumerate(answers):
                    if k == 6:
                        self.assertIsInstance(answer, redis.ResponseError)
                    else:
                        self.assertEqual(answer, 0 if k == 5 else 1, k)
            # STATS CLUSTER sums every shard's counters.
            stats = plain[1].execute_command("STATS", "CLUSTER")
            summed = dict(zip(stats[0::2], stats[1::2]))
            self.assertEqual(summed[b"urls"], 600)
            self.assertEqual(summed[b"added"], 600)
            own = plain[1].execute_command("STATS")
            self.assertEqual(dict(zip(own[0::2], own[1::2]))[b"urls"],
                             expected[1])
            # Pipelined forwards keep their order.
            pipe = plain[0].pipeline(transaction=False)
            for url, _ in urls[:50]:
                pipe.execute_command("URLINFO", url)
                pipe.execute_command("PING")
            replies = pipe.execute()
            for k, (url, _) in enumerate(urls[:50]):
                self.assertEqual(replies[2 * k][1], url.encode())
                self.assertTrue(replies[2 * k + 1])

    def test_cluster_wide_site_list_partition_info_and_hint(self):
        """SITE LIST ... CLUSTER pages through every shard's sites, each
        once; PARTITION INFO ... CLUSTER and HINT ... CLUSTER sum the
        shards' answers, HINT's advice worked out from the sums."""
        with Cluster() as c:
            r = c.client(0)
            hosts = set()
            for i in range(90):
                url, host = url_of(i, host_count=45)
                self.assertIn(r.execute_command("ADD", url), (0, 1))
                hosts.add(host)
            owners = {shard_of_slot(key_slot(h.encode())) for h in hosts}
            self.assertEqual(owners, {0, 1, 2})
            # Every shard's own list, by its own cursor.
            own = []
            for i in range(3):
                cursor = b"0"
                for _ in range(100):
                    cursor, page = c.client(i).execute_command(
                        "SITE", "LIST", "COUNT", "7", "CURSOR", cursor)
                    own.extend(page)
                    if cursor == b"0":
                        break
            self.assertEqual(sorted(h.decode() for h in own), sorted(hosts))
            # The cluster's list, from any node, in pages of 7.
            for node in range(3):
                listed, cursors = [], []
                cursor = b"0"
                for _ in range(100):
                    cursor, page = c.client(node).execute_command(
                        "SITE", "LIST", "ALL", "CURSOR", cursor, "COUNT", "7",
                        "CLUSTER")
                    listed.extend(page)
                    cursors.append(cursor)
                    if cursor == b"0":
                        break
                self.assertEqual(cursor, b"0")
                self.assertEqual(len(listed), len(set(listed)))
                self.assertEqual(sorted(h.decode() for h in listed),
                                 sorted(hosts))
                self.assertIn(b"1:0", cursors)
                self.assertIn(b"2:0", cursors)
            for bad in ("3:0", "x", "1:", ":5"):
                with self.assertRaises(redis.ResponseError) as caught:
                    r.execute_command("SITE", "LIST", "CURSOR", bad,
                                      "CLUSTER")
                self.assertEqual(str(caught.exception), "invalid cursor")
            # PARTITION INFO default CLUSTER: the shards' counts summed.
            def info(client, *extra):
                reply = client.execute_command("PARTITION", "INFO", "default",
                                               *extra)
                return dict(zip(reply[0::2], reply[1::2]))
            summed = info(c.client(1), "CLUSTER")
            self.assertEqual(summed[b"queued"], 90)
            self.assertEqual(summed[b"sites"], len(hosts))
            self.assertEqual(summed[b"suffixes"], [])
            per_shard = [info(c.client(i)) for i in range(3)]
            for field in (b"sites", b"ready_sites", b"queued", b"leased"):
                self.assertEqual(summed[field],
                                 sum(p[field] for p in per_shard), field)
            with self.assertRaises(redis.ResponseError) as caught:
                r.execute_command("PARTITION", "INFO", "nosuch", "CLUSTER")
            self.assertIn("unknown partition", str(caught.exception))
            # HINT CLUSTER: sums, and the advice from them. Lease a few URLs
            # on one shard first so that the counts differ per shard.
            c.client(2).execute_command("POP", "COUNT", "3")

            def hint(client, *extra):
                reply = client.execute_command("HINT", *extra)
                return dict(zip(reply[0::2], reply[1::2]))
            for extra in ((), ("PARTITION", "default")):
                summed = hint(c.client(0), *extra, "CLUSTER")
                per_shard = [hint(c.client(i), *extra) for i in range(3)]
                for field in (b"n", b"ready_sites", b"leased", b"waiting"):
                    self.assertEqual(summed[field],
                                     sum(p[field] for p in per_shard), field)
                self.assertEqual(summed[b"leased"], 3)
                self.assertEqual(summed[b"advice"],
                                 advice(summed[b"n"], summed[b"ready_sites"],
                                        summed[b"leased"], summed[b"waiting"]))
                self.assertEqual(list(summed)[0], b"advice")

    def test_forward_to_an_unanswering_shard_errors_within_the_timeout(self):
        with Cluster() as c:
            r = c.client(0)
            # A site of shard c (node 2), and one of shard a (node 0).
            remote = next(url_of(i) for i in range(200)
                          if shard_of_slot(key_slot(url_of(i)[1].encode())) == 2)
            local = next(url_of(i) for i in range(200)
                         if shard_of_slot(key_slot(url_of(i)[1].encode())) == 0)
            self.assertEqual(r.execute_command("ADD", remote[0]), 1)
            os.kill(c.nodes[2].proc.pid, signal.SIGSTOP)
            try:
                started = time.monotonic()
                with self.assertRaises(redis.ResponseError) as caught:
                    r.execute_command("SEEN", remote[0])
                took = time.monotonic() - started
                self.assertIn("may or may not have run", str(caught.exception))
                self.assertTrue(str(caught.exception).startswith("TIMEOUT"))
                self.assertGreaterEqual(took, FORWARD_TIMEOUT_S * 0.9)
                self.assertLess(took, FORWARD_TIMEOUT_S + 2)
                # The other shards go on meanwhile.
                self.assertEqual(r.execute_command("ADD", local[0]), 1)
                # An MSEEN over all shards: only the stopped shard's URLs
                # get error elements, within the timeout.
                started = time.monotonic()
                answers = r.execute_command("MSEEN", local[0], remote[0])
                self.assertLess(time.monotonic() - started,
                                FORWARD_TIMEOUT_S + 2)
                self.assertEqual(answers[0], 1)
                self.assertIsInstance(answers[1], redis.ResponseError)
                self.assertIn("may or may not have run", str(answers[1]))
            finally:
                os.kill(c.nodes[2].proc.pid, signal.SIGCONT)
            # The link is made again once the shard answers.
            deadline = time.monotonic() + 10
            while True:
                try:
                    self.assertEqual(r.execute_command("SEEN", remote[0]), 1)
                    break
                except redis.ResponseError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.1)
            # Stopped for good: held for the failover hold (the shard has
            # no master), then refused, and said not to have run.
            c.nodes[2].stop()
            started = time.monotonic()
            with self.assertRaises(redis.ResponseError) as caught:
                r.execute_command("ADD", remote[0] + "x")
            took = time.monotonic() - started
            self.assertGreaterEqual(took, FAILOVER_HOLD_S * 0.9)
            self.assertLess(took, FAILOVER_HOLD_S + FORWARD_TIMEOUT_S + 2)
            self.assertTrue(str(caught.exception).startswith("CLUSTERDOWN"),
                            str(caught.exception))
            self.assertIn("cluster-failover-hold", str(caught.exception))
            self.assertIn("the command was not run", str(caught.exception))
            self.assertEqual(r.execute_command("ADD", local[0] + "y"), 1)
            # Held commands are bounded (cluster-forward-max-bytes): one
            # bigger than the bound is not held, its error comes at once.
            r.execute_command("CONFIG", "SET", "cluster-forward-max-bytes",
                              "1kb")
            started = time.monotonic()
            with self.assertRaises(redis.ResponseError) as caught:
                r.execute_command("ADD", remote[0] + "/" + "z" * 1500)
            self.assertLess(time.monotonic() - started, FAILOVER_HOLD_S * 0.5)
            self.assertTrue(str(caught.exception).startswith(
                "CLUSTERDOWN cannot connect"), str(caught.exception))
            self.assertEqual(r.info("cluster")["cluster_forward_held_bytes"],
                             0)

    def test_internal_links_log_in_and_the_byte_limit_lets_all_through(self):
        with Cluster("--requirepass", "s3cret", "--cluster-forward-max-bytes",
                     "1kb") as c:
            clients = [c.client(i, password="s3cret") for i in range(3)]
            value = "v" * 900  # each forward alone fills the limit
            urls = [url_of(i, 40) for i in range(120)]
            pipes = [cl.pipeline(transaction=False) for cl in clients]
            for k, (url, _) in enumerate(urls):
                pipes[k % 3].execute_command("ADD", url, "DATA", value)
            for pipe in pipes:
                self.assertEqual(pipe.execute(), [1] * 40)
            for url, _ in urls:
                self.assertEqual(clients[1].execute_command("SEEN", url), 1)
            # Without the password a client gets nothing forwarded.
            with self.assertRaises(redis.AuthenticationError):
                c.client(0).execute_command("SEEN", urls[0][0])

    def test_cluster_reload_keeps_the_map_on_a_bad_file(self):
        with Cluster() as c:
            r = c.client(0)
            with open(c.path, "w") as f:
                f.write(cluster_text(c.ports, epoch=2,
                                     ranges=[(0, 5000), (5461, 10922),
                                             (10923, 16383)]))
            with self.assertRaises(redis.ResponseError) as caught:
                r.execute_command("CLUSTER", "RELOAD")
            self.assertIn("5001", str(caught.exception))
            self.assertIn("cluster_current_epoch:1",
                          r.execute_command("CLUSTER", "INFO").decode())
            with open(c.path, "w") as f:
                f.write(cluster_text(c.ports, epoch=2))
            self.assertTrue(r.execute_command("CLUSTER", "RELOAD"))
            self.assertIn("cluster_current_epoch:2",
                          r.execute_command("CLUSTER", "INFO").decode())

    def test_a_replicated_shard_names_its_master(self):
        """Shard a is a replication group of three (127.0.0.2-.4), shard b
        one process (127.0.0.5): the replicas know their master, and a
        command forwarded to shard a reaches it."""
        with GroupCluster() as g:
            hosts, ports = g.hosts, g.ports
            clients = [g.client(i) for i in range(4)]
            master_id = hashlib.sha1(
                f"{hosts[0]}:{ports[0]}".encode()).hexdigest()
            # Both replicas joined, so the first write meets a whole group
            # rather than one still catching up (under load that wait can
            # pass the forward timeout).
            deadline = time.monotonic() + 30
            while any(c.execute_command("ROLE")[0] != b"slave"
                      for c in clients[1:3]):
                self.assertLess(time.monotonic(), deadline, "no group formed")
                time.sleep(0.1)
            # The replica knows its shard's master: CLUSTER NODES and SLOTS
            # name node 0, not itself.
            deadline = time.monotonic() + 10
            while True:
                nodes_text = clients[1].execute_command("CLUSTER", "NODES")
                if isinstance(nodes_text, bytes):
                    nodes_text = nodes_text.decode()
                mine = [l for l in str(nodes_text).splitlines()
                        if "myself" in l][0]
                if f"myself,slave {master_id}" in mine:
                    break
                self.assertLess(time.monotonic(), deadline, mine)
                time.sleep(0.1)
            slots = clients[1].execute_command("CLUSTER", "SLOTS")
            shard_a = [e for e in slots if e[0] == 0][0]
            self.assertEqual(shard_a[2][2].decode(), master_id)
            # A URL of shard a, added through shard b: forwarded to the
            # master, replicated to the replicas.
            url, site = next(url_of(i) for i in range(200)
                             if key_slot(url_of(i)[1].encode()) < 8192)
            self.assertEqual(clients[3].execute_command("ADD", url), 1)
            self.assertEqual(clients[0].execute_command(
                "SEEN", "{" + site + "}" + url), 1)
            clients[2].execute_command("READONLY")
            deadline = time.monotonic() + 10
            while clients[2].execute_command(
                    "SEEN", "{" + site + "}" + url) != 1:
                self.assertLess(time.monotonic(), deadline)
                time.sleep(0.1)

    def test_a_bad_cluster_file_refuses_the_start(self):
        tmp = tempfile.mkdtemp(prefix="frontierd-cluster-")
        try:
            port = servers.free_port(HOSTS[0])
            ports = [port, servers.free_port(HOSTS[1]),
                     servers.free_port(HOSTS[2])]
            path = os.path.join(tmp, "cluster.conf")

            def start(text):
                with open(path, "w") as f:
                    f.write(text)
                return subprocess.run(
                    [os.path.abspath(cluster_harness.BINARY), "--port", str(port), "--bind",
                     HOSTS[0], "--dir", os.path.join(tmp, "data"),
                     "--cluster-config-file", path],
                    capture_output=True, text=True, timeout=60)

            gap = start(cluster_text(ports, ranges=[(0, 5000), (5461, 10922),
                                                     (10923, 16383)]))
            self.assertEqual(gap.returncode, 1)
            self.assertIn("5001", gap.stderr)
            overlap = start(cluster_text(ports, ranges=[(0, 5461), (5461, 10922),
                                                         (10923, 16383)]))
            self.assertEqual(overlap.returncode, 1)
            self.assertIn("5461", overlap.stderr)
            elsewhere = start(cluster_text([ports[1], ports[1] + 1,
                                            ports[2]]).replace(
                HOSTS[0], "127.0.0.9"))
            self.assertEqual(elsewhere.returncode, 1)
            self.assertIn("not a node of the map", elsewhere.stderr)
            self.assertFalse(os.path.exists(os.path.join(tmp, "data", "U.db")))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    cluster_harness.BINARY = sys.argv.pop(1)
    unittest.main()
