"""The processes of a cluster test (docs/cluster.md), shared by the
cluster_*_test.py files: three one-process shards on 127.0.0.2-.4 written
into a cluster file (Cluster), or shard a as a replication group of three
with shard b on 127.0.0.5 (GroupCluster). Each test file sets BINARY from
its command line before it starts one; every process is stopped by its
PID.
"""
import os
import shutil
import signal
import sys
import tempfile

import redis

import servers

BINARY = None
HOSTS = ["127.0.0.2", "127.0.0.3", "127.0.0.4"]
RANGES = [(0, 5460), (5461, 10922), (10923, 16383)]
FORWARD_TIMEOUT_S = 1.0
FAILOVER_HOLD_S = 1.0


def cluster_text(ports, epoch=1, ranges=RANGES):
    lines = ["# written by cluster_harness.py", f"epoch {epoch}"]
    for name, (first, last) in zip("abc", ranges):
        lines.append(f"shard {name} {first}-{last}")
    for name, host, port in zip("abc", HOSTS, ports):
        lines.append(f"node {name} {host}:{port}")
    return "\n".join(lines) + "\n"


def shard_of_slot(slot):
    for i, (first, last) in enumerate(RANGES):
        if first <= slot <= last:
            return i
    raise AssertionError(slot)


class Cluster:
    """Three nodes, one per shard; node i owns RANGES[i]."""

    def __init__(self, *extra):
        self.tmp = tempfile.mkdtemp(prefix="frontierd-cluster-")
        self.path = os.path.join(self.tmp, "cluster.conf")
        self.ports = [servers.free_port(h) for h in HOSTS]
        with open(self.path, "w") as f:
            f.write(cluster_text(self.ports))
        self.hosts = HOSTS
        self.extra = list(extra)
        self.nodes = []

    def node_argv(self, i):
        host = self.hosts[i]
        binary = os.path.abspath(BINARY)
        return lambda s: [
            binary, "--port", str(s.port), "--bind", host, "--dir",
            os.path.join(s.dir, "data"), "--logfile",
            os.path.join(s.dir, "frontierd.log"), "--politeness-delay", "0",
            "--cluster-config-file", self.path, "--cluster-forward-timeout",
            str(FORWARD_TIMEOUT_S), "--cluster-failover-hold",
            str(FAILOVER_HOLD_S), *self.extra]

    def __enter__(self):
        try:
            for i, (host, port) in enumerate(zip(self.hosts, self.ports)):
                node = servers.Server(self.node_argv(i), "frontierd",
                                      host=host, port=port)
                self.nodes.append(node.__enter__())
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        if exc and exc[0] is not None:
            # A failing test leaves the nodes' last log lines in its output
            # (ctest keeps them): elections and forwarding are read there.
            for i, node in enumerate(self.nodes):
                tail = "\n".join(node.logs().splitlines()[-60:])
                print(f"--- node {i} ({self.hosts[i]}), last log lines:\n"
                      f"{tail}", file=sys.stderr)
        for node in reversed(self.nodes):
            if node.proc is not None and node.proc.poll() is None:
                os.kill(node.proc.pid, signal.SIGCONT)
            node.__exit__(None, None, None)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def client(self, i, timeout=30, **kw):
        return redis.Redis(host=self.hosts[i], port=self.ports[i],
                           socket_timeout=timeout, **kw)


class GroupCluster(Cluster):
    """Shard a (slots 0-8191) a replication group of three on
    127.0.0.2-.4, node 0 its creator; shard b one process on 127.0.0.5.
    `extra` goes to every node, `repl_extra` to shard a's too."""

    def __init__(self, *extra, repl_extra=()):
        self.tmp = tempfile.mkdtemp(prefix="frontierd-cluster-")
        self.hosts = HOSTS + ["127.0.0.5"]
        self.ports = [servers.free_port(h) for h in self.hosts]
        self.repl = [f"{h}:{servers.free_port(h)}" for h in HOSTS]
        self.path = os.path.join(self.tmp, "cluster.conf")
        with open(self.path, "w") as f:
            f.write("epoch 1\nshard a 0-8191\nshard b 8192-16383\n")
            for h, p, r in zip(HOSTS, self.ports, self.repl):
                f.write(f"node a {h}:{p} repl {r}\n")
            f.write(f"node b {self.hosts[3]}:{self.ports[3]}\n")
        self.extra = list(extra)
        self.repl_extra = list(repl_extra)
        self.nodes = []

    def node_argv(self, i):
        binary = os.path.abspath(BINARY)
        extra = list(self.extra)
        if i < 3:
            extra += ["--replication", "yes", "--repl-listen", self.repl[i],
                      "--repl-peers",
                      *[r for j, r in enumerate(self.repl) if j != i],
                      "--repl-ack-timeout", "0.5", "--repl-heartbeat", "0.5",
                      *self.repl_extra]
            if i == 0:
                extra += ["--repl-group-creator", "yes"]
        return lambda s: [
            binary, "--port", str(s.port), "--bind", self.hosts[i], "--dir",
            os.path.join(s.dir, "data"), "--logfile",
            os.path.join(s.dir, "frontierd.log"),
            "--cluster-config-file", self.path, *extra]


def url_of(i, host_count=200):
    host = f"h{i % host_count}.example"
    return f"http://{host}/page/{i}", host


def advice(n, ready_sites, leased, waiting):
    """HINT's rule, as docs/commands.md states it."""
    if (waiting > 0 and ready_sites == 0) or leased > n:
        return b"slow-down"
    if ready_sites > 0 and waiting == 0 and 4 * leased < 3 * n:
        return b"hurry-up"
    return b"steady"
