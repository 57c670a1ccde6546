#!/usr/bin/env python3
"""The example worker (worker.py) against a frontierd cluster
(docs/cluster.md), with redis-py's RedisCluster:

    FRONTIERD_CLUSTER=host:port[,host:port...] \\
        python3 clients/examples/python/cluster_worker.py [seed-url ...]

The client reads the cluster's map (CLUSTER SLOTS) from the first node that
answers. Every URL is written "{site}url", its site in a Redis Cluster hash
tag, so the client sends ADD, MADD (placed by its ref, the page) and
CONFIRM/FAIL straight to the shard that owns the site: nothing is
forwarded. The site is the URL's host, as frontierd names it under
`politeness-scope host` (its default). BPOP has no key: it goes to a node
chosen at random, with ANYSHARD, so that it takes another shard's URL when
that node's shard has none ready. Password FRONTIERD_PASSWORD if set.
The loop is worker.py's crawl(): BPOP, fetch, MADD the links, CONFIRM (or
FAIL with a delay). SIGINT or SIGTERM stop it after the page in hand.
"""
import os
import signal
import sys
from urllib.parse import urlsplit

from redis.cluster import ClusterNode, RedisCluster

import worker  # its crawl loop, its fetch

def tagged(url):
    """url as a key of its site's slot: "{site}url"."""
    return "{" + (urlsplit(url).hostname or "") + "}" + url


class ClusterFrontier:
    """What worker.crawl() calls, on a RedisCluster: each URL's command
    straight to its site's shard, BPOP to any node with ANYSHARD."""

    def __init__(self, rc):
        self.rc = rc

    def on_shard(self, name, url, *args):
        return self.rc.execute_command(name, tagged(url), *args)

    def add(self, url):
        return self.on_shard("ADD", url)

    def bpop(self, timeout):
        # Any node; ANYSHARD: another shard's URL if that one has none.
        return self.rc.execute_command("BPOP", timeout, "ANYSHARD",
                                       target_nodes=RedisCluster.RANDOM)

    def release(self, url):
        return self.on_shard("RELEASE", url)

    def fail(self, url, delay):
        return self.on_shard("FAIL", url, "DELAY", delay)

    def madd(self, url, links):
        # To the page's shard, which stores there the links of its own
        # sites and sends each other shard its links, in one command.
        return self.on_shard("MADD", url, *links)

    def confirm(self, url, status, fetch_ms=None, body=None):
        args = ["STATUS", status]
        if fetch_ms is not None:
            args += ["FETCH-MS", int(fetch_ms)]
        if body is not None:
            args += ["BODY", body]
        return self.on_shard("CONFIRM", url, *args)


def connect():
    nodes = []
    for address in os.environ["FRONTIERD_CLUSTER"].split(","):
        host, port = address.rsplit(":", 1)
        nodes.append(ClusterNode(host, int(port)))
    return RedisCluster(startup_nodes=nodes, decode_responses=True,
                        password=os.environ.get("FRONTIERD_PASSWORD") or None,
                        socket_timeout=30)


def main():
    signal.signal(signal.SIGINT, worker.stop)
    signal.signal(signal.SIGTERM, worker.stop)
    rc = connect()
    worker.crawl(ClusterFrontier(rc), sys.argv[1:], retry=lambda call: call())
    rc.close()


if __name__ == "__main__":
    main()
