#!/usr/bin/env python3
"""RESP for `redis-cli --pipe`: MADD commands adding COUNT new URLs over
SITES sites, BATCH to a command, in the host form of frontier-bench's
synthetic web (http://www.siteN.test/...), under the path prefix TAG so
that two runs with different tags never repeat a URL.

    scripts/madd-load.py TAG COUNT [SITES] [BATCH] | redis-cli -p P --pipe

The 100M soak (scripts/soak-100m.sh) loads with it: one MADD of 1,000
URLs is one transaction, where frontier-bench's add sends one ADD each.
"""
import random
import sys


def main():
    tag = sys.argv[1]
    count = int(sys.argv[2])
    sites = int(sys.argv[3]) if len(sys.argv) > 3 else 1000000
    batch = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
    rng = random.Random(tag)
    out = sys.stdout.buffer
    i = 0
    while i < count:
        n = min(batch, count - i)
        parts = [b"*%d\r\n$4\r\nMADD\r\n$0\r\n\r\n" % (n + 2)]
        for j in range(i, i + n):
            url = b"http://www.site%d.test/%s/p%d.html" % (
                rng.randrange(sites), tag.encode(), j)
            parts.append(b"$%d\r\n%s\r\n" % (len(url), url))
        out.write(b"".join(parts))
        i += n
    out.flush()


if __name__ == "__main__":
    main()
