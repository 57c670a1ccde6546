#!/usr/bin/env python3
"""The Python client package (clients/python/frontierd) against a real
frontierd: every method's named, typed result, the error classes, and a
connection by URL with user:password@.

    python3 frontierd_client_test.py path/to/frontierd
"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "clients", "python"))
sys.path.insert(0, HERE)

import frontierd  # noqa: E402
import servers  # noqa: E402

BINARY = None


class ClientTest(unittest.TestCase):

    def setUp(self):
        self.server = servers.frontierd(BINARY, "--politeness-delay", "0",
                                        "--site-max-leases", "0",
                                        "--requirepass", "sesame")
        self.server.__enter__()
        self.f = frontierd.Frontier.from_url(
            f"redis://:sesame@127.0.0.1:{self.server.port}/0",
            socket_timeout=10)

    def tearDown(self):
        self.f.close()
        self.server.__exit__(None, None, None)

    def test_add_pop_confirm_with_data(self):
        f = self.f
        self.assertEqual(f.add("http://a.test/", data=b"\x00seed"), 1)
        self.assertEqual(f.add("HTTP://A.test/#x"), 0)
        self.assertEqual(
            f.madd("http://a.test/", [("http://a.test/1", b"one"),
                                      ("http://a.test/2", b"")]), [1, 1])
        reply = f.madd("", ["http://a.test/1", "ftp://a.test/"])
        self.assertEqual(reply[0], 0)
        self.assertIsInstance(reply[1], frontierd.InvalidURL)
        self.assertEqual(f.pop(withdata=True), ("http://a.test/", b"\x00seed"))
        got = dict(f.pop(count=10, withdata=True, lease=30))
        self.assertEqual(got, {"http://a.test/1": b"one", "http://a.test/2": b""})
        self.assertEqual(f.pop(count=5), [])
        self.assertIsNone(f.pop())
        self.assertIsNone(f.bpop(0.1))
        self.assertTrue(f.confirm("http://a.test/", status=200, fetch_ms=12))
        self.assertFalse(f.confirm("http://a.test/"))
        self.assertTrue(f.extend("http://a.test/1", 60))
        self.assertTrue(f.release("http://a.test/1"))
        self.assertFalse(f.release("http://a.test/1"))
        self.assertTrue(f.fail("http://a.test/2", delay=30, status=500))
        info = f.urlinfo("http://a.test/2")
        self.assertEqual(info["state"], "scheduled")
        self.assertEqual(info["depth"], 2)
        self.assertEqual(info["attempts"], 1)
        self.assertEqual(info["data"], b"")
        self.assertIsInstance(info["due"], float)
        self.assertGreater(info["created"], 1e9)
        self.assertIsNone(f.urlinfo("http://nowhere.test/"))
        self.assertEqual(f.mseen(["http://a.test/1", "http://b.test/"]),
                         [True, False])
        self.assertTrue(f.seen("http://a.test/2"))
        stats = f.stats()
        self.assertEqual(stats["urls"], 3)
        self.assertEqual(stats["done"], 1)
        self.assertEqual(stats["queued"], 1)
        self.assertEqual(stats["scheduled"], 1)
        self.assertEqual(stats["confirmed_2xx"], 1)
        self.assertTrue(all(isinstance(v, int) for v in stats.values()))
        hint = f.hint()
        self.assertEqual(set(hint), {"advice", "n", "ready_sites", "leased",
                                     "waiting"})
        self.assertIsInstance(hint["advice"], str)

    def test_pipeline_results_in_order_errors_not_raised(self):
        f = self.f
        f.add("http://p.test/")
        self.assertEqual(f.pop(), "http://p.test/")
        pipe = f.pipeline()
        pipe.add("http://p.test/a", "http://p.test/", data=b"A")
        pipe.add("http://p.test/a", "http://p.test/")
        pipe.add("ftp://p.test/")
        pipe.confirm("http://p.test/", status=200, fetch_ms=5)
        pipe.release("http://p.test/a")
        self.assertEqual(len(pipe), 5)
        reply = pipe.execute()
        self.assertEqual(reply[:2], [1, 0])
        self.assertIsInstance(reply[2], frontierd.InvalidURL)
        self.assertEqual(reply[3:], [True, False])
        self.assertEqual(f.urlinfo("http://p.test/")["state"], "done")
        self.assertEqual(f.urlinfo("http://p.test/a")["data"], b"A")
        self.assertEqual(pipe.execute(), [])  # emptied: reusable
        pipe.fail("http://p.test/a")
        self.assertEqual(pipe.execute(), [False])

    def test_sites_robots_and_backoff(self):
        f = self.f
        f.add("http://b.test/x")
        self.assertEqual(f.pop(), "http://b.test/x")
        self.assertTrue(f.fail("http://b.test/x", status=503, retry_after="120"))
        info = f.site_info("b.test")
        self.assertEqual(info["site"], "b.test")
        self.assertEqual(info["queued"], 1)
        self.assertEqual(info["backoffs"], 1)
        self.assertGreater(info["blocked_until"], 1e9)
        self.assertIsInstance(info["delay"], float)
        self.assertIsNone(f.site_info("nowhere.test"))
        self.assertEqual(f.robots_set("http://b.test", 200,
                                      b"User-agent: *\nDisallow: /p\nCrawl-delay: 2\n"),
                         b"OK")
        rules = f.robots_get("http://b.test/x")
        self.assertEqual(rules["state"], "ok")
        self.assertEqual(rules["status"], 200)
        self.assertEqual(rules["crawl_delay"], 2.0)
        self.assertEqual(rules["rules"], ["disallow /p"])
        self.assertFalse(f.robots_check("http://b.test/p/1"))
        self.assertTrue(f.robots_check("http://b.test/q"))
        self.assertIsNone(f.robots_check("http://c.test/q"))

    def test_errors(self):
        f = self.f
        with self.assertRaises(frontierd.InvalidURL) as caught:
            f.add("ftp://x.test/")
        self.assertEqual(caught.exception.prefix, "ERR")
        with self.assertRaises(frontierd.InvalidRef):
            f.add("http://x.test/", "nota url")
        with self.assertRaises(frontierd.ArgumentError):
            f.add("http://x.test/", priority=10000)
        with self.assertRaises(frontierd.CommandSyntaxError):
            f.execute("POP", "BOGUS")
        with self.assertRaises(frontierd.UnknownPartition):
            f.pop(partition="nope")
        with self.assertRaises(frontierd.DataTooLong):
            f.add("http://x.test/", data=b"x" * (65 * 1024))
        self.assertIsNone(f.urlinfo("http://x.test/"))  # nothing stored
        # Errors are redis-py ResponseErrors too, for code that catches those.
        import redis
        with self.assertRaises(redis.ResponseError):
            f.add("ftp://x.test/")
        anonymous = frontierd.Frontier(host="127.0.0.1", port=self.server.port)
        with self.assertRaises(frontierd.NoAuth):
            anonymous.stats()
        wrong = frontierd.Frontier.from_url(
            f"redis://:wrong@127.0.0.1:{self.server.port}")
        with self.assertRaises(frontierd.WrongPass):
            wrong.ping()


if __name__ == "__main__":
    BINARY = sys.argv.pop(1)
    unittest.main(verbosity=2)
