#!/usr/bin/env python3
"""Scrapy processes crawling a local site through frontierd, against the
same crawl through a scheduler of scrapy-redis's design on a redis-server
(redis_design.py beside this file): issue 24's target, frontierd ≥ 0.9×.

    /usr/bin/python3 clients/scrapy/bench/scrapy-bench.py \
        [--frontierd build/frontierd] [--processes 4] [--hosts 4] \
        [--pages 1000] [--links 8] [--runs 3] [--redis-fsync always]

The site: --hosts HTTP servers on 127.0.0.2, .3, … (one process each, so
the site is not the bottleneck of one interpreter), --pages pages per host,
each linking to --links pages, on its own host and the next one (a tree
that reaches every page, plus links back to pages already known, so both
duplicate filters work). Every run starts a fresh server and fresh site
processes, runs --processes `scrapy runspider` processes with the seeds
(each host's /p0), and waits for all to close on their own (both schedulers
close a spider once the shared queue has been empty and nothing leased for
2 s). Runs alternate frontierd, redis, frontierd, … so that both see the
same machine.

Pages/s is read on the site's side: the distinct pages served divided by
the time from the first request to the last, so the idle wait at the end
counts for neither. A run that did not fetch every page, or fetched one
twice, is reported as such (scrapy-redis's design refetches nothing here
either: no process dies).

Politeness is off on both sides: frontierd runs with --politeness-delay 0
--site-max-leases 0, Scrapy with DOWNLOAD_DELAY 0 and 32 concurrent
requests per process and per domain. Durability: frontierd runs with its
default (fsync always); redis-server with --redis-fsync (appendonly yes,
appendfsync always by default, the same promise; `no` runs it without AOF,
scrapy-redis's usual setting).
"""
import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))

SITE = r'''
import http.server, json, signal, sys, threading, time
host, port, pages, links, hosts, out = sys.argv[1:7]
port, pages, links = int(port), int(pages), int(links)
hosts = hosts.split(",")
nxt = hosts[(hosts.index(host) + 1) % len(hosts)]
log = []
lock = threading.Lock()

def page(n):
    hrefs = []
    for j in range(1, links + 1):
        m = n * links + j
        if m < pages:
            target = host if j % 2 else nxt
            hrefs.append("http://%s:%d/p%d" % (target, port, m))
    hrefs.append("/p%d" % (n // 2))      # a page already known
    hrefs.append("/p%d" % max(0, n - 1))
    body = "".join('<a href="%s">%s</a>\n' % (h, h) for h in hrefs)
    return ("<html><body><h1>%s page %d</h1>\n%s</body></html>"
            % (host, n, body)).encode()

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a):
        pass
    def do_GET(self):
        with lock:
            log.append((time.time(), self.path))
        path = self.path
        n = int(path[2:]) if path.startswith("/p") and path[2:].isdigit() else -1
        if n < 0 or n >= pages:
            body, status = b"not here", 404
        else:
            body, status = page(n), 200
        self.send_response(status)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

server = http.server.ThreadingHTTPServer((host, port), Handler)
server.daemon_threads = True
def stop(*a):
    with lock:
        with open(out, "w") as f:
            json.dump(log, f)
    threading.Thread(target=server.shutdown).start()
signal.signal(signal.SIGTERM, stop)
print("ready", flush=True)
server.serve_forever()
'''

SPIDER = r'''
import os
import scrapy

class Bench(scrapy.Spider):
    name = "bench"

    def start_requests(self):
        for url in os.environ["SEEDS"].split():
            yield scrapy.Request(url)

    def parse(self, response):
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href, callback=self.parse)
'''


def free_port(host="127.0.0.1"):
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def wait_port(host, port, proc, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server on {host}:{port} exited")
        try:
            socket.create_connection((host, port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {host}:{port}")


def stop(proc, sig=signal.SIGTERM):
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


class Run:
    """One crawl: a server, the site, --processes Scrapy processes."""

    def __init__(self, args, kind):
        self.args, self.kind = args, kind
        self.tmp = tempfile.mkdtemp(prefix=f"scrapy-bench-{kind}-")
        self.procs = []

    def start_server(self):
        port = free_port()
        log = open(os.path.join(self.tmp, "server.log"), "wb")
        if self.kind == "frontierd":
            argv = [self.args.frontierd, "--port", str(port), "--bind",
                    "127.0.0.1", "--dir", os.path.join(self.tmp, "data"),
                    "--politeness-delay", "0", "--site-max-leases", "0"]
        else:
            argv = [shutil.which("redis-server"), "--port", str(port),
                    "--bind", "127.0.0.1", "--dir", self.tmp, "--save", ""]
            if self.args.redis_fsync == "no":
                argv += ["--appendonly", "no"]
            else:
                argv += ["--appendonly", "yes", "--appendfsync",
                         self.args.redis_fsync]
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        self.procs.append(proc)
        wait_port("127.0.0.1", port, proc)
        return port

    def start_site(self):
        hosts = [f"127.0.0.{i + 2}" for i in range(self.args.hosts)]
        port = free_port(hosts[0])
        self.site = []
        for host in hosts:
            out = os.path.join(self.tmp, f"site-{host}.json")
            proc = subprocess.Popen(
                [sys.executable, "-c", SITE, host, str(port),
                 str(self.args.pages), str(self.args.links), ",".join(hosts),
                 out], stdout=subprocess.DEVNULL)
            self.procs.append(proc)
            self.site.append((proc, out))
            wait_port(host, port, proc)
        return [f"http://{h}:{port}/p0" for h in hosts]

    def scrapy_argv(self, port):
        common = ["-s", "ROBOTSTXT_OBEY=False", "-s", "DOWNLOAD_DELAY=0",
                  "-s", f"CONCURRENT_REQUESTS={self.args.concurrency}",
                  "-s",
                  f"CONCURRENT_REQUESTS_PER_DOMAIN={self.args.concurrency}",
                  "-s", "TELNETCONSOLE_ENABLED=False", "-s", "LOG_LEVEL=INFO",
                  "-s", "RETRY_ENABLED=False"]
        if self.kind == "frontierd":
            return common + [
                "-s", "SCHEDULER=scrapy_frontierd.Scheduler",
                "-s", f"FRONTIERD_URL=redis://127.0.0.1:{port}",
                "-s", "FRONTIERD_IDLE_TIMEOUT=2"]
        return common + [
            "-s", "SCHEDULER=redis_design.Scheduler",
            "-s", f"REDIS_DESIGN_URL=redis://127.0.0.1:{port}",
            "-s", "REDIS_DESIGN_IDLE_TIMEOUT=2"]

    def crawl(self):
        try:
            port = self.start_server()
            seeds = self.start_site()
            with open(os.path.join(self.tmp, "spider.py"), "w") as f:
                f.write(SPIDER)
            env = dict(os.environ, SEEDS=" ".join(seeds),
                       PYTHONPATH=os.pathsep.join([
                           os.path.join(ROOT, "clients", "scrapy"),
                           os.path.join(ROOT, "clients", "python"), HERE]))
            crawlers = []
            for n in range(self.args.processes):
                log = open(os.path.join(self.tmp, f"scrapy-{n}.log"), "wb")
                proc = subprocess.Popen(
                    [sys.executable, "-m", "scrapy", "runspider", "spider.py",
                     *self.scrapy_argv(port)], cwd=self.tmp, env=env,
                    stdout=log, stderr=subprocess.STDOUT)
                log.close()
                self.procs.append(proc)
                crawlers.append(proc)
            deadline = time.monotonic() + self.args.timeout
            for proc in crawlers:
                proc.wait(timeout=max(1, deadline - time.monotonic()))
                if proc.returncode != 0:
                    raise RuntimeError(f"scrapy exited {proc.returncode}; "
                                       f"logs in {self.tmp}")
            log = []
            for proc, out in self.site:
                stop(proc)
                with open(out) as f:
                    log += [(t, out, path) for t, path in json.load(f)]
            return self.summary(log)
        finally:
            for proc in reversed(self.procs):
                stop(proc)
            if not self.args.keep:
                shutil.rmtree(self.tmp, ignore_errors=True)

    def summary(self, log):
        pages = [(out, path) for _, out, path in log]
        distinct = len(set(pages))
        times = [t for t, _, _ in log]
        elapsed = max(times) - min(times)
        return {"kind": self.kind, "requests": len(log), "distinct": distinct,
                "expected": self.args.hosts * self.args.pages,
                "seconds": elapsed, "pages_per_s": distinct / elapsed}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frontierd",
                        default=os.path.join(ROOT, "build", "frontierd"))
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--hosts", type=int, default=4)
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--links", type=int, default=8)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--redis-fsync", default="always",
                        choices=["always", "everysec", "no"])
    parser.add_argument("--keep", action="store_true",
                        help="keep each run's directory (logs)")
    args = parser.parse_args()
    args.frontierd = os.path.abspath(args.frontierd)
    results = {"frontierd": [], "redis": []}
    for n in range(args.runs):
        for kind in ("frontierd", "redis"):
            r = Run(args, kind).crawl()
            results[kind].append(r)
            ok = ("complete" if r["distinct"] == r["expected"] and
                  r["requests"] == r["distinct"] else
                  f"INCOMPLETE ({r['distinct']} of {r['expected']} pages, "
                  f"{r['requests']} requests)")
            print(f"run {n + 1} {kind:9} {r['pages_per_s']:8.1f} pages/s "
                  f"{r['seconds']:6.1f} s {ok}", flush=True)
    med = {k: statistics.median(r["pages_per_s"] for r in v)
           for k, v in results.items()}
    print(f"median frontierd {med['frontierd']:.1f} pages/s, redis design "
          f"{med['redis']:.1f} pages/s, ratio "
          f"{med['frontierd'] / med['redis']:.2f}")
    complete = all(r["distinct"] == r["expected"]
                   for v in results.values() for r in v)
    return 0 if complete else 1


if __name__ == "__main__":
    sys.exit(main())
