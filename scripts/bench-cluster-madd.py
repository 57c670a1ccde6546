#!/usr/bin/env python3
"""MADD across shards (docs/cluster.md, docs/performance.md): three
one-process shards on 127.0.0.2-.4 (free ports, `fsync everysec`, in a
temporary directory, every process stopped by its PID), then one client
sends MADDs of LINKS new links (a page's, on 30 sites) one after another,
and prints each workload's p50 / p95 / p99 / mean latency in ms and the
CPU time the three servers spent per MADD (/proc, user + system):

- local: the ref and every link on the node's own shard;
- spread: the ref on the node's shard, one third of the links there and
  two thirds on the two other shards (MADDLINKS to each);
- forwarded: the ref on another shard (the whole MADD forwarded there),
  every link on that shard.

    /usr/bin/python3 scripts/bench-cluster-madd.py build/frontierd [N] [LINKS] [RUNS]

Each run is a fresh cluster; the last lines are the medians over RUNS.
"""
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import redis
from redis.crc import key_slot

HOSTS = ["127.0.0.2", "127.0.0.3", "127.0.0.4"]
RANGES = [(0, 5460), (5461, 10922), (10923, 16383)]


def shard_of(site):
    slot = key_slot(site.encode())
    return next(i for i, (a, b) in enumerate(RANGES) if a <= slot <= b)


def cpu_seconds(procs):
    """User + system CPU time of the server processes, in seconds."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for p in procs:
        with open(f"/proc/{p.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


def free_port(host):
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def sites_of(shard, n):
    out, i = [], 0
    while len(out) < n:
        site = f"www.s{i}.test"
        if shard_of(site) == shard:
            out.append(site)
        i += 1
    return out


def start(binary, tmp):
    ports = [free_port(h) for h in HOSTS]
    path = os.path.join(tmp, "cluster.conf")
    with open(path, "w") as f:
        f.write("epoch 1\n")
        for name, (a, b) in zip("abc", RANGES):
            f.write(f"shard {name} {a}-{b}\n")
        for name, h, p in zip("abc", HOSTS, ports):
            f.write(f"node {name} {h}:{p}\n")
    procs = []
    for name, h, p in zip("abc", HOSTS, ports):
        procs.append(subprocess.Popen(
            [binary, "--port", str(p), "--bind", h, "--dir",
             os.path.join(tmp, name), "--logfile",
             os.path.join(tmp, name + ".log"), "--fsync", "everysec",
             "--politeness-delay", "0", "--cluster-config-file", path]))
    clients = [redis.Redis(host=h, port=p, socket_timeout=30)
               for h, p in zip(HOSTS, ports)]
    for c in clients:
        wait_ready(c)
    return procs, clients


def wait_ready(client):
    """Until the server answers PING (10 s at most)."""
    for _ in range(200):
        try:
            client.ping()
            return
        except redis.ConnectionError:
            time.sleep(0.05)


def stop(procs):
    """SIGTERM to each server, then wait (20 s, then SIGKILL)."""
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def run_once(binary, n, links):
    tmp = tempfile.mkdtemp(prefix="frontierd-madd-bench-")
    procs = []
    try:
        procs, clients = start(binary, tmp)
        sites = [sites_of(s, 30) for s in range(3)]
        third = links // 3

        def page(shard_sites, tag, k, count):
            return [f"http://{shard_sites[j % 30]}/{tag}/{k}/{j}"
                    for j in range(count)]

        workloads = {
            "local": (0, lambda k: (f"http://{sites[0][0]}/ref{k}",
                                    page(sites[0], "l", k, links))),
            "spread": (0, lambda k: (f"http://{sites[0][0]}/ref{k}",
                                     page(sites[0], "s", k, links - 2 * third)
                                     + page(sites[1], "s", k, third)
                                     + page(sites[2], "s", k, third))),
            "forwarded": (1, lambda k: (f"http://{sites[0][0]}/fref{k}",
                                        page(sites[0], "f", k, links))),
        }
        results = {}
        for name, (node, make) in workloads.items():
            c = clients[node]
            for k in range(min(200, n)):  # warm-up, not counted
                ref, urls = make(-1 - k)
                c.execute_command("MADD", ref, *urls)
            times = []
            cpu_before = cpu_seconds(procs)
            for k in range(n):
                ref, urls = make(k)
                started = time.perf_counter()
                reply = c.execute_command("MADD", ref, *urls)
                times.append((time.perf_counter() - started) * 1000)
                assert len(reply) == len(urls) and set(reply) == {1}, reply
            cpu_us = (cpu_seconds(procs) - cpu_before) / n * 1e6
            times.sort()
            results[name] = (times[len(times) // 2],
                             times[int(len(times) * 0.95)],
                             times[int(len(times) * 0.99)],
                             statistics.mean(times), cpu_us)
        return results
    finally:
        stop(procs)
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    binary = os.path.abspath(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    links = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    all_runs = []
    for r in range(runs):
        res = run_once(binary, n, links)
        all_runs.append(res)
        for name, (p50, p95, p99, mean, cpu) in res.items():
            print(f"run {r + 1} {name:9s} p50 {p50:.3f} p95 {p95:.3f} "
                  f"p99 {p99:.3f} mean {mean:.3f} ms, servers' CPU "
                  f"{cpu:.0f} us/MADD", flush=True)
    for name in all_runs[0]:
        med = [statistics.median(run[name][i] for run in all_runs)
               for i in range(5)]
        print(f"median {name:9s} p50 {med[0]:.3f} p95 {med[1]:.3f} "
              f"p99 {med[2]:.3f} mean {med[3]:.3f} ms, servers' CPU "
              f"{med[4]:.0f} us/MADD")
    for i, what in ((0, "p50"), (2, "p99")):
        local = statistics.median(run["local"][i] for run in all_runs)
        spread = statistics.median(run["spread"][i] for run in all_runs)
        print(f"spread {what} / local {what} = {spread / local:.2f}")


if __name__ == "__main__":
    main()
