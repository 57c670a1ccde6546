"""The cluster's directory in etcd (issue 21, docs/cluster.md, "The
directory in etcd"): an etcd started here on 127.0.0.6 (a temporary data
directory, free ports), frontierd nodes on 127.0.0.2-.4 that read their map
from it, and the frontierd-cluster tool that changes it. Every process is
stopped by its PID and every wait is bounded.

- the map is read from etcd at start (CLUSTER SLOTS reflects it), and each
  master holds its master key;
- a change made with the tool reaches every node within a bounded time; a
  stale compare-and-swap is refused and changes nothing; a map that moves
  a shard's slots, is not valid, or is older than the shard's record is
  refused by the nodes;
- with etcd killed, the cluster keeps serving (forwarded commands too), and
  a node restarted meanwhile starts from its cached copy of the map;
- a new process joins a shard as a replica (added with the tool), then
  becomes its master when the old master is stopped (SIGTERM), while a
  client writes through another shard; no write fails beyond a retried one.

Skipped, saying so, only where etcd is not installed (scripts/install-deps.sh
--test installs Debian's etcd-server).

    python3 cluster_etcd_test.py path/to/frontierd
"""
import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.request

import redis
from redis.crc import key_slot

import servers

BINARY = None
ETCD = shutil.which("etcd") or ("/usr/bin/etcd" if os.path.exists(
    "/usr/bin/etcd") else None)
TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                    "tools", "frontierd-cluster")
ETCD_HOST = "127.0.0.6"
HOSTS = ["127.0.0.2", "127.0.0.3", "127.0.0.4"]
SPLIT = 8191  # shard a: 0-8191, shard b: 8192-16383


def wait_for(predicate, timeout_s, what):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            value = predicate()
        except (redis.RedisError, OSError):
            value = None
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


class Etcd:
    """One etcd member on ETCD_HOST, in a temporary directory."""

    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="frontierd-etcd-")
        self.client_port = servers.free_port(ETCD_HOST)
        self.peer_port = servers.free_port(ETCD_HOST)
        self.url = f"http://{ETCD_HOST}:{self.client_port}"
        self.proc = None

    def __enter__(self):
        peer = f"http://{ETCD_HOST}:{self.peer_port}"
        self.log = open(os.path.join(self.tmp, "etcd.log"), "wb")
        self.proc = subprocess.Popen(
            [ETCD, "--name", "t", "--data-dir",
             os.path.join(self.tmp, "data"), "--listen-client-urls",
             self.url, "--advertise-client-urls", self.url,
             "--listen-peer-urls", peer, "--initial-advertise-peer-urls",
             peer, "--initial-cluster", f"t={peer}"],
            stdout=self.log, stderr=self.log)
        try:
            wait_for(lambda: self.range("/") is not None, 20, "etcd")
        except BaseException:
            self.__exit__()
            raise
        return self

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def __exit__(self, *exc):
        self.kill()
        self.log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def call(self, path, body):
        req = urllib.request.Request(
            self.url + path, data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=5) as r:
            return json.loads(r.read())

    def range(self, prefix):
        """{key: value} of every key under `prefix`."""
        end = prefix[:-1] + chr(ord(prefix[-1]) + 1)
        answer = self.call("/v3/kv/range", {
            "key": base64.b64encode(prefix.encode()).decode(),
            "range_end": base64.b64encode(end.encode()).decode()})
        return {base64.b64decode(kv["key"]).decode():
                base64.b64decode(kv.get("value", "")).decode()
                for kv in answer.get("kvs", [])}

    def put(self, key, value):
        self.call("/v3/kv/put", {
            "key": base64.b64encode(key.encode()).decode(),
            "value": base64.b64encode(value.encode()).decode()})


def tool(etcd, name, *args):
    return subprocess.run(
        [sys.executable, TOOL, "--etcd", etcd.url, "--name", name, *args],
        capture_output=True, text=True, timeout=30)


def node(host, port, etcd, name, *extra, data=None):
    binary = os.path.abspath(BINARY)
    return servers.Server(lambda s: [
        binary, "--port", str(s.port), "--bind", host, "--dir",
        data or os.path.join(s.dir, "data"), "--logfile",
        os.path.join(s.dir, "frontierd.log"), "--politeness-delay", "0",
        "--cluster-etcd", etcd.url, "--cluster-name", name,
        "--cluster-forward-timeout", "2", *extra], "frontierd", host=host,
        port=port)


def epoch_of(client):
    info = client.execute_command("CLUSTER", "INFO").decode()
    return int(info.split("cluster_current_epoch:")[1].split()[0])


def url_in_shard(shard, start=0):
    """A URL whose site's slot is in shard "a" or "b", and its site."""
    for i in range(start, start + 10_000):
        site = f"s{i}.example"
        if (key_slot(site.encode()) <= SPLIT) == (shard == "a"):
            return f"http://{site}/p", site
    raise AssertionError("no URL found")


@unittest.skipIf(ETCD is None, "etcd is not installed (Debian's etcd-server: "
                 "bash scripts/install-deps.sh --test)")
class ClusterEtcdTest(unittest.TestCase):
    def test_the_map_comes_from_etcd_and_its_changes_reach_every_node(self):
        with Etcd() as etcd:
            tmp = tempfile.mkdtemp(prefix="frontierd-cluster-etcd-")
            nodes = []
            try:
                ports = [servers.free_port(h) for h in HOSTS]
                spare = servers.free_port(HOSTS[2])
                path = os.path.join(tmp, "cluster.conf")
                with open(path, "w") as f:
                    f.write(f"epoch 1\nshard a 0-{SPLIT}\n"
                            f"shard b {SPLIT + 1}-16383\n"
                            f"node a {HOSTS[0]}:{ports[0]}\n"
                            f"node b {HOSTS[1]}:{ports[1]}\n")
                done = tool(etcd, "one", "create", path)
                self.assertEqual(done.returncode, 0, done.stderr)
                again = tool(etcd, "one", "create", path)
                self.assertEqual(again.returncode, 3)
                self.assertIn("already exists", again.stderr)

                for i in range(2):
                    nodes.append(node(HOSTS[i], ports[i], etcd,
                                      "one").__enter__())
                clients = [redis.Redis(host=HOSTS[i], port=ports[i],
                                       socket_timeout=10) for i in range(2)]
                # CLUSTER SLOTS is the map in etcd.
                for c in clients:
                    slots = sorted((e[0], e[1], e[2][0].decode(), e[2][1])
                                   for e in c.execute_command("CLUSTER",
                                                              "SLOTS"))
                    self.assertEqual(slots, [
                        (0, SPLIT, HOSTS[0], ports[0]),
                        (SPLIT + 1, 16383, HOSTS[1], ports[1])])
                config = clients[0].config_get("cluster-*")
                self.assertEqual(
                    (config["cluster-etcd"], config["cluster-name"]),
                    (etcd.url, "one"))
                # Each master holds its key.
                wait_for(lambda: etcd.range("/frontierd/one/masters/") == {
                    "/frontierd/one/masters/a": f"{HOSTS[0]}:{ports[0]}",
                    "/frontierd/one/masters/b": f"{HOSTS[1]}:{ports[1]}"},
                    10, "the master keys")

                # A change through the tool reaches every node.
                shown = tool(etcd, "one", "show")
                self.assertEqual(shown.returncode, 0, shown.stderr)
                revision = int(shown.stdout.split("revision ")[1].split()[0])
                changed = time.monotonic()
                done = tool(etcd, "one", "add-replica", "b",
                            f"{HOSTS[2]}:{ports[2]}", f"{HOSTS[2]}:{spare}")
                self.assertEqual(done.returncode, 0, done.stderr)
                for c in clients:
                    wait_for(lambda: epoch_of(c) == 2, 10,
                             "the new map on every node")
                reached = time.monotonic() - changed
                print(f"map change reached both nodes in {reached:.2f} s",
                      file=sys.stderr)
                self.assertLess(reached, 5)
                nodes_text = clients[0].execute_command(
                    "CLUSTER", "NODES").decode()
                self.assertIn(f"{HOSTS[2]}:{ports[2]}", nodes_text)

                # A stale compare-and-swap is refused and changes nothing.
                stale = tool(etcd, "one", "--expect-revision", str(revision),
                             "remove-replica", "b", f"{HOSTS[2]}:{ports[2]}")
                self.assertEqual(stale.returncode, 3, stale.stdout)
                self.assertIn("changed since it was read", stale.stderr)
                self.assertIn(f"{HOSTS[2]}:{ports[2]}",
                              etcd.range("/frontierd/one/map")[
                                  "/frontierd/one/map"])

                # A map that moves slots, or is not valid, is refused.
                etcd.put("/frontierd/one/map",
                         f"epoch 9\nshard a 0-{SPLIT + 1}\n"
                         f"shard b {SPLIT + 2}-16383\n"
                         f"node a {HOSTS[0]}:{ports[0]}\n"
                         f"node b {HOSTS[1]}:{ports[1]}\n")
                for n in nodes:
                    wait_for(lambda: "moving slots between shards is not "
                             "built" in n.logs(), 10, "the moved map refused")
                etcd.put("/frontierd/one/map", "epoch 10\nshard a 0-5\n")
                for n in nodes:
                    wait_for(lambda: n.logs().count("map refused") == 2, 10,
                             "the bad map refused")
                # So is a map older than what the shards recorded (epoch 2).
                etcd.put("/frontierd/one/map",
                         f"epoch 1\nshard a 0-{SPLIT}\n"
                         f"shard b {SPLIT + 1}-16383\n"
                         f"node a {HOSTS[0]}:{ports[0]}\n"
                         f"node b {HOSTS[1]}:{ports[1]}\n")
                for n in nodes:
                    wait_for(lambda: "the map's epoch 1 is older than shard"
                             in n.logs(), 10, "the older map refused")
                for c in clients:
                    self.assertEqual(epoch_of(c), 2)

                # With etcd killed the cluster keeps serving, forwarding
                # included; a node restarted meanwhile uses its cached map.
                etcd.kill()
                url_a, _ = url_in_shard("a")
                url_b, _ = url_in_shard("b")
                self.assertEqual(clients[1].execute_command("ADD", url_a), 1)
                self.assertEqual(clients[0].execute_command("ADD", url_b), 1)
                wait_for(lambda: "etcd does not answer" in nodes[0].logs(), 10,
                         "the outage in the log")
                data = os.path.join(nodes[0].dir, "data")
                self.assertTrue(os.path.exists(
                    os.path.join(data, "cluster", "etcd-map")))
                nodes[0].stop()
                with node(HOSTS[0], ports[0], etcd, "one",
                          data=data) as back:
                    self.assertIn("cached copy", back.logs())
                    self.assertEqual(epoch_of(clients[0]), 2)
                    self.assertEqual(clients[1].execute_command(
                        "SEEN", url_a), 1)
                    self.assertEqual(clients[0].execute_command(
                        "ADD", url_b), 0)
            finally:
                for n in reversed(nodes):
                    n.__exit__(None, None, None)
                shutil.rmtree(tmp, ignore_errors=True)

    def test_no_map_and_no_etcd_refuses_the_start(self):
        with Etcd() as etcd:
            tmp = tempfile.mkdtemp(prefix="frontierd-cluster-etcd-")
            try:
                argv = [os.path.abspath(BINARY), "--port",
                        str(servers.free_port(HOSTS[0])), "--bind", HOSTS[0],
                        "--dir", os.path.join(tmp, "data"), "--cluster-etcd",
                        etcd.url, "--cluster-name", "none"]
                for bad, said in (
                        (["--cluster-etcd", "https://127.0.0.6:1"],
                         "https is not supported"),
                        (["--cluster-etcd", "http://127.0.0.6"],
                         "not an etcd endpoint"),
                        (["--cluster-name", "a/b"], "cluster-name 'a/b'"),
                        (["--cluster-config-file", "/nonexistent"],
                         "both set")):
                    run = subprocess.run(argv + bad, capture_output=True,
                                         text=True, timeout=30)
                    self.assertNotEqual(run.returncode, 0, bad)
                    self.assertIn(said, run.stdout + run.stderr)
                run = subprocess.run(argv, capture_output=True, text=True,
                                     timeout=30)
                self.assertNotEqual(run.returncode, 0)
                self.assertIn("holds no cluster map", run.stdout + run.stderr)
                etcd.kill()
                run = subprocess.run(argv, capture_output=True, text=True,
                                     timeout=30)
                self.assertNotEqual(run.returncode, 0)
                self.assertIn("no cached map", run.stdout + run.stderr)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)

    def test_a_new_process_joins_a_shard_then_becomes_its_master(self):
        """Shard a: a1 (master, creator) and a2 (replica, priority 1: a
        master's quorum counts electable sites only); shard b: b1. A client writes URLs of shard a through b1
        (forwarded) all along. a3 is added with the tool and joins shard a
        as a replica (priority 200); the tool names it the master to be; once
        it caught up, a1 is stopped with SIGTERM; a3 is elected, takes the master key, and b1 forwards
        to it. Every write is acknowledged, some after a retry."""
        with Etcd() as etcd:
            nodes = []
            writer = None
            try:
                hosts = [HOSTS[0], HOSTS[1], HOSTS[2], "127.0.0.5"]
                ports = [servers.free_port(h) for h in hosts]
                repl = [f"{h}:{servers.free_port(h)}" for h in hosts]
                a1, a2, a3, b1 = 0, 1, 2, 3
                tmp = tempfile.mkdtemp(prefix="frontierd-cluster-etcd-")
                path = os.path.join(tmp, "cluster.conf")
                with open(path, "w") as f:
                    f.write(f"epoch 1\nshard a 0-{SPLIT}\n"
                            f"shard b {SPLIT + 1}-16383\n"
                            f"node a {hosts[a1]}:{ports[a1]} repl {repl[a1]}\n"
                            f"node a {hosts[a2]}:{ports[a2]} repl {repl[a2]}\n"
                            f"node b {hosts[b1]}:{ports[b1]}\n")
                done = tool(etcd, "grow", "create", path)
                shutil.rmtree(tmp, ignore_errors=True)
                self.assertEqual(done.returncode, 0, done.stderr)
                fast = ["--repl-ack-timeout", "0.5", "--repl-heartbeat", "0.5",
                        "--repl-election-timeout", "2"]
                nodes.append(node(hosts[a1], ports[a1], etcd, "grow",
                                  "--replication", "yes", "--repl-listen",
                                  repl[a1], "--repl-group-creator", "yes",
                                  *fast).__enter__())
                nodes.append(node(hosts[a2], ports[a2], etcd, "grow",
                                  "--replication", "yes", "--repl-listen",
                                  repl[a2], "--repl-peers", repl[a1],
                                  "--repl-priority", "1", *fast).__enter__())
                nodes.append(None)  # a3, later
                nodes.append(node(hosts[b1], ports[b1], etcd,
                                  "grow").__enter__())
                client = [redis.Redis(host=h, port=p, socket_timeout=10)
                          for h, p in zip(hosts, ports)]
                wait_for(lambda: client[a1].info("replication")[
                    "repl_sites"] == 2, 30, "shard a's group of two")

                writer = Writer(client[b1])
                writer.start()
                wait_for(lambda: writer.acked >= 20, 20, "forwarded writes")

                # a3 joins shard a as a replica.
                done = tool(etcd, "grow", "add-replica", "a",
                            f"{hosts[a3]}:{ports[a3]}", repl[a3])
                self.assertEqual(done.returncode, 0, done.stderr)
                for i in (a1, a2, b1):
                    wait_for(lambda: epoch_of(client[i]) == 2, 10,
                             "the map with a3 on every node")
                nodes[a3] = node(hosts[a3], ports[a3], etcd, "grow",
                                 "--replication", "yes", "--repl-listen",
                                 repl[a3], "--repl-peers", repl[a1],
                                 "--repl-priority", "200", *fast).__enter__()
                wait_for(lambda: client[a1].info("replication")[
                    "repl_sites"] == 3, 30, "a3 in shard a's group")
                self.assertEqual(client[a3].execute_command("ROLE")[0],
                                 b"slave")
                client[a3].execute_command("READONLY")
                last = writer.last_acked()
                wait_for(lambda: client[a3].execute_command("SEEN", last) == 1,
                         30, "a3 to catch up")

                # The tool records the move; SIGTERM moves the master.
                done = tool(etcd, "grow", "move-master", "a",
                            f"{hosts[a3]}:{ports[a3]}")
                self.assertEqual(done.returncode, 0, done.stderr)
                self.assertIn("SIGTERM", done.stdout)
                wait_for(lambda: epoch_of(client[b1]) == 3, 10,
                         "the map of the move")
                before = writer.acked
                stopped = time.monotonic()
                nodes[a1].proc.send_signal(signal.SIGTERM)
                try:
                    self.assertEqual(nodes[a1].proc.wait(timeout=30), 0)
                except subprocess.TimeoutExpired:
                    print(nodes[a1].logs(), file=sys.stderr)
                    raise
                wait_for(lambda: client[a3].execute_command("ROLE")[0] ==
                         b"master", 30, "a3 elected")
                a3_address = f"{hosts[a3]}:{ports[a3]}"
                wait_for(lambda: etcd.range("/frontierd/grow/masters/a").get(
                    "/frontierd/grow/masters/a") == a3_address, 10,
                    "a3's master key")
                try:
                    wait_for(lambda: writer.acked >= before + 20, 30,
                             "writes through b1 to the new master")
                except AssertionError as e:
                    raise AssertionError(f"{e}; the writer's last error: "
                                         f"{writer.last_error}") from None
                moved = time.monotonic() - stopped
                print(f"writes reached the new master {moved:.2f} s after "
                      f"SIGTERM; {writer.retried} command(s) retried",
                      file=sys.stderr)
                writer.stop.set()
                writer.join(timeout=30)
                self.assertEqual(writer.failed, [])
                slots = client[b1].execute_command("CLUSTER", "SLOTS")
                shard_a = [e for e in slots if e[0] == 0][0]
                self.assertEqual((shard_a[2][0].decode(), shard_a[2][1]),
                                 (hosts[a3], ports[a3]))
                # Every acknowledged write is on the new master.
                urls = writer.acked_urls
                for k in range(0, len(urls), 500):
                    self.assertEqual(client[a3].execute_command(
                        "MSEEN", *urls[k:k + 500]), [1] * len(urls[k:k + 500]))
            finally:
                if writer is not None:
                    writer.stop.set()
                    writer.join(timeout=30)
                for n in reversed(nodes):
                    if n is not None:
                        n.__exit__(None, None, None)


class Writer(threading.Thread):
    """ADDs URLs of shard a one at a time (a light load) through a node of
    shard b, which forwards them; a command that gets an error is retried
    (for 20 s at most) and counted; one never acknowledged is a failure."""

    def __init__(self, client):
        super().__init__(daemon=True)
        self.client = client
        self.stop = threading.Event()
        self.acked_urls = []
        self.acked = 0
        self.retried = 0
        self.failed = []
        self.next = 0
        self.last_error = None

    def last_acked(self):
        return self.acked_urls[-1]

    def run(self):
        while not self.stop.is_set() and self.next < 100_000:
            url, _ = url_in_shard("a", self.next)
            self.next = int(url.split("//s")[1].split(".")[0]) + 1
            deadline = time.monotonic() + 20
            while True:
                try:
                    self.client.execute_command("ADD", url)
                    self.acked_urls.append(url)
                    self.acked += 1
                    break
                except (redis.RedisError, OSError) as e:
                    if time.monotonic() > deadline:
                        self.failed.append(f"{url}: {e}")
                        break
                    self.retried += 1
                    self.last_error = str(e)
                    time.sleep(0.1)
            time.sleep(0.01)


if __name__ == "__main__":
    BINARY = sys.argv.pop(1)
    unittest.main()
