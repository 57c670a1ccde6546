#!/usr/bin/env python3
"""Times SITE DELETE of a large site and the background removal after it.

    python3 scripts/bench-site-delete.py build/frontierd [urls]

Starts the given frontierd on a free loopback port in a temporary
directory (fsync no: loading is not what is measured), adds one host of
`urls` URLs (default 1,000,000) and one other URL, then prints the time of
the SITE DELETE reply, how long until ADD of one of the deleted URLs is
accepted again (the removal is over), and the latency of SEEN and ADD
sent in a loop meanwhile (median and max: the stall a client sees while
the removal runs). Needs python3-redis. The figures quoted in
docs/design.md ("Deleting a large site") come from this script.
"""
import statistics
import sys
import time

from bench_server import frontierd


def timed(r, *cmd):
    t = time.perf_counter()
    reply = r.execute_command(*cmd)
    return reply, time.perf_counter() - t


def main():
    binary = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    with frontierd(binary) as (proc, r):
        batch = 10_000
        for start in range(0, n, batch):
            r.execute_command("MADD", "", *["http://big.example/%d" % i
                                            for i in range(start,
                                                           min(start + batch, n))])
        r.execute_command("ADD", "http://keep.example/")
        time.sleep(1)  # let the write-behind settle after the load
        removed, reply_s = timed(r, "SITE", "DELETE", "big.example")
        print("SITE DELETE replied %d in %.2f ms" % (removed, reply_s * 1000))
        seen, add = [], []
        start = time.perf_counter()
        deadline = start + 600
        while time.perf_counter() < deadline:
            _, s = timed(r, "SEEN", "http://keep.example/")
            seen.append(s)
            reply, s = timed(r, "ADD", "http://big.example/0")
            add.append(s)
            if reply != -1:
                break
        print("removal over after %.2f s" % (time.perf_counter() - start))
        for name, times in (("SEEN", seen), ("ADD", add)):
            print("%s meanwhile: median %.2f ms, max %.1f ms over %d" %
                  (name, statistics.median(times) * 1000, max(times) * 1000,
                   len(times)))


if __name__ == "__main__":
    main()
