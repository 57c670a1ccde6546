"""Crawls (issue 22) as redis-py workers see them: CRAWL name selects a
namespace per connection; two crawls hold the same URLs and pop them
independently, but share each host's politeness; BPOP wakes only for its
crawl; CRAWL DELETE answers at once while others serve and is complete
after kill -9; an old directory is the default crawl; kill -9 loses
nothing acknowledged; a user limited with ~patterns cannot touch another
crawl (docs/commands.md#crawls).

    python3 crawls_test.py path/to/frontierd
"""
import json
import os
import shutil
import sys
import tempfile
import threading
import time
import unittest
import urllib.request

import redis

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "clients", "python"))
sys.path.insert(0, HERE)

import frontierd  # noqa: E402
import servers  # noqa: E402

BINARY = None


def field_map(reply):
    return {reply[i].decode(): reply[i + 1] for i in range(0, len(reply), 2)}


class CrawlsTest(unittest.TestCase):

    def setUp(self):
        self.data = tempfile.mkdtemp(prefix="frontierd-data-")
        self.addCleanup(shutil.rmtree, self.data, True)
        self.server = None
        self.extra = ("--politeness-delay", "0", "--site-max-leases", "0")

    def start(self, *extra):
        if extra:
            self.extra = extra
        self.server = servers.frontierd_on(BINARY, self.data,
                                           *self.extra).__enter__()
        self.addCleanup(self.server.__exit__, None, None, None)
        return self.server

    def client(self, crawl=None, **kw):
        r = redis.Redis(host="127.0.0.1", port=self.server.port,
                        socket_timeout=20, **kw)
        self.addCleanup(r.close)
        if crawl is not None:
            self.assertTrue(r.execute_command("CRAWL", crawl))
        return r

    def restart(self, kill):
        if kill:
            self.server._kill()
        self.server.__exit__(None, None, None)
        self.start()

    def test_two_crawls_pop_the_same_urls_independently(self):
        self.start()
        plain, a, b = self.client(), self.client("a"), self.client("b")
        urls = [f"http://h{i}.test/p" for i in range(20)]
        for r in (a, b):
            self.assertEqual(r.execute_command("MADD", "", *urls), [1] * 20)
        self.assertEqual(plain.execute_command("CRAWL"), b"DEFAULT")
        self.assertEqual(a.execute_command("CRAWL"), b"a")
        self.assertEqual(plain.execute_command("SEEN", urls[0]), 0)
        got_a = a.execute_command("POP", "COUNT", "100")
        got_b = b.execute_command("POP", "COUNT", "100")
        self.assertEqual(sorted(got_a), sorted(u.encode() for u in urls))
        self.assertEqual(sorted(got_b), sorted(got_a))
        self.assertEqual(plain.execute_command("POP"), None)
        self.assertEqual(a.execute_command("DBSIZE"), 20)
        self.assertEqual(plain.execute_command("DBSIZE"), 0)
        info = a.info("frontier")  # the connection's crawl's counters
        self.assertEqual((info["crawl"], info["urls"]), ("a", 20))
        self.assertEqual(a.execute_command("CONFIRM", urls[0]), 1)
        self.assertEqual(field_map(a.execute_command("STATS"))["done"], 1)
        self.assertEqual(field_map(b.execute_command("STATS"))["done"], 0)
        info = field_map(plain.execute_command("CRAWL", "INFO", "b"))
        self.assertEqual(info["name"], b"b")
        self.assertEqual(info["leased"], 20)
        self.assertEqual(plain.execute_command("CRAWL", "LIST"),
                         [b"DEFAULT", b"a", b"b"])
        self.assertEqual(
            field_map(b.execute_command("URLINFO", urls[0]))["state"],
            b"leased")

    def test_a_crawl_created_mid_pipeline_keeps_the_writes_before_it(self):
        """CRAWL of a new crawl in the same pass as writes to another
        crawl: those writes keep their counts and their place in the
        queue (found through the URL Frontier door, which pipelines)."""
        self.start()
        r = self.client()
        p = r.pipeline(transaction=False)
        p.execute_command("CRAWL", "DEFAULT")
        p.execute_command("MADD", "", "DATA", "https://example.com/a", "v")
        p.execute_command("CRAWL", "other")
        p.execute_command("MADD", "", "DATA", "https://example.com/b", "v")
        p.execute_command("CRAWL", "DEFAULT")
        p.execute_command("STATS")
        p.execute_command("POP")
        replies = p.execute()
        self.assertEqual(replies[1], [1])
        self.assertEqual(replies[3], [1])
        self.assertEqual(field_map(replies[5])["urls"], 1)
        self.assertEqual(replies[6], b"https://example.com/a")
        other = self.client("other")
        self.assertEqual(field_map(other.execute_command("STATS"))["urls"], 1)
        self.assertEqual(other.execute_command("POP"),
                         b"https://example.com/b")

    def test_crawls_share_a_hosts_politeness(self):
        self.start("--politeness-delay", "1", "--site-max-leases", "1")
        a, b = self.client("a"), self.client("b")
        for r in (a, b):
            r.execute_command("MADD", "", "http://one.test/1",
                              "http://one.test/2")
        first = a.execute_command("POP")
        self.assertIsNotNone(first)
        # The host is busy with a's fetch and its delay: b waits too.
        self.assertIsNone(b.execute_command("POP"))
        start = time.monotonic()
        a.execute_command("CONFIRM", first)
        got = b.execute_command("BPOP", "5")
        waited = time.monotonic() - start
        self.assertIsNotNone(got)
        self.assertGreaterEqual(waited, 0.9)  # a's delay held for b
        self.assertLess(waited, 4)
        # And now a waits for b's fetch.
        self.assertIsNone(a.execute_command("POP"))

    def test_bpop_wakes_only_for_its_crawl(self):
        self.start()
        a, b, adder = self.client("a"), self.client("b"), self.client("b")
        got = {}

        def wait_in_a():
            got["a"] = a.execute_command("BPOP", "2")

        t = threading.Thread(target=wait_in_a)
        t.start()
        time.sleep(0.3)
        adder.execute_command("ADD", "http://x.test/1")
        self.assertEqual(b.execute_command("BPOP", "5"), b"http://x.test/1")
        t.join(10)
        self.assertFalse(t.is_alive())
        self.assertIsNone(got["a"])  # timed out: b's URL was not a's

    def test_delete_answers_at_once_and_survives_kill_9(self):
        self.start()
        big, other = self.client("big"), self.client("other")
        other.execute_command("ADD", "http://keep.test/1")
        pipe = big.pipeline(transaction=False)
        for i in range(40):
            pipe.execute_command(
                "MADD", "",
                *[f"http://s{i % 50}.test/{i}/{j}" for j in range(500)])
        pipe.execute()
        self.assertEqual(field_map(big.execute_command("STATS"))["urls"],
                         20000)
        before = set(os.listdir(self.data))
        start = time.monotonic()
        self.assertEqual(other.execute_command("CRAWL", "DELETE", "big"), 1)
        self.assertLess(time.monotonic() - start, 2.0)
        files = before - set(os.listdir(self.data))
        self.assertEqual(len(files), 7)  # big's databases
        self.assertEqual(other.execute_command("POP"), b"http://keep.test/1")
        self.assertEqual(other.execute_command("CRAWL", "LIST"),
                         [b"DEFAULT", b"other"])
        self.restart(kill=True)
        r = self.client()
        self.assertEqual(r.execute_command("CRAWL", "LIST"),
                         [b"DEFAULT", b"other"])
        for name in files:  # the old crawl's files went with it
            self.assertFalse(os.path.exists(os.path.join(self.data, name)))
        # The name again: a new, empty crawl.
        self.assertTrue(r.execute_command("CRAWL", "big"))
        self.assertEqual(field_map(r.execute_command("STATS"))["urls"], 0)
        self.assertEqual(r.execute_command("SEEN", "http://s0.test/0/0"), 0)

    def test_kill_9_loses_nothing_acknowledged(self):
        self.start()
        a, b = self.client("a"), self.client("b")
        for i in range(50):
            a.execute_command("ADD", f"http://a{i}.test/")
            b.execute_command("ADD", f"http://b{i}.test/")
        popped = a.execute_command("POP", "COUNT", "10")
        for url in popped[:5]:
            a.execute_command("CONFIRM", url)
        b.execute_command("POP", "COUNT", "3")
        self.restart(kill=True)
        r = self.client()
        sa = field_map(r.execute_command("CRAWL", "INFO", "a"))
        sb = field_map(r.execute_command("CRAWL", "INFO", "b"))
        self.assertEqual((sa["urls"], sa["done"], sa["leased"], sa["queued"]),
                         (50, 5, 5, 40))
        self.assertEqual((sb["urls"], sb["leased"], sb["queued"]), (50, 3, 47))
        self.assertEqual(field_map(r.execute_command("STATS"))["urls"], 0)

    def test_metrics_label_each_crawl(self):
        http_port = servers.free_port()
        self.start("--politeness-delay", "0", "--site-max-leases", "0",
                   "--http-port", str(http_port))
        plain, a = self.client(), self.client('q"x')
        plain.execute_command("ADD", "http://d.test/1")
        a.execute_command("MADD", "", "http://a.test/1", "http://a.test/2")
        a.execute_command("POP")
        with urllib.request.urlopen(
                f"http://127.0.0.1:{http_port}/metrics", timeout=10) as resp:
            text = resp.read().decode()
        lines = set(text.splitlines())
        # The unlabelled families stay the default crawl's.
        self.assertIn("frontierd_urls 1", lines)
        self.assertIn('frontierd_crawl_urls{crawl="DEFAULT"} 1', lines)
        self.assertIn('frontierd_crawl_urls{crawl="q\\"x"} 2', lines)
        self.assertIn(
            'frontierd_crawl_urls_by_state{crawl="q\\"x",state="leased"} 1',
            lines)
        with urllib.request.urlopen(
                f"http://127.0.0.1:{http_port}/api/stats", timeout=10) as resp:
            api = json.loads(resp.read())
        self.assertEqual(api["frontier"]["urls"], 1)
        self.assertEqual([(c["name"], c["urls"], c["leased"])
                          for c in api["crawls"]],
                         [("DEFAULT", 1, 0), ('q"x', 2, 1)])

    def test_python_client_works_in_its_crawl(self):
        self.start()
        url = f"redis://127.0.0.1:{self.server.port}"
        with frontierd.Frontier.from_url(url, crawl="py") as f, \
                frontierd.Frontier.from_url(url) as plain:
            self.assertEqual(f.add("http://p.test/1", data=b"v"), 1)
            self.assertFalse(plain.seen("http://p.test/1"))
            # Every connection of the pool, a new one included, is in "py".
            f.redis.connection_pool.disconnect()
            self.assertEqual(f.pop(withdata=True), ("http://p.test/1", b"v"))
            self.assertEqual(f.crawls(), ["DEFAULT", "py"])
            self.assertEqual(plain.crawl_info("py")["leased"], 1)
            self.assertTrue(plain.crawl_delete("py"))
            self.assertEqual(plain.crawls(), ["DEFAULT"])
        with self.assertRaises(frontierd.FrontierdError):
            frontierd.Frontier.from_url(url, crawl="a b").ping()

    def test_old_directory_opens_as_the_default_crawl(self):
        self.start()
        r = self.client()
        r.execute_command("ADD", "http://old.test/1")
        self.restart(kill=False)
        r = self.client()
        self.assertEqual(r.execute_command("CRAWL", "LIST"), [b"DEFAULT"])
        self.assertEqual(r.execute_command("SEEN", "http://old.test/1"), 1)
        self.assertTrue(r.execute_command("CRAWL", "DEFAULT"))
        self.assertEqual(r.execute_command("POP"), b"http://old.test/1")

    def test_bad_input(self):
        self.start()
        r = self.client()
        cases = [
            (("CRAWL", "a b"), "invalid crawl name"),
            (("CRAWL", "x" * 256), "invalid crawl name"),
            (("CRAWL", "a\x01"), "invalid crawl name"),
            (("CRAWL", "LIST", "x"), "wrong number of arguments"),
            (("CRAWL", "DELETE"), "wrong number of arguments"),
            (("CRAWL", "INFO", "nothing"), "no such crawl"),
            (("CRAWL", "DELETE", "DEFAULT"), "cannot be deleted"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                with self.assertRaisesRegex(redis.ResponseError, message):
                    r.execute_command(*args)
        self.assertEqual(r.execute_command("CRAWL", "LIST"), [b"DEFAULT"])
        self.assertEqual(r.execute_command("CRAWL"), b"DEFAULT")
        self.assertEqual(r.execute_command("CRAWL", "DELETE", "nothing"), 0)

    def test_a_limited_user_cannot_touch_another_crawl(self):
        self.start("--user", "alice on >pa ~alice-* +@worker", "--user",
                   "bob on >pb ~bob +@worker", "--requirepass", "admin")
        admin = self.client(password="admin")
        admin.execute_command("CRAWL", "bob")
        admin.execute_command("ADD", "http://secret.test/1")
        alice = self.client(username="alice", password="pa")
        # Not in an allowed crawl yet (DEFAULT does not match alice-*).
        with self.assertRaisesRegex(redis.ResponseError, "No permissions"):
            alice.execute_command("POP")
        for args in (("CRAWL", "bob"), ("CRAWL", "INFO", "bob")):
            with self.subTest(args=args):
                with self.assertRaisesRegex(redis.ResponseError,
                                            "No permissions.*'bob'"):
                    alice.execute_command(*args)
        with self.assertRaisesRegex(redis.ResponseError, "no permissions"):
            alice.execute_command("CRAWL", "DELETE", "bob")  # admins only
        self.assertTrue(alice.execute_command("CRAWL", "alice-1"))
        self.assertIsNone(alice.execute_command("POP"))
        self.assertEqual(alice.execute_command("SEEN", "http://secret.test/1"),
                         0)
        self.assertEqual(alice.execute_command("CRAWL", "LIST"),
                         [b"alice-1"])
        bob = self.client(username="bob", password="pb")
        bob.execute_command("CRAWL", "bob")
        self.assertEqual(bob.execute_command("POP"), b"http://secret.test/1")


if __name__ == "__main__":
    BINARY = sys.argv.pop(1)
    unittest.main()
