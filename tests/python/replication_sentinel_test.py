"""Finding a replication group's master as Redis clients do (issue 20,
docs/replication.md, "Finding the master"): every site of a group answers
Sentinel's discovery commands for its group, with the address clients
reach each site on (which the sites tell one another), so that redis-py's
Sentinel(...).master_for(name) writes to the master with the sites as its
sentinels, and finds the new master after the old one is killed.

Three sites, replication addresses on 127.0.0.2-.4, RESP on 127.0.0.1;
every process is stopped by its PID and every wait is bounded.

    python3 replication_sentinel_test.py path/to/frontierd
"""
import json
import os
import shutil
import signal
import subprocess
import re
import sys
import tempfile
import time
import unittest
import urllib.request

import redis
from redis.sentinel import Sentinel

import replication_test as rt
import servers

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "clients", "python"))
import frontierd  # noqa: E402


def sentinel_for(g):
    return Sentinel([("127.0.0.1", site.port) for site in g.sites],
                    socket_timeout=5)


def resp(site):
    return ("127.0.0.1", site.port)


# ioredis as the example worker uses it (scripts/test.sh installs it there).
NODE_MODULES = os.path.join(os.path.dirname(__file__), "..", "..", "clients",
                            "examples", "node", "node_modules")
IOREDIS_SENTINEL = """
const Redis = require("ioredis");
const sentinels = JSON.parse(process.argv[1]);
const r = new Redis({sentinels, name: "frontierd", sentinelRetryStrategy: null,
                     maxRetriesPerRequest: 2});
r.call("ADD", "http://ioredis.example/").then(async (added) => {
  const seen = await r.call("SEEN", "http://ioredis.example/");
  console.log(JSON.stringify({added, seen, port: r.stream.remotePort}));
  r.disconnect();
}, (e) => { console.error(String(e)); process.exit(1); });
"""


def dashboard_rows(http_port, table):
    """The rows (lists of cell texts) of the dashboard's table `table` as
    headless Chromium renders the page, or None without Chromium."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        return None
    profile = tempfile.mkdtemp(prefix="frontierd-chromium-")
    try:
        page = subprocess.run(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu",
             "--disable-dev-shm-usage", "--no-first-run",
             f"--user-data-dir={profile}", "--virtual-time-budget=3000",
             "--dump-dom", f"http://127.0.0.1:{http_port}/"],
            capture_output=True, text=True, timeout=90)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    if page.returncode != 0:
        raise AssertionError(page.stderr)
    body = re.search(f'<table id="{table}">.*?<tbody>(.*?)</tbody>',
                     page.stdout, re.S)
    if body is None:
        raise AssertionError(page.stdout[:2000])
    return [re.findall(r"<td[^>]*>([^<]*)</td>", row)
            for row in re.findall(r"<tr>(.*?)</tr>", body.group(1), re.S)]


class SentinelDiscoveryTest(unittest.TestCase):
    def test_sentinel_clients_find_the_master_and_its_replicas(self):
        http_port = servers.free_port()
        with rt.Group(extra={0: ["--http-port", str(http_port)]}) as g:
            master_addr = resp(g.sites[0])
            # The master writes its client address into the group's
            # directory, in the replicated data; every site reads it.
            for i in range(3):
                site = g.client(i)
                rt.wait_for(lambda: site.execute_command(
                    "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "frontierd") ==
                    [b"127.0.0.1", str(master_addr[1]).encode()], 10,
                    f"site {i} to name the master's client address")
                state = site.sentinel_master("frontierd")
                self.assertTrue(state["is_master"])
                self.assertFalse(state["is_sdown"])
                self.assertEqual(state["num-slaves"], 2)
                self.assertEqual(state["quorum"], 2)

            sentinel = sentinel_for(g)
            self.assertEqual(sentinel.discover_master("frontierd"),
                             master_addr)
            writer = sentinel.master_for("frontierd", socket_timeout=5)
            self.assertEqual(writer.execute_command(
                "ADD", "http://a.example/1"), 1)

            # ROLE and INFO name the master by its client address, and the
            # replicas, which never were master, by theirs too once they
            # told the master (REPLICATION ANNOUNCE, every 2 s until the
            # directory names them).
            replica_addrs = sorted(resp(s) for s in g.sites[1:])
            rt.wait_for(lambda: sorted(sentinel.discover_slaves(
                "frontierd")) == replica_addrs, 15,
                "Sentinel to list both replicas' client addresses")
            role = g.client(0).execute_command("ROLE")
            self.assertEqual(sorted((r[0].decode(), int(r[1]))
                                    for r in role[2]), replica_addrs)
            master_info = g.client(0).info("replication")
            self.assertEqual(sorted((master_info[f"slave{i}"]["ip"],
                                     master_info[f"slave{i}"]["port"])
                                    for i in range(2)), replica_addrs)
            replica = g.client(1)
            self.assertEqual(replica.execute_command("ROLE")[:4],
                             [b"slave", b"127.0.0.1", master_addr[1],
                              b"connected"])
            info = replica.info("replication")
            self.assertEqual((info["master_host"], info["master_port"]),
                             master_addr)
            # A read without READONLY is refused naming where to write.
            with self.assertRaises(redis.ResponseError) as caught:
                replica.execute_command("SEEN", "http://a.example/1")
            self.assertIn(f"replica of 127.0.0.1:{master_addr[1]}",
                          str(caught.exception))

            # ioredis's `sentinels` option finds the master the same way.
            node = shutil.which("node")
            if node and os.path.isdir(os.path.join(NODE_MODULES, "ioredis")):
                out = subprocess.run(
                    [node, "-e", IOREDIS_SENTINEL, json.dumps(
                        [{"host": h, "port": p} for h, p in
                         [resp(s) for s in g.sites]])],
                    env=dict(os.environ, NODE_PATH=NODE_MODULES),
                    capture_output=True, text=True, timeout=30)
                self.assertEqual(out.returncode, 0, out.stderr)
                self.assertEqual(json.loads(out.stdout),
                                 {"added": 1, "seen": 1,
                                  "port": master_addr[1]})
            elif os.environ.get("CI"):
                self.fail("node and ioredis are needed in CI")

            # /metrics shows the group as the master sees it.
            with urllib.request.urlopen(
                    f"http://127.0.0.1:{http_port}/metrics",
                    timeout=10) as page:
                metrics = page.read().decode()
            lines = metrics.splitlines()
            self.assertIn("frontierd_replication_is_master 1", lines)
            self.assertIn("frontierd_replication_connected_peers 2", lines)
            self.assertIn("frontierd_replication_sites 3", lines)
            for addr, site in zip(g.addrs[1:], g.sites[1:]):
                self.assertIn(
                    f'frontierd_replication_peer_up{{peer="{addr}",'
                    f'client="127.0.0.1:{site.port}",role="replica"}} 1',
                    lines)
            # So do /api/stats and the dashboard's "Replication group".
            with urllib.request.urlopen(
                    f"http://127.0.0.1:{http_port}/api/stats",
                    timeout=10) as page:
                api = json.loads(page.read())["replication"]
            clients = [f"127.0.0.1:{s.port}" for s in g.sites]
            expected = sorted(
                [[g.addrs[0], "master", "this site", clients[0]]] +
                [[a, "replica", "up", c] for a, c in zip(g.addrs[1:],
                                                         clients[1:])])
            self.assertEqual((api["role"], api["group_sites"]),
                             ("master", 3))
            self.assertEqual(sorted(
                [x["site"], x["role"], "this site" if x["self"] else
                 x["link"], x["client"]] for x in api["sites"]), expected)
            rows = dashboard_rows(http_port, "replication")
            if rows is not None:
                self.assertEqual(sorted(r[:4] for r in rows), expected)
                # Each site's log offset; each replica's lag as the master
                # last heard it (replication_offsets_test.py checks the
                # values).
                for r in rows:
                    self.assertRegex(r[4], r"^\d+$")
                    self.assertRegex(r[5], r"^(–|no report yet|"
                                     r"[\d.]+ [KMG]?i?B \(\d+ s ago\))$")
            elif os.environ.get("CI"):
                self.fail("chromium is needed in CI")
            promtool = shutil.which("promtool")
            if promtool:
                check = subprocess.run([promtool, "check", "metrics"],
                                       input=metrics, capture_output=True,
                                       text=True, timeout=30)
                self.assertEqual(check.returncode, 0,
                                 check.stdout + check.stderr)

            # Another group's name is unknown; steering is refused.
            self.assertIsNone(g.client(1).execute_command(
                "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "other"))
            with self.assertRaises(redis.ResponseError) as caught:
                g.client(1).execute_command("SENTINEL", "MASTER", "other")
            self.assertIn("No such master", str(caught.exception))
            with self.assertRaises(redis.ResponseError) as caught:
                g.client(0).execute_command("SENTINEL", "MONITOR", "x",
                                            "127.0.0.1", "1", "1")
            self.assertIn("not supported", str(caught.exception))

    def test_replicas_announce_their_client_addresses_to_the_master(self):
        """A group started fresh, with a password: the replicas, which never
        were master, log in to the master's RESP port and announce where
        clients reach them, so every site lists them; bad announcements
        change nothing, and a site removed from the group is dropped."""
        pw = ["--requirepass", "s3cret"]
        with rt.Group(extra={0: pw, 1: pw, 2: pw}) as g:
            def client(i):
                return redis.Redis(host="127.0.0.1", port=g.sites[i].port,
                                   password="s3cret", socket_timeout=10)
            sentinel = Sentinel([resp(s) for s in g.sites], socket_timeout=5,
                                sentinel_kwargs={"password": "s3cret"})
            replica_addrs = sorted(resp(s) for s in g.sites[1:])
            started = time.monotonic()
            rt.wait_for(lambda: sorted(sentinel.discover_slaves(
                "frontierd")) == replica_addrs, 15,
                "Sentinel to list both replicas' client addresses")
            print(f"replicas listed {time.monotonic() - started:.2f} s after "
                  "the group started", file=sys.stderr)
            # The directory is replicated: every site lists both.
            for i in range(3):
                rt.wait_for(lambda: sorted(
                    (r["ip"], r["port"]) for r in
                    client(i).sentinel_slaves("frontierd")) ==
                    replica_addrs, 10, f"site {i} to list the replicas")

            master = client(0)
            # Only a logged-in client may announce; only the master takes
            # it; only another site of the group may be named; the client
            # address must be one.
            anonymous = redis.Redis(host="127.0.0.1", port=g.sites[0].port,
                                    socket_timeout=10)
            with self.assertRaises(redis.AuthenticationError):
                anonymous.execute_command("REPLICATION", "ANNOUNCE",
                                          g.addrs[1], "127.0.0.1:1")
            for c, args, why in [
                    (client(1), [g.addrs[2], "127.0.0.1:1"],
                     "not the master"),
                    (master, ["127.0.0.9:1", "127.0.0.1:1"],
                     "not another site of this group"),
                    (master, [g.addrs[0], "127.0.0.1:1"],
                     "not another site of this group"),
                    (master, [g.addrs[1], "nowhere"],
                     "invalid client address"),
                    (master, [g.addrs[1]], "syntax error")]:
                with self.assertRaises(redis.ResponseError) as caught:
                    c.execute_command("REPLICATION", "ANNOUNCE", *args)
                self.assertIn(why, str(caught.exception))
            time.sleep(1.5)  # the directory is saved once a second
            self.assertEqual(sorted(sentinel.discover_slaves("frontierd")),
                             replica_addrs)

            # A site removed from the group leaves the directory.
            self.assertTrue(master.execute_command(
                "REPLICATION", "REMOVE", g.addrs[2]))
            rt.wait_for(lambda: [(r["ip"], r["port"]) for r in
                                 master.sentinel_slaves("frontierd")] ==
                        [resp(g.sites[1])], 15,
                        "the master to drop the removed site")
            rt.wait_for(lambda: [(r["ip"], r["port"]) for r in
                                 client(1).sentinel_slaves("frontierd")] ==
                        [resp(g.sites[1])], 15,
                        "the replica to drop the removed site")

    def test_after_kill_9_of_the_master_the_client_finds_the_new_one(self):
        name = ["--repl-name", "news"]
        with rt.Group(extra={0: name, 1: name, 2: name}) as g:
            rt.wait_for(lambda: g.client(1).execute_command(
                "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "news") is not None,
                10, "the group's directory")
            sentinel = sentinel_for(g)
            writer = sentinel.master_for("news", socket_timeout=5)
            urls = [f"http://k{i}.example/" for i in range(20)]
            for url in urls:
                self.assertEqual(writer.execute_command("ADD", url), 1)
            os.kill(g.sites[0].proc.pid, signal.SIGKILL)
            g.sites[0].proc.wait(timeout=10)

            def write_through_the_client():
                try:
                    return writer.execute_command(
                        "ADD", "http://after.example/") == 1
                except (redis.ConnectionError, redis.ResponseError,
                        redis.TimeoutError):
                    time.sleep(0.2)
                    return False
            rt.wait_for(write_through_the_client, 30,
                        "the client to write to a new master")
            new_master = sentinel.discover_master("news")
            self.assertIn(new_master, [resp(s) for s in g.sites[1:]])
            # The directory now names both sites that were master: the
            # dead one is listed as a replica that is down, which clients
            # skip.
            j = [resp(s) for s in g.sites].index(new_master)
            replicas = g.client(j).sentinel_slaves("news")
            old = [r for r in replicas if (r["ip"], r["port"]) ==
                   resp(g.sites[0])]
            self.assertEqual(len(old), 1, replicas)
            self.assertTrue(old[0]["is_sdown"])
            # A site always knows its own client address: a replica lists
            # itself; no site lists the dead one as usable.
            other = [resp(s) for s in g.sites[1:] if resp(s) != new_master]
            for addr in sentinel.discover_slaves("news"):
                self.assertIn(addr, other)
            # Every write the old master acknowledged is on the new one.
            self.assertEqual(writer.execute_command("MSEEN", *urls),
                             [1] * len(urls))

    def test_a_worker_on_from_sentinels_finishes_its_crawl_through_a_failover(
            self):
        """The Python client's Frontier.from_sentinels, used as a worker
        would: it pops and confirms while the master is killed, re-issues
        what failed, and every URL ends confirmed on the new master."""
        with rt.Group() as g:
            rt.wait_for(lambda: g.client(1).execute_command(
                "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "frontierd")
                is not None, 10, "the group's directory")
            f = frontierd.Frontier.from_sentinels(
                [resp(s) for s in g.sites], socket_timeout=5)
            urls = [f"http://w{i}.example/" for i in range(30)]
            for url in urls:
                self.assertEqual(f.add(url), 1)
            retryable = (redis.ConnectionError, redis.TimeoutError,
                         frontierd.NoQuorum, frontierd.NoReplicas,
                         frontierd.ReadOnlyReplica)

            def again(call):
                """`call` until it answers, re-issued after an error a
                failover causes (30 s at most)."""
                deadline = time.monotonic() + 30
                while True:
                    try:
                        return call()
                    except retryable:
                        if time.monotonic() > deadline:
                            raise
                        time.sleep(0.2)

            confirmed = 0
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                if confirmed == 10 and g.sites[0].proc.poll() is None:
                    os.kill(g.sites[0].proc.pid, signal.SIGKILL)
                    g.sites[0].proc.wait(timeout=10)
                # A short lease: a URL whose POP reply was lost in the
                # failover comes back soon.
                url = again(lambda: f.pop(lease=2))
                if url is None:
                    if again(lambda: f.stats())["done"] == len(urls):
                        break
                    time.sleep(0.2)
                    continue
                again(lambda: f.confirm(url, status=200))
                confirmed += 1
            self.assertIsNotNone(g.sites[0].proc.poll(), "no failover ran")
            for url in urls:
                self.assertEqual(again(lambda: f.urlinfo(url))["state"],
                                 "done", url)

    def test_a_single_node_answers_that_it_has_no_group(self):
        with servers.frontierd(rt.BINARY) as s:
            client = redis.Redis(port=s.port)
            with self.assertRaises(redis.ResponseError) as caught:
                client.execute_command("SENTINEL", "MASTERS")
            self.assertIn("needs replication yes", str(caught.exception))


if __name__ == "__main__":
    rt.BINARY = sys.argv.pop(1)
    unittest.main()
