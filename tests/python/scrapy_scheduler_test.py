#!/usr/bin/env python3
"""scrapy_frontierd against real Scrapy processes (python3 -m scrapy
runspider), a real frontierd and HTTP servers on 127.0.0.2 and 127.0.0.3.

    python3 scrapy_scheduler_test.py path/to/frontierd
"""
import http.server
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
sys.path.insert(0, HERE)

import frontierd  # noqa: E402
import servers  # noqa: E402

BINARY = None
PAGES = 12  # per host
HOSTS = ["127.0.0.2", "127.0.0.3"]

SPIDER = r'''
import os
import scrapy

class Site(scrapy.Spider):
    name = "site"

    def start_requests(self):
        for url in os.environ["SEEDS"].split():
            yield scrapy.Request(url)
        if os.environ.get("TRIP"):
            base = os.environ["SEEDS"].split()[0]
            yield scrapy.Request(base + "post", method="POST", body=b"x=1",
                                 callback=self.parse_post, meta={"tag": "m1"},
                                 errback=self.failed)
            yield scrapy.Request(base + "post", method="POST", body=b"x=1",
                                 callback=self.parse_post, meta={"tag": "dup"})
            yield scrapy.Request(base + "post", method="POST", body=b"x=2",
                                 callback=self.parse_post, meta={"tag": "m2"})
            for n in range(2):
                yield scrapy.Request(base + "again", dont_filter=True,
                                     callback=self.parse_again,
                                     meta={"n": n}, priority=5)
            yield scrapy.Request(base + "busy", callback=self.parse_again,
                                 meta={"n": "busy"})

    def parse(self, response):
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href, callback=self.parse)
        yield {"kind": "page", "url": response.url}

    def parse_post(self, response):
        yield {"kind": "post", "tag": response.meta["tag"],
               "body": response.text}

    def parse_again(self, response):
        yield {"kind": "again", "n": response.meta["n"], "url": response.url}

    def failed(self, failure):
        yield {"kind": "errback"}
'''


class Site:
    """The local site: HOSTS × PAGES linked pages, cross-host links, a
    robots.txt on HOSTS[0] that disallows /private, and for the round trip
    /post (echoes the body), /again and /busy (503 Retry-After: 2 once)."""

    def __init__(self, delay=0.0):
        self.delay = delay
        self.log = []  # (time, host, method, path, user-agent)
        self.lock = threading.Lock()
        self.busy_served = False
        self.servers = []

    def start(self):
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _record(self):
                host = self.server.server_address[0]
                with site.lock:
                    site.log.append((time.monotonic(), host, self.command,
                                     self.path,
                                     self.headers.get("User-Agent", "")))
                return host

            def _send(self, status, body, headers=()):
                self.send_response(status)
                for k, v in headers:
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):
                self._record()
                body = self.rfile.read(int(self.headers["Content-Length"]))
                self._send(200, b"posted " + body)

            def do_GET(self):
                host = self._record()
                path = self.path
                if path == "/robots.txt":
                    if host == HOSTS[0]:
                        return self._send(200, b"User-agent: *\nDisallow: /private\n")
                    return self._send(404, b"")
                if path == "/busy":
                    with site.lock:
                        first = not site.busy_served
                        site.busy_served = True
                    if first:
                        return self._send(503, b"busy", [("Retry-After", "2")])
                    return self._send(200, b"ok")
                if path == "/again":
                    return self._send(200, b"again")
                if site.delay:
                    time.sleep(site.delay)
                if path == "/private":
                    return self._send(200, b"secret")
                if path == "/" or path.startswith("/p"):
                    n = 0 if path == "/" else int(path[2:])
                    links = [f"/p{(n + 1) % PAGES}", f"/p{(n * 7 + 3) % PAGES}",
                             "/private"]
                    other = HOSTS[1] if host == HOSTS[0] else HOSTS[0]
                    links.append(f"http://{other}:{site.ports[other]}/p{n}")
                    html = "".join(f'<a href="{l}">x</a>' for l in links)
                    return self._send(200, html.encode())
                self._send(404, b"")

        self.ports = {}
        for host in HOSTS:
            server = http.server.ThreadingHTTPServer((host, 0), Handler)
            server.daemon_threads = True
            self.ports[host] = server.server_address[1]
            threading.Thread(target=server.serve_forever, daemon=True).start()
            self.servers.append(server)
        return self

    def stop(self):
        for server in self.servers:
            server.shutdown()
            server.server_close()

    def seeds(self):
        return " ".join(f"http://{h}:{self.ports[h]}/" for h in HOSTS)

    def fetches(self, method="GET"):
        with self.lock:
            return [(h, p, ua, t) for t, h, m, p, ua in self.log if m == method]


class ScrapyTest(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="frontierd-scrapy-")
        with open(os.path.join(self.tmp, "spider.py"), "w") as f:
            f.write(SPIDER)
        self.procs = []

    def tearDown(self):
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=10)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def scrapy(self, port, name, seeds, *settings, trip=False):
        env = dict(os.environ,
                   PYTHONPATH=os.pathsep.join([
                       os.path.join(ROOT, "clients", "scrapy"),
                       os.path.join(ROOT, "clients", "python")]),
                   SEEDS=seeds)
        if trip:
            env["TRIP"] = "1"
        argv = [sys.executable, "-m", "scrapy", "runspider", "spider.py",
                "-o", f"{name}.jsonl",
                "-s", "SCHEDULER=scrapy_frontierd.Scheduler",
                "-s", f"FRONTIERD_URL=redis://127.0.0.1:{port}",
                "-s", f"USER_AGENT={name}", "-s", "ROBOTSTXT_OBEY=False",
                "-s", "TELNETCONSOLE_ENABLED=False", "-s", "LOG_LEVEL=DEBUG"]
        for s in settings:
            argv += ["-s", s]
        log = open(os.path.join(self.tmp, f"{name}.log"), "wb")
        proc = subprocess.Popen(argv, cwd=self.tmp, env=env, stdout=log,
                                stderr=subprocess.STDOUT)
        log.close()  # the child has its own copy
        self.procs.append(proc)
        return proc

    def wait(self, proc, timeout=30):
        try:
            return proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
            self.fail(f"scrapy did not finish in {timeout} s")

    def logtext(self, name):
        with open(os.path.join(self.tmp, f"{name}.log"), errors="replace") as f:
            return f.read()

    def items(self, name):
        try:
            with open(os.path.join(self.tmp, f"{name}.jsonl")) as f:
                return [json.loads(line) for line in f if line.strip()]
        except FileNotFoundError:
            return []

    def reachable(self):
        return {(h, "/p%d" % n) for h in HOSTS for n in range(PAGES)} | {
            (h, "/") for h in HOSTS}

    def test_two_processes_share_the_site_with_robots(self):
        site = Site().start()
        try:
            with servers.frontierd(BINARY, "--robots", "yes",
                                   "--politeness-delay", "0.05") as fd:
                a = self.scrapy(fd.port, "a", site.seeds())
                b = self.scrapy(fd.port, "b", site.seeds())
                self.assertEqual(self.wait(a), 0, self.logtext("a"))
                self.assertEqual(self.wait(b), 0, self.logtext("b"))
                stats = frontierd.Frontier(port=fd.port).stats()
            gets = site.fetches()
            pages = [(h, p) for h, p, _, _ in gets if p != "/robots.txt"]
            self.assertNotIn((HOSTS[0], "/private"), pages)
            self.assertIn((HOSTS[1], "/private"), pages)  # no rules there
            expected = self.reachable() | {(HOSTS[1], "/private")}
            self.assertEqual(sorted(pages), sorted(expected),
                             "each reachable page exactly once")
            robots = [h for h, p, _, _ in gets if p == "/robots.txt"]
            self.assertEqual(sorted(robots), sorted(HOSTS))
            agents = {ua for _, _, ua, _ in gets}
            self.assertEqual(agents, {"a", "b"}, "both processes fetched")
            self.assertEqual(stats["leased"], 0)
            self.assertEqual(stats["queued"], 0)
            self.assertEqual(stats["excluded"], 1)
            items = self.items("a") + self.items("b")
            self.assertFalse([i for i in items if "robots" in i.get("url", "")])
        finally:
            site.stop()

    def test_two_crawls_each_fetch_every_page(self):
        # FRONTIERD_CRAWL: each process works in its own crawl, so each
        # fetches the whole site once; the DEFAULT crawl is left alone.
        site = Site().start()
        try:
            with servers.frontierd(BINARY, "--politeness-delay", "0",
                                   "--site-max-leases", "0") as fd:
                a = self.scrapy(fd.port, "a", site.seeds(),
                                "FRONTIERD_CRAWL=one")
                b = self.scrapy(fd.port, "b", site.seeds(),
                                "FRONTIERD_CRAWL=two")
                self.assertEqual(self.wait(a), 0, self.logtext("a"))
                self.assertEqual(self.wait(b), 0, self.logtext("b"))
                f = frontierd.Frontier(port=fd.port)
                crawls = f.crawls()
                default_urls = f.stats()["urls"]
                one, two = f.crawl_info("one"), f.crawl_info("two")
                f.close()
            self.assertEqual(crawls, ["DEFAULT", "one", "two"])
            self.assertEqual(default_urls, 0)
            self.assertEqual(one["leased"] + two["leased"], 0)
            for agent in ("a", "b"):
                pages = [(h, p) for h, p, ua, _ in site.fetches()
                         if ua == agent and p != "/robots.txt"]
                expected = self.reachable() | {(HOSTS[1], "/private")} | {
                    (HOSTS[0], "/private")}
                self.assertEqual(sorted(pages), sorted(expected), agent)
        finally:
            site.stop()

    def test_round_trip_post_dont_filter_and_backoff(self):
        site = Site().start()
        try:
            with servers.frontierd(BINARY, "--politeness-delay", "0",
                                   "--site-max-leases", "0") as fd:
                seed = f"http://{HOSTS[0]}:{site.ports[HOSTS[0]]}/"
                a = self.scrapy(fd.port, "a", seed, trip=True)
                self.assertEqual(self.wait(a), 0, self.logtext("a"))
                stats = frontierd.Frontier(port=fd.port).stats()
            items = self.items("a")
            posts = sorted((i["tag"], i["body"]) for i in items
                           if i["kind"] == "post")
            # The identical POST is a duplicate (dropped like Scrapy's
            # dupefilter); a different body is another request.
            self.assertEqual(posts, [("m1", "posted x=1"), ("m2", "posted x=2")])
            again = sorted(str(i["n"]) for i in items if i["kind"] == "again")
            self.assertEqual(again, ["0", "1", "busy"])
            self.assertEqual(len([1 for h, p, _, _ in site.fetches() if p == "/again"]), 2)
            busy = [t for h, p, _, t in site.fetches() if p == "/busy"]
            self.assertEqual(len(busy), 2, busy)
            self.assertGreaterEqual(busy[1] - busy[0], 1.8, "Retry-After: 2 obeyed")
            self.assertEqual(stats["backoffs"], 1)
            self.assertEqual(stats["leased"], 0)
            self.assertIn("'frontierd/confirmed'", self.logtext("a"))
            self.assertIn("'frontierd/server/done'", self.logtext("a"))
        finally:
            site.stop()

    def test_kill_9_loses_nothing(self):
        site = Site(delay=0.15).start()
        try:
            with servers.frontierd(BINARY, "--politeness-delay", "0",
                                   "--site-max-leases", "0") as fd:
                common = ("FRONTIERD_LEASE=3", "FRONTIERD_POP_COUNT=2",
                          "CONCURRENT_REQUESTS=2")
                a = self.scrapy(fd.port, "a", site.seeds(), *common)
                deadline = time.monotonic() + 20
                while time.monotonic() < deadline and len(
                        [1 for *_, ua, _ in [(0, 0) + f[2:] for f in site.fetches()] if ua == "a"]) < 4:
                    time.sleep(0.05)
                b = self.scrapy(fd.port, "b", site.seeds(), *common)
                time.sleep(1.0)
                a.kill()  # SIGKILL: no RELEASE, leases expire after 3 s
                a.wait(timeout=10)
                self.assertEqual(self.wait(b, 50), 0, self.logtext("b"))
                stats = frontierd.Frontier(port=fd.port).stats()
            gets = [(h, p, ua) for h, p, ua, _ in site.fetches()]
            pages = {(h, p) for h, p, _ in gets}
            self.assertEqual(pages - {(HOSTS[0], "/private"), (HOSTS[1], "/private")},
                             self.reachable())
            twice = {(h, p) for h, p in pages
                     if [(x, y) for x, y, _ in gets].count((h, p)) > 1}
            first_by = {}
            for h, p, ua in gets:
                first_by.setdefault((h, p), ua)
            for page in twice:
                self.assertEqual(first_by[page], "a", page)
            # a held at most POP_COUNT buffered + CONCURRENT_REQUESTS in flight
            self.assertLessEqual(len(twice), 4, twice)
            self.assertGreaterEqual(stats["expired"], len(twice))
        finally:
            site.stop()

    def test_confirm_waits_for_the_callback_and_follows_its_links(self):
        """A response's CONFIRM is sent only once Scrapy's scraper has done
        with it (its callback's requests queued), and in the same pipeline
        after their ADDs: a process that dies in between leaves the page
        leased, to be fetched again, never confirmed without its links."""
        sys.path.insert(0, os.path.join(ROOT, "clients", "scrapy"))
        import collections
        import types
        import scrapy
        from scrapy.settings import Settings
        from scrapy.utils.request import RequestFingerprinter
        import scrapy_frontierd

        with servers.frontierd(BINARY, "--politeness-delay", "0",
                               "--site-max-leases", "0") as fd:
            slot = types.SimpleNamespace(active=set(),
                                         queue=collections.deque())
            crawler = types.SimpleNamespace(
                settings=Settings({"FRONTIERD_URL":
                                   f"redis://127.0.0.1:{fd.port}",
                                   "FRONTIERD_FLUSH_SIZE": 1000}),
                stats=None,
                engine=types.SimpleNamespace(
                    scraper=types.SimpleNamespace(slot=slot), slot=None),
                request_fingerprinter=RequestFingerprinter())
            scheduler = scrapy_frontierd.Scheduler(crawler)
            spider = scrapy.Spider(name="t")
            scheduler.open(spider)
            f = frontierd.Frontier(port=fd.port)
            page = "http://127.0.0.2:1/page"
            f.add(page)
            request = scheduler.next_request()
            self.assertEqual(request.url, page)
            self.assertEqual(f.urlinfo(page)["state"], "leased")

            response = scrapy.http.HtmlResponse(page, body=b"<html/>",
                                                request=request)
            scheduler._response_received(response, request, spider)
            slot.queue.append((response, request, None))  # its callback
            scheduler._flush()
            self.assertEqual(f.urlinfo(page)["state"], "leased")

            slot.queue.popleft()
            slot.active.add(request)  # in the callback, which yields a link
            link = "http://127.0.0.2:1/link"
            self.assertTrue(scheduler.enqueue_request(
                scrapy.Request(link, headers={"Referer": page})))
            self.assertIsNone(f.urlinfo(link))  # queued for the flush
            scheduler._flush()
            self.assertEqual(f.urlinfo(link)["state"], "queued")
            self.assertEqual(f.urlinfo(page)["state"], "leased")

            slot.active.discard(request)  # the callback is done
            scheduler._flush()
            self.assertEqual(f.urlinfo(page)["state"], "done")
            self.assertEqual(f.urlinfo(link)["depth"],
                             f.urlinfo(page)["depth"] + 1)  # the ref held
            scheduler.close("finished")

    def test_sigint_releases_leases(self):
        site = Site(delay=1.5).start()
        try:
            with servers.frontierd(BINARY, "--politeness-delay", "0",
                                   "--site-max-leases", "0") as fd:
                f = frontierd.Frontier(port=fd.port)
                a = self.scrapy(fd.port, "a", site.seeds(),
                                "FRONTIERD_LEASE=300", "FRONTIERD_POP_COUNT=8",
                                "CONCURRENT_REQUESTS=2")
                deadline = time.monotonic() + 20
                while time.monotonic() < deadline and f.stats()["leased"] < 4:
                    time.sleep(0.05)
                self.assertGreaterEqual(f.stats()["leased"], 4)
                a.send_signal(signal.SIGINT)
                self.wait(a, 30)
                stats = f.stats()
                self.assertEqual(stats["leased"], 0, stats)
                self.assertEqual(stats["expired"], 0)
                self.assertGreater(stats["queued"], 0)
            self.assertIn("released", self.logtext("a"))
        finally:
            site.stop()


if __name__ == "__main__":
    BINARY = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
