#!/usr/bin/env python3
"""Server CPU per crawled page, one node against a cluster of three
one-process shards (docs/performance.md, "Three shards: CPU per page and
the projection"). frontier-bench's crawl workload (POP, MADD of the page's
links, CONFIRM; by default 0.7 of the links on the page's own site)
runs against:

- one: a single frontierd, one frontier-bench of C connections;
- cluster: three shards on 127.0.0.2-.4 (bench-cluster-madd.py's start),
  one frontier-bench of C connections per node, each crawling the shard
  it is connected to (POP serves the node's shard; MADD's links and
  CONFIRM are routed by the nodes).

Prints, per run, the pages crawled, the wall time, and the servers' CPU
(user + system from /proc, over every server process) per page; the last
lines are the medians over RUNS. For the cluster, also the MADDs' parts
for other shards per page and the MADDLINKS commands that carried them
(INFO's cluster_madd_parts and cluster_madd_batches). Temporary
directories, free ports, every process stopped by its PID.

    /usr/bin/python3 scripts/bench-cluster-crawl.py build [PAGES] [RUNS] [C] \
        [LOCAL_SHARE]

LOCAL_SHARE (default 0.7) is the share of a page's links on its own site.
"""
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import redis

_spec = importlib.util.spec_from_file_location(
    "bench_cluster_madd",
    os.path.join(os.path.dirname(os.path.abspath(__file__)),
                 "bench-cluster-madd.py"))
madd = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(madd)

SITES = 3000
LINKS = 20
LOCAL_SHARE = "0.7"


def bench(tool, host, port, pages, conns, seed):
    return subprocess.Popen(
        [tool, "-h", host, "-p", str(port), "-c", str(conns), "-n",
         str(pages), "--sites", str(SITES), "--links", str(LINKS),
         "--local-share", LOCAL_SHARE, "--seed", str(seed), "--idle-wait", "5",
         "crawl"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def crawled(client):
    stats = client.execute_command("STATS")
    return dict(zip(stats[0::2], stats[1::2])).get(b"confirmed", 0)


def run_one(build, pages, conns):
    tmp = tempfile.mkdtemp(prefix="frontierd-crawl-bench-")
    procs = []
    try:
        host, port = "127.0.0.2", madd.free_port("127.0.0.2")
        procs.append(subprocess.Popen(
            [os.path.join(build, "frontierd"), "--port", str(port), "--bind",
             host, "--dir", os.path.join(tmp, "d"), "--logfile",
             os.path.join(tmp, "log"), "--fsync", "everysec",
             "--politeness-delay", "0"]))
        client = redis.Redis(host=host, port=port, socket_timeout=30)
        madd.wait_ready(client)
        return measure(build, procs, [client], [(host, port)], pages, conns)
    finally:
        madd.stop(procs)
        shutil.rmtree(tmp, ignore_errors=True)


def run_cluster(build, pages, conns):
    tmp = tempfile.mkdtemp(prefix="frontierd-crawl-bench-")
    procs = []
    try:
        procs, clients = madd.start(os.path.join(build, "frontierd"), tmp)
        addresses = [(c.connection_pool.connection_kwargs["host"],
                      c.connection_pool.connection_kwargs["port"])
                     for c in clients]
        return measure(build, procs, clients, addresses, pages // 3, conns)
    finally:
        madd.stop(procs)
        shutil.rmtree(tmp, ignore_errors=True)


def measure(build, servers, clients, addresses, pages_each, conns):
    tool = os.path.join(build, "frontier-bench")
    cpu_before = madd.cpu_seconds(servers)
    started = time.monotonic()
    benches = [bench(tool, h, p, pages_each, conns, seed=i + 1)
               for i, (h, p) in enumerate(addresses)]
    for b in benches:
        b.wait(timeout=900)
    wall = time.monotonic() - started
    cpu = madd.cpu_seconds(servers) - cpu_before
    pages = sum(crawled(c) for c in clients)
    # MADDs' parts for other shards and the MADDLINKS that carried them
    # (one per peer per pass), per page; none on one node.
    infos = [c.info("cluster") for c in clients]
    parts = sum(i.get("cluster_madd_parts", 0) for i in infos)
    batches = sum(i.get("cluster_madd_batches", 0) for i in infos)
    return (pages, wall, cpu / max(pages, 1) * 1e6, parts / max(pages, 1),
            batches / max(pages, 1))


def main():
    build = os.path.abspath(sys.argv[1])
    pages = int(sys.argv[2]) if len(sys.argv) > 2 else 30000
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    conns = int(sys.argv[4]) if len(sys.argv) > 4 else 4
    global LOCAL_SHARE
    LOCAL_SHARE = sys.argv[5] if len(sys.argv) > 5 else LOCAL_SHARE
    results = {"one": [], "cluster": []}
    for r in range(runs):
        for name, run in (("one", run_one), ("cluster", run_cluster)):
            got = run(build, pages, conns)
            results[name].append(got)
            print(f"run {r + 1} {name:7s} {got[0]} pages in {got[1]:.1f} s, "
                  f"servers' CPU {got[2]:.0f} us/page, MADDLINKS parts "
                  f"{got[3]:.2f} in {got[4]:.2f} commands per page",
                  flush=True)
    for name, got in results.items():
        print(f"median {name:7s} servers' CPU "
              f"{statistics.median(g[2] for g in got):.0f} us/page, "
              f"{statistics.median(g[0] / g[1] for g in got):.0f} pages/s")


if __name__ == "__main__":
    main()
