#!/usr/bin/env python3
"""Times the SITE commands that read many records, on a fresh frontierd.

    python3 scripts/bench-site-commands.py build/frontierd

Starts the given frontierd on a free loopback port in a temporary
directory (fsync no: loading is not what is measured), adds 100,000 sites
of one URL each and one host of 100,000 URLs, then prints the median time
of SITE TOP 10, SITE LIST COUNT 100000 and COUNT 1000, SITE INFO, and the
time of one SITE DELETE of the large host. Needs python3-redis. The
figures quoted in docs/design.md come from this script.
"""
import statistics
import sys
import time

from bench_server import frontierd


def main():
    binary = sys.argv[1]
    with frontierd(binary, "--politeness-delay", "0", decode_responses=True) as (proc, r):
        batch = 5000
        for start in range(0, 100_000, batch):
            r.execute_command("MADD", "", *["http://s%d.example/" % i
                                            for i in range(start, start + batch)])
        for start in range(0, 100_000, batch):
            r.execute_command("MADD", "", *["http://big.example/%d" % i
                                            for i in range(start, start + batch)])

        def timed(*cmd, runs=5):
            times = []
            for _ in range(runs):
                t = time.perf_counter()
                r.execute_command(*cmd)
                times.append((time.perf_counter() - t) * 1000)
            return statistics.median(times)

        print("SITE TOP 10: median %.1f ms" % timed("SITE", "TOP", "10", runs=9))
        print("SITE LIST COUNT 100000: median %.1f ms"
              % timed("SITE", "LIST", "COUNT", "100000"))
        print("SITE LIST COUNT 1000: median %.2f ms"
              % timed("SITE", "LIST", "COUNT", "1000"))
        print("SITE INFO: median %.3f ms"
              % timed("SITE", "INFO", "s5.example", runs=50))
        t = time.perf_counter()
        n = r.execute_command("SITE", "DELETE", "big.example")
        print("SITE DELETE of %d URLs: %.0f ms"
              % (n, (time.perf_counter() - t) * 1000))


if __name__ == "__main__":
    main()
