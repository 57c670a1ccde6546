"""robots.txt across crawls (issue 22), as redis-py workers see it: the
rules are the origin's, stored once for every crawl, so a Crawl-delay
stored through crawl a spaces the fetches of crawls a and b together
(also after kill -9), an origin's robots.txt is fetched once for all
crawls, and new rules bring back the excluded URLs of every crawl, not
only of the crawl that stored them, also when the server is killed in
the middle of the re-check (docs/design.md, "Crawls").

    python3 crawl_robots_test.py path/to/frontierd
"""
import os
import shutil
import sys
import tempfile
import time
import unittest

import redis

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import servers  # noqa: E402
from servers import field_map  # noqa: E402

BINARY = None
ORIGIN = "http://one.test"


class CrawlRobotsTest(unittest.TestCase):

    def setUp(self):
        self.data = tempfile.mkdtemp(prefix="frontierd-data-")
        self.addCleanup(shutil.rmtree, self.data, True)
        self.server = None
        self.extra = ()

    def start(self, *extra):
        if extra:
            self.extra = extra
        self.server = servers.frontierd_on(
            BINARY, self.data, "--robots", "yes", "--robots-agent", "testbot",
            "--politeness-delay", "0", *self.extra).__enter__()
        self.addCleanup(self.server.__exit__, None, None, None)

    def kill_and_restart(self):
        self.server._kill()
        self.server.__exit__(None, None, None)
        self.start()

    def client(self, crawl):
        r = redis.Redis(host="127.0.0.1", port=self.server.port,
                        socket_timeout=20)
        self.addCleanup(r.close)
        self.assertTrue(r.execute_command("CRAWL", crawl))
        return r

    def excluded(self, r, crawl):
        return field_map(r.execute_command("CRAWL", "INFO", crawl))["excluded"]

    def pop_within(self, r, seconds):
        """POP every 10 ms until a URL comes: (monotonic time, url) or None."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            url = r.execute_command("POP")
            if url is not None:
                return time.monotonic(), url
            time.sleep(0.01)
        return None

    def exclude_all(self, r, crawl, n):
        """POPs until the robots gate has excluded the crawl's n URLs."""
        for _ in range(n):
            if self.excluded(r, crawl) == n:
                break
            self.assertFalse(r.execute_command("POP", "COUNT", "100"))
        self.assertEqual(self.excluded(r, crawl), n)

    def test_crawl_delay_spaces_the_fetches_of_every_crawl(self):
        self.start("--site-max-leases", "1")
        a, b = self.client("a"), self.client("b")
        self.assertTrue(a.execute_command(
            "ROBOTS", "SET", ORIGIN, "200", "User-agent: *\nCrawl-delay: 1\n"))
        for r in (a, b):
            r.execute_command("MADD", "",
                              *[f"{ORIGIN}/{i}" for i in range(5)])
        times = []

        def alternate(turns):
            nonlocal a, b
            for turn in range(turns):
                r = (a, b)[turn % 2]
                got = self.pop_within(r, 5)
                self.assertIsNotNone(got, f"turn {turn}: nothing to fetch")
                times.append(got[0])
                self.assertEqual(r.execute_command("CONFIRM", got[1]), 1)

        alternate(4)
        self.kill_and_restart()
        a, b = self.client("a"), self.client("b")
        alternate(4)  # a's turn first: right after b's last fetch
        gaps = [t1 - t0 for t0, t1 in zip(times, times[1:])]
        # The server's clock spaces them by >= 1000 ms; the replies' travel
        # may differ by a few ms.
        self.assertGreaterEqual(min(gaps), 0.95, gaps)
        self.assertLess(max(gaps), 6, gaps)

    def test_new_rules_bring_back_each_crawls_excluded_urls(self):
        self.start("--site-max-leases", "0")
        a, b = self.client("a"), self.client("b")
        a.execute_command("ROBOTS", "SET", ORIGIN, "200",
                          "User-agent: *\nDisallow: /p\n")
        for r, crawl in ((a, "a"), (b, "b")):
            r.execute_command("MADD", "",
                              *[f"{ORIGIN}/p/{i}" for i in range(5)])
            self.exclude_all(r, crawl, 5)
        # Stored through a: b's excluded URLs the rules allow come back too.
        a.execute_command("ROBOTS", "SET", ORIGIN, "200",
                          "User-agent: *\nDisallow: /p/1\n")
        deadline = time.monotonic() + 10
        while self.excluded(b, "b") > 1 and time.monotonic() < deadline:
            time.sleep(0.02)
        self.assertEqual(self.excluded(a, "a"), 1)
        self.assertEqual(self.excluded(b, "b"), 1)
        want = sorted(f"{ORIGIN}/p/{i}".encode() for i in (0, 2, 3, 4))
        self.assertEqual(sorted(b.execute_command("POP", "COUNT", "10")), want)
        self.assertEqual(sorted(a.execute_command("POP", "COUNT", "10")), want)

    def test_one_robots_fetch_per_origin_across_crawls(self):
        self.start("--site-max-leases", "0")
        a, b = self.client("a"), self.client("b")
        robots = f"{ORIGIN}/robots.txt".encode()
        for r in (a, b):
            r.execute_command("ADD", f"{ORIGIN}/1")
        # a's worker takes the robots.txt and dies: its lease ends, b's POP
        # hands out b's own, and a's comes back to a's queue.
        self.assertEqual(a.execute_command("POP", "LEASE", "0.3"), robots)
        self.assertIsNone(b.execute_command("POP"))  # a's fetch in flight
        time.sleep(0.5)
        got = self.pop_within(b, 5)
        self.assertEqual(got and got[1], robots)
        # b's fetch is in flight: a does not fetch it a second time.
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline:
            self.assertIsNone(a.execute_command("POP"))
            time.sleep(0.02)
        self.assertEqual(b.execute_command(
            "CONFIRM", robots, "STATUS", "200",
            "BODY", "User-agent: *\nDisallow: /private\n"), 1)
        # b's rules serve a: its robots.txt is done without a fetch.
        got = self.pop_within(a, 5)
        self.assertEqual(got and got[1], f"{ORIGIN}/1".encode())
        info = field_map(a.execute_command("URLINFO", robots))
        self.assertEqual(info["state"], b"done")

    def test_kill_9_in_a_recheck_resumes_it(self):
        self.start("--site-max-leases", "0")
        a, b = self.client("a"), self.client("b")
        a.execute_command("ROBOTS", "SET", ORIGIN, "200",
                          "User-agent: *\nDisallow: /p\n")
        n = 20000  # 40 re-check slices of 500
        pipe = b.pipeline(transaction=False)
        for i in range(0, n, 1000):
            pipe.execute_command(
                "MADD", "", *[f"{ORIGIN}/p/{j}" for j in range(i, i + 1000)])
        pipe.execute()
        self.exclude_all(b, "b", n)
        # /p/1, /p/10-19, /p/100-199, /p/1000-1999, /p/10000-19999 stay out.
        kept = 1 + 10 + 100 + 1000 + 10000
        a.execute_command("ROBOTS", "SET", ORIGIN, "200",
                          "User-agent: *\nDisallow: /p/1\n")
        # b's re-check runs in Tick slices: killed once it has begun (the
        # storage test kills it between two slices deterministically).
        deadline = time.monotonic() + 10
        at_kill = self.excluded(b, "b")
        while at_kill == n and time.monotonic() < deadline:
            at_kill = self.excluded(b, "b")
        self.kill_and_restart()
        r = self.client("b")
        print(f"excluded in b at kill -9: {at_kill} of {n}", file=sys.stderr)
        deadline = time.monotonic() + 30
        while self.excluded(r, "b") > kept and time.monotonic() < deadline:
            time.sleep(0.05)
        info = field_map(r.execute_command("CRAWL", "INFO", "b"))
        self.assertEqual((info["excluded"], info["queued"], info["urls"]),
                         (kept, n - kept, n))
        self.assertEqual(r.execute_command("ROBOTS", "CHECK",
                                           f"{ORIGIN}/p/2"), 1)


if __name__ == "__main__":
    BINARY = sys.argv.pop(1)
    unittest.main()
