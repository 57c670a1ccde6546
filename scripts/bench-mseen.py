#!/usr/bin/env python3
"""Compares MSEEN (DRUM's check) with MADD's lookups (check + update).

    python3 scripts/bench-mseen.py build-bench/frontierd [rounds]

Starts the given frontierd on a free loopback port in a temporary directory
(fsync no: the disk is not what is measured), stores 200,000 URLs over
2,000 sites, then, alternating, sends the same batches of 50 known URLs as
MSEEN and as MADD (whose links are all known, so it only looks them up and
counts a back-link each), and reports the server's CPU time per URL for
each (the server process's user + system time from /proc, so the client's
own time does not count), as the median over the rounds. Issue 9 asks MSEEN to be
at least as fast per URL as MADD's lookups. Needs python3-redis.
"""
import os
import random
import statistics
import sys

from bench_server import frontierd

URLS = 200_000
SITES = 2_000
BATCH = 50
BATCHES = 2000  # per measured run: 100,000 URLs (CPU ticks are 10 ms)


def server_cpu(pid):
    """The server's user + system CPU seconds, from /proc."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(r, pid, command, batches):
    pipe = r.pipeline(transaction=False)
    before = server_cpu(pid)
    for i, batch in enumerate(batches):
        if command == "MADD":
            pipe.execute_command("MADD", "", *batch)
        else:
            pipe.execute_command("MSEEN", *batch)
        if i % 20 == 19:
            pipe.execute()
    pipe.execute()
    return (server_cpu(pid) - before) / (len(batches) * BATCH) * 1e6  # µs/URL


def main():
    binary = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    with frontierd(binary, "--politeness-delay", "0", decode_responses=True) as (proc, r):
        urls = ["http://s%d.example/page/%d" % (i % SITES, i)
                for i in range(URLS)]
        for start in range(0, URLS, 5000):
            r.execute_command("MADD", "", *urls[start:start + 5000])
        rng = random.Random(7)
        results = {"MSEEN": [], "MADD": []}
        for _ in range(rounds):
            batches = [rng.sample(urls, BATCH) for _ in range(BATCHES)]
            for command in ("MSEEN", "MADD"):
                results[command].append(run(r, proc.pid, command, batches))
        for command, values in results.items():
            print("%-5s %.2f µs of server CPU per URL (median of %d; runs: %s)"
                  % (command, statistics.median(values), rounds,
                     " ".join("%.2f" % v for v in values)))
        print("MSEEN / MADD: %.2f" % (statistics.median(results["MSEEN"]) /
                                      statistics.median(results["MADD"])))


if __name__ == "__main__":
    main()
