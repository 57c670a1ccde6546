#!/usr/bin/env python3
"""A minimal frontierd crawler worker: the README's, runnable.

    python3 clients/examples/python/worker.py [seed-url ...]

Uses frontierd's Python client (clients/python, docs/python.md; found
there when it is not installed), which needs redis-py (Debian:
python3-redis). Connects to FRONTIERD_HOST and
FRONTIERD_PORT (default 127.0.0.1:7379), password FRONTIERD_PASSWORD if set;
or, with FRONTIERD_SENTINELS=host:port,... (a replication group's sites),
to the master they name (FRONTIERD_REPL_NAME, default frontierd), and to
the new one after a failover: a command that failed with the old master is
re-issued. Each seed is added (0 if already known); then it leases a URL (BPOP),
fetches it, adds the page's links (MADD, the page as ref) and confirms it
with its HTTP status and how long the fetch took (CONFIRM url STATUS code
FETCH-MS ms, which the frontier uses for its statistics and adaptive
politeness), or reports a failure (FAIL with a delay). A robots.txt, which
a frontierd running with `robots yes` hands out before any other URL of its
origin, is reported whatever its status, with its bytes: CONFIRM url STATUS
code BODY bytes; the frontier reads the rules and never hands out a URL
they disallow. SIGINT or SIGTERM stop it after the page in hand; a URL
leased and not fetched is handed back.
"""
import os
import re
import signal
import sys
import time
import urllib.error
import urllib.request
from urllib.parse import urldefrag, urljoin, urlsplit

try:
    import frontierd
except ImportError:  # not installed: the copy in this repository
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
        __file__)), "..", "..", "python"))
    import frontierd
import redis  # for its connection errors

HREF = re.compile(r'href\s*=\s*["\']([^"\'#]*)', re.IGNORECASE)
MAX_BYTES = 2_000_000
RETRY_DELAY = 60  # seconds before a failed fetch is tried again

stopping = False


def stop(signum, frame):
    global stopping
    stopping = True


def fetch(url):
    """Returns (status, final url, body bytes); raises on a transport error.
    Redirects are followed (urllib: at most 10; RFC 9309 asks for 5)."""
    request = urllib.request.Request(
        url, headers={"User-Agent": "frontierd-example-python/0.1"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.geturl(), response.read(
                MAX_BYTES)
    except urllib.error.HTTPError as error:  # 4xx and 5xx answers
        return error.code, url, b""


# What a failover of a replication group (or a site joining it) makes a
# command fail with: the command is re-issued (to the new master, once the
# sites name it).
RETRYABLE = (frontierd.NoQuorum, frontierd.NoReplicas, frontierd.TryAgain,
             frontierd.ReadOnlyReplica, redis.ConnectionError,
             redis.TimeoutError)
RETRY_FOR = 60  # seconds


def again(call):
    """call(), re-issued while a failover makes it fail (RETRY_FOR s)."""
    deadline = time.monotonic() + RETRY_FOR
    while True:
        try:
            return call()
        except RETRYABLE:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def connect():
    password = os.environ.get("FRONTIERD_PASSWORD") or None
    sentinels = os.environ.get("FRONTIERD_SENTINELS")
    if sentinels:
        sites = [(a.rsplit(":", 1)[0], int(a.rsplit(":", 1)[1]))
                 for a in sentinels.split(",")]
        return frontierd.Frontier.from_sentinels(
            sites, os.environ.get("FRONTIERD_REPL_NAME", "frontierd"),
            password=password, socket_timeout=10)
    return frontierd.Frontier(
        host=os.environ.get("FRONTIERD_HOST", "127.0.0.1"),
        port=int(os.environ.get("FRONTIERD_PORT", "7379")),
        password=password)


def is_robots_txt(url):
    return urlsplit(url).path == "/robots.txt" and not urlsplit(url).query


def crawl(f, seeds, retry=again):
    """The crawl loop on `f`, a frontierd.Frontier or anything with its
    add, bpop, release, fail, madd and confirm (cluster_worker.py's), each
    call through retry()."""
    for seed in seeds:
        retry(lambda: f.add(seed))

    while not stopping:
        url = retry(lambda: f.bpop(1))  # wait up to 1 s for a ready URL
        if url is None:
            continue
        if stopping:  # leased while stopping: give it back at once
            retry(lambda: f.release(url))
            break
        started = time.monotonic()
        try:
            status, final_url, body = fetch(url)
        except Exception as error:  # no answer: try again later
            print("failed:", url, error, flush=True)
            retry(lambda: f.fail(url, delay=RETRY_DELAY))
            continue
        if is_robots_txt(url):  # the frontier reads it, 5xx included
            retry(lambda: f.confirm(url, status=status, body=body))
            print(status, url, len(body), "bytes of rules", flush=True)
            continue
        if status == 429 or status >= 500:  # the server asks for patience
            print(status, url, flush=True)
            retry(lambda: f.fail(url, delay=RETRY_DELAY))
            continue
        html = body.decode("utf-8", "replace")
        links = {urldefrag(urljoin(final_url, href))[0]
                 for href in HREF.findall(html)}
        links = [link for link in links
                 if link.startswith(("http://", "https://"))]
        if links:
            # One result per link: 1 new, 0 known, -1 refused, -2 out of
            # scope, or a frontierd.InvalidURL for a link that is not a URL.
            retry(lambda: f.madd(url, links))
        fetch_ms = (time.monotonic() - started) * 1000
        retry(lambda: f.confirm(url, status=status, fetch_ms=fetch_ms))
        print(status, url, len(links), "links", flush=True)


def main():
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    crawl(connect(), sys.argv[1:])


if __name__ == "__main__":
    main()
