#!/usr/bin/env python3
"""URL Frontier's gRPC API against RESP on one frontierd (docs/urlfrontier.md,
"Measured"): the same URLs put and got both ways, on one machine.

  - put: PutURLs of N URLs on one stream vs ADD pipelined (redis-py,
    no transaction) on one connection;
  - batch: PutDiscovered of N URLs in batches of 100 vs MADD of 100;
  - get: GetURLs (max_queues 1000) vs POP COUNT 1000 until N URLs are out.

Each measure starts a fresh frontierd (fsync always, the default) on a free
loopback port in a temp dir, and is run --runs times; the medians are
printed in URLs per second.

    /usr/bin/python3 clients/bench/urlfrontier-bench.py build/frontierd [--urls 10000] [--runs 5]
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

import grpc
import redis

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
import servers  # noqa: E402
import urlfrontier_stubs  # noqa: E402

pb = rpc = None


def urls(n):
    # 1,000 sites, so that a GetURLs or POP COUNT 1000 can fill up.
    return [f"https://site{i % 1000}.example/page/{i}" for i in range(n)]


class Frontier:
    """A fresh frontierd with its gRPC door, polite to nobody."""

    def __init__(self, binary):
        self.grpc_port = servers.free_port()
        self.server = servers.frontierd(
            binary, "--urlfrontier-port", str(self.grpc_port),
            "--politeness-delay", "0", "--site-max-leases", "0")

    def __enter__(self):
        self.server.__enter__()
        self.channel = grpc.insecure_channel(f"127.0.0.1:{self.grpc_port}")
        grpc.channel_ready_future(self.channel).result(timeout=10)
        self.stub = rpc.URLFrontierStub(self.channel)
        self.resp = redis.Redis(host="127.0.0.1", port=self.server.port)
        return self

    def __exit__(self, *exc):
        self.channel.close()
        self.resp.close()
        self.server.__exit__(*exc)


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def put_grpc(f, batch):
    items = (pb.URLItem(discovered=pb.DiscoveredURLItem(
        info=pb.URLInfo(url=u))) for u in batch)
    acks = list(f.stub.PutURLs(items, timeout=600))
    assert all(a.status == pb.AckMessage.OK for a in acks), "PutURLs"
    assert len(acks) == len(batch)


def put_resp(f, batch):
    p = f.resp.pipeline(transaction=False)
    for u in batch:
        p.execute_command("ADD", u)
    assert all(r == 1 for r in p.execute()), "ADD"


def batches_grpc(f, batch):
    msgs = (pb.DiscoveredBatch(ID=str(i), items=[
        pb.URLInfo(url=u) for u in batch[i:i + 100]
    ]) for i in range(0, len(batch), 100))
    acks = list(f.stub.PutDiscovered(msgs, timeout=600))
    assert sum(len(a.statuses) for a in acks) == len(batch)


def batches_resp(f, batch):
    p = f.resp.pipeline(transaction=False)
    for i in range(0, len(batch), 100):
        p.execute_command("MADD", "", *batch[i:i + 100])
    assert sum(len(r) for r in p.execute()) == len(batch)


def get_grpc(f, n):
    got = 0
    for _ in range(10 * n // 1000 + 10):
        got += sum(1 for _ in f.stub.GetURLs(
            pb.GetParams(max_queues=1000, max_urls_per_queue=1), timeout=60))
        if got >= n:
            return
    raise AssertionError(f"GetURLs gave {got} of {n}")


def get_resp(f, n):
    got = 0
    for _ in range(10 * n // 1000 + 10):
        got += len(f.resp.execute_command("POP", "COUNT", "1000"))
        if got >= n:
            return
    raise AssertionError(f"POP COUNT gave {got} of {n}")


def main():
    global pb, rpc
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--urls", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    stub_dir = tempfile.mkdtemp(prefix="urlfrontier-bench-")
    try:
        pb, rpc = urlfrontier_stubs.generate(stub_dir)
        batch = urls(args.urls)
        results = {}

        def measure(name, load, run):
            times = []
            for _ in range(args.runs):
                with Frontier(args.binary) as f:
                    if load:
                        put_resp(f, batch)
                    times.append(timed(lambda: run(f)))
            results[name] = args.urls / statistics.median(times)
            print(f"{name:34s} {results[name]:10.0f} URLs/s "
                  f"(median of {args.runs}; runs {min(times):.2f}-"
                  f"{max(times):.2f} s)", flush=True)

        measure("PutURLs (one stream)", False, lambda f: put_grpc(f, batch))
        measure("ADD pipelined", False, lambda f: put_resp(f, batch))
        measure("PutDiscovered (100 a batch)", False,
                lambda f: batches_grpc(f, batch))
        measure("MADD of 100, pipelined", False,
                lambda f: batches_resp(f, batch))
        measure("GetURLs (max_queues 1000)", True,
                lambda f: get_grpc(f, args.urls))
        measure("POP COUNT 1000", True, lambda f: get_resp(f, args.urls))
    finally:
        shutil.rmtree(stub_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
