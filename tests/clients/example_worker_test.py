#!/usr/bin/env python3
"""End-to-end test of an example worker (clients/examples/): a real frontierd
on a free loopback port in a temporary directory, a two-host web site on
127.0.0.2 and 127.0.0.3 served from this process, and the worker given the
site's home page as its seed. Passes when every reachable page was fetched
exactly once, the unlinked one never, the frontier has everything done, and
the worker exits 0 on SIGINT. With --robots, frontierd runs with `robots
yes` and the first host's robots.txt disallows one linked page: each
robots.txt must be fetched once, before anything else of its host, and the
disallowed page never (the worker reports the robots.txt BODY).

With --cluster, frontierd is three one-process shards (docs/cluster.md) on
127.0.0.4-.6, the worker gets FRONTIERD_CLUSTER=host:port,..., and the
counts are STATS CLUSTER's (every shard's).

    example_worker_test.py --frontierd build/frontierd [--robots] [--cluster] -- node worker.js
"""
import argparse
import http.server
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

import redis

DEADLINE_SECS = 60


class Site:
    """Pages per (host, path); everything else answers 404. Logs requests."""

    def __init__(self, hosts):
        self.pages = {}
        self.log = []
        self.lock = threading.Lock()
        self.servers = []
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                host = self.server.server_address[0]
                with site.lock:
                    site.log.append((host, self.path,
                                     self.headers.get("User-Agent", "")))
                body = site.pages.get((host, self.path))
                status = 200 if body is not None else 404
                data = (body or "<html>not found</html>").encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        for attempt in range(20):
            port = free_port()
            try:
                servers = [http.server.ThreadingHTTPServer((h, port), Handler)
                           for h in hosts]
            except OSError:
                continue
            self.port = port
            self.servers = servers
            break
        else:
            raise RuntimeError("cannot bind the loopback hosts to one port")
        for server in self.servers:
            threading.Thread(target=server.serve_forever, daemon=True).start()

    def url(self, host, path):
        return "http://%s:%d%s" % (host, self.port, path)

    def close(self):
        for server in self.servers:
            server.shutdown()
            server.server_close()


def free_port(host="127.0.0.1"):
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def start_frontierd(binary, tmp, extra, host="127.0.0.1", name="",
                    port=None, cluster_file=None):
    for attempt in range(4):
        port = port or free_port(host)
        log = open(os.path.join(tmp, "frontierd%s.out" % name), "ab")
        argv = [binary, "--port", str(port), "--bind", host,
                "--dir", os.path.join(tmp, "data" + name),
                "--logfile", os.path.join(tmp, "frontierd%s.log" % name),
                "--politeness-delay", "0.2", "--site-max-leases", "1",
                "--timer-ms", "10", *extra]
        if cluster_file:
            argv += ["--cluster-config-file", cluster_file]
        proc = subprocess.Popen(argv, stdout=log, stderr=log)
        r = redis.Redis(host=host, port=port, decode_responses=True,
                        socket_timeout=5)
        for _ in range(200):
            if proc.poll() is not None:
                break
            try:
                if r.ping():
                    return proc, r, port
            except redis.ConnectionError:
                time.sleep(0.05)
        proc.kill()
        proc.wait()
    raise RuntimeError("frontierd did not start")


# --cluster: three one-process shards (docs/cluster.md) on these hosts.
CLUSTER_HOSTS = ["127.0.0.4", "127.0.0.5", "127.0.0.6"]


def start_cluster(binary, tmp, extra):
    """The cluster's processes, a client of its first node, and its nodes
    as FRONTIERD_CLUSTER lists them."""
    ports = [free_port(h) for h in CLUSTER_HOSTS]
    path = os.path.join(tmp, "cluster.conf")
    with open(path, "w") as f:
        f.write("epoch 1\nshard a 0-5460\nshard b 5461-10922\n"
                "shard c 10923-16383\n")
        for name, host, port in zip("abc", CLUSTER_HOSTS, ports):
            f.write("node %s %s:%d\n" % (name, host, port))
    procs, first = [], None
    for name, host, port in zip("abc", CLUSTER_HOSTS, ports):
        proc, r, _ = start_frontierd(binary, tmp, extra, host, name, port,
                                     path)
        procs.append(proc)
        first = first or r
    nodes = ",".join("%s:%d" % hp for hp in zip(CLUSTER_HOSTS, ports))
    return procs, first, nodes


def stats(r, cluster=False):
    flat = r.execute_command(*(["STATS", "CLUSTER"] if cluster else ["STATS"]))
    return dict(zip(flat[0::2], flat[1::2]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--frontierd", required=True)
    parser.add_argument("--robots", action="store_true")
    parser.add_argument("--cluster", action="store_true",
                        help="three shards; the worker gets FRONTIERD_CLUSTER")
    parser.add_argument("worker", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    worker_cmd = [a for a in args.worker if a != "--"]

    tmp = tempfile.mkdtemp(prefix="example-worker-")
    site = Site(["127.0.0.2", "127.0.0.3"])
    worker = None
    procs = []
    failures = []
    try:
        A, B = "127.0.0.2", "127.0.0.3"
        site.pages = {
            (A, "/"): '<a href="/a">a</a> <a href="%s">B</a> '
                      '<a href="/missing">404</a> <a href="/a#top">again</a>'
                      % site.url(B, "/"),
            (A, "/a"): '<a href="../">home</a> <a href="%s">b</a>'
                       % site.url(B, "/b"),
            (A, "/unlinked"): "<html>nobody links here</html>",
            (B, "/"): '<a href="%s">A</a> <a href=\'b\'>b</a>'
                      % site.url(A, "/"),
            (B, "/b"): "<html>leaf</html>",
        }
        reachable = {(A, "/"), (A, "/a"), (A, "/missing"), (B, "/"),
                     (B, "/b")}
        known = len(reachable)  # URLs the frontier ends up with
        excluded = 0
        extra = []
        if args.robots:
            site.pages[(A, "/robots.txt")] = "User-agent: *\nDisallow: /a\n"
            # B has none (404: no restrictions, RFC 9309 §2.3.1.3).
            reachable = (reachable - {(A, "/a")}) | {(A, "/robots.txt"),
                                                     (B, "/robots.txt")}
            known, excluded = len(reachable) + 1, 1
            extra = ["--robots", "yes"]

        if args.cluster:
            procs, r, nodes = start_cluster(args.frontierd, tmp, extra)
            env = dict(os.environ, FRONTIERD_CLUSTER=nodes)
        else:
            frontierd, r, port = start_frontierd(args.frontierd, tmp, extra)
            procs = [frontierd]
            env = dict(os.environ, FRONTIERD_HOST="127.0.0.1",
                       FRONTIERD_PORT=str(port))
        worker_out = open(os.path.join(tmp, "worker.out"), "wb")
        worker = subprocess.Popen(worker_cmd + [site.url(A, "/")], env=env,
                                  stdout=worker_out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + DEADLINE_SECS
        drained = False
        while time.monotonic() < deadline and worker.poll() is None:
            s = stats(r, args.cluster)
            if (s["urls"] == known and s["queued"] == 0
                    and s["leased"] == 0 and s["scheduled"] == 0):
                drained = True
                break
            time.sleep(0.05)
        if not drained:
            failures.append("frontier not drained: %s"
                            % stats(r, args.cluster))

        worker.send_signal(signal.SIGINT)
        try:
            code = worker.wait(timeout=15)
            if code != 0:
                failures.append("worker exited %d after SIGINT" % code)
        except subprocess.TimeoutExpired:
            failures.append("worker still running 15 s after SIGINT")

        counts = {}
        for host, path, agent in site.log:
            counts[(host, path)] = counts.get((host, path), 0) + 1
        for page in sorted(reachable):
            if counts.get(page, 0) != 1:
                failures.append("%s%s fetched %d times"
                                % (page[0], page[1], counts.get(page, 0)))
        for page in sorted(set(counts) - reachable):
            failures.append("unreachable %s%s fetched" % page)
        if args.robots:
            for host in (A, B):
                paths = [p for h, p, _ in site.log if h == host]
                if paths[:1] != ["/robots.txt"]:
                    failures.append("%s: robots.txt not first: %s"
                                    % (host, paths))
            rules = r.execute_command("ROBOTS", "GET", site.url(A, "/"))
            rules = dict(zip(rules[0::2], rules[1::2])) if rules else {}
            if rules.get("rules") != ["disallow /a"]:
                failures.append("ROBOTS GET %s: %s" % (A, rules))
        s = stats(r, args.cluster)
        # The worker reports each CONFIRM's STATUS (counted by class, a
        # robots.txt's too): /missing answers 404, and with --robots B's
        # robots.txt (none: 404); every other page 200.
        not_2xx = 2 if args.robots else 1
        for name, want in (("done", len(reachable)),
                           ("confirmed", len(reachable)),
                           ("confirmed_2xx", len(reachable) - not_2xx),
                           ("confirmed_4xx", not_2xx), ("failed", 0),
                           ("leased", 0), ("excluded", excluded)):
            if s[name] != want:
                failures.append("STATS %s is %s, expected %d"
                                % (name, s[name], want))
    finally:
        if worker is not None and worker.poll() is None:
            worker.kill()
            worker.wait()
        for frontierd in procs:
            frontierd.terminate()
            try:
                frontierd.wait(timeout=10)
            except subprocess.TimeoutExpired:
                frontierd.kill()
                frontierd.wait()
        site.close()
        if failures:
            for name in ("worker.out", "frontierd.log", "frontierda.log"):
                path = os.path.join(tmp, name)
                if os.path.exists(path):
                    print("--- %s" % name)
                    print(open(path, errors="replace").read()[-4000:])
        shutil.rmtree(tmp, ignore_errors=True)

    for failure in failures:
        print("FAIL:", failure)
    print("%d passed, %d failed" % (0 if failures else 1, 1 if failures else 0))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
