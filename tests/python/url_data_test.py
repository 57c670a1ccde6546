"""Per-URL data (issue 22) as a redis-py worker sees it: ADD/MADD ... DATA
store a value with a URL, POP/BPOP ... WITHDATA hand it back, through
FAIL, lease expiry, recrawl, a restart and kill -9; a known URL keeps its
value unless REPLACE; max-url-data bounds it; SITE DELETE removes it; bad
input is refused whole (docs/commands.md#add).

    python3 url_data_test.py path/to/frontierd
"""
import os
import shutil
import sys
import tempfile
import threading
import time
import unittest

import redis

import servers

BINARY = None
BINARY_VALUE = b"\x00\xff\r\n{\"anchor\": \"x\"}\x00"


def field_map(reply):
    return {reply[i].decode(): reply[i + 1] for i in range(0, len(reply), 2)}


def server_on(data_dir, *extra):
    """A frontierd on `data_dir`, which outlives it (restarts, kill -9)."""
    return servers.frontierd_on(BINARY, data_dir, "--politeness-delay", "0",
                                "--site-max-leases", "0", *extra)


class UrlDataTest(unittest.TestCase):

    def setUp(self):
        self.data = tempfile.mkdtemp(prefix="frontierd-data-")
        self.addCleanup(shutil.rmtree, self.data, True)
        self.server = None
        self.start()

    def start(self):
        self.server = server_on(self.data).__enter__()
        self.r = redis.Redis(host="127.0.0.1", port=self.server.port,
                             socket_timeout=10)
        self.addCleanup(self.r.close)
        self.addCleanup(self.server.__exit__, None, None, None)

    def restart(self, kill):
        """Stops the server (SIGKILL if `kill`: no shutdown, no checkpoint)
        and starts another on the same directory."""
        self.r.close()
        if kill:
            self.server._kill()
        self.server.__exit__(None, None, None)
        self.start()

    def cmd(self, *args):
        return self.r.execute_command(*args)

    def urls(self):
        return self.cmd("STATS")[1]  # "urls" is the first counter

    def test_add_pop_withdata_and_urlinfo(self):
        before = int(time.time() * 1000)
        self.assertEqual(self.cmd("ADD", "http://a.test/1", "DATA",
                                  BINARY_VALUE), 1)
        self.assertEqual(self.cmd("ADD", "http://b.test/2"), 1)
        self.assertEqual(self.cmd("POP", "WITHDATA"),
                         [b"http://a.test/1", BINARY_VALUE])
        # COUNT n WITHDATA: an array of pairs, nil where there is no value.
        self.assertEqual(self.cmd("POP", "COUNT", "5", "WITHDATA"),
                         [[b"http://b.test/2", None]])
        self.assertEqual(self.cmd("POP", "COUNT", "5", "WITHDATA"), [])
        self.assertIsNone(self.cmd("POP", "WITHDATA"))
        info = field_map(self.cmd("URLINFO", "http://a.test/1"))
        self.assertEqual(info["data"], BINARY_VALUE)
        created = float(info["created"]) * 1000
        self.assertGreaterEqual(created, before - 1)
        self.assertLessEqual(created, time.time() * 1000 + 1)
        self.assertIsNone(field_map(self.cmd("URLINFO",
                                             "http://b.test/2"))["data"])
        # A value of any size up to the limit, empty included.
        self.cmd("ADD", "http://c.test/", "http://a.test/1", "PRIORITY", "1",
                 "DATA", "")
        self.assertEqual(self.cmd("POP", "WITHDATA"), [b"http://c.test/", b""])

    def test_bpop_withdata(self):
        self.cmd("ADD", "http://a.test/now", "DATA", "now")
        self.assertEqual(self.cmd("BPOP", "1", "WITHDATA"),
                         [b"http://a.test/now", b"now"])
        # A BPOP that waits is served its value by the loop later.
        got = {}
        waiter = redis.Redis(host="127.0.0.1", port=self.server.port,
                             socket_timeout=10)
        self.addCleanup(waiter.close)

        def wait():
            got["reply"] = waiter.execute_command("BPOP", "5", "COUNT", "2",
                                                  "WITHDATA")
        t = threading.Thread(target=wait)
        t.start()
        deadline = time.monotonic() + 5
        while (time.monotonic() < deadline and
               self.r.info().get("blocked_clients") != 1):
            time.sleep(0.02)
        self.cmd("ADD", "http://a.test/later", "DATA", "later")
        t.join(timeout=10)
        self.assertFalse(t.is_alive())
        self.assertEqual(got["reply"], [[b"http://a.test/later", b"later"]])
        self.assertIsNone(self.cmd("BPOP", "0.1", "WITHDATA"))

    def test_value_survives_fail_expiry_and_recrawl(self):
        self.cmd("ADD", "http://f.test/", "DATA", "f")
        self.cmd("ADD", "http://e.test/", "DATA", "e")
        self.cmd("ADD", "http://r.test/", "RECRAWL", "0.3", "DATA", "r")
        popped = self.cmd("POP", "COUNT", "3", "LEASE", "0.3", "WITHDATA")
        self.assertEqual(sorted(popped), [[b"http://e.test/", b"e"],
                                          [b"http://f.test/", b"f"],
                                          [b"http://r.test/", b"r"]])
        self.assertEqual(self.cmd("FAIL", "http://f.test/"), 1)
        self.assertEqual(self.cmd("CONFIRM", "http://r.test/"), 1)
        time.sleep(0.5)  # e's lease expires, r's recrawl comes due
        again = []
        deadline = time.monotonic() + 5
        while len(again) < 3 and time.monotonic() < deadline:
            again += self.cmd("POP", "COUNT", "3", "WITHDATA")
            time.sleep(0.05)
        self.assertEqual(sorted(again), [[b"http://e.test/", b"e"],
                                         [b"http://f.test/", b"f"],
                                         [b"http://r.test/", b"r"]])

    def test_value_survives_restart_and_kill_9(self):
        self.cmd("ADD", "http://k.test/queued", "DATA", "q")
        self.cmd("ADD", "http://k.test/leased", "PRIORITY", "0", "DATA", "l")
        self.assertEqual(self.cmd("POP", "LEASE", "1", "WITHDATA"),
                         [b"http://k.test/leased", b"l"])
        self.restart(kill=False)
        self.assertEqual(field_map(self.cmd(
            "URLINFO", "http://k.test/queued"))["data"], b"q")
        self.cmd("ADD", "http://k.test/late", "DATA", "late")
        self.restart(kill=True)  # acknowledged with fsync always: kept
        time.sleep(1.1)  # the lease given before the restarts runs out
        got = []
        deadline = time.monotonic() + 5
        while len(got) < 3 and time.monotonic() < deadline:
            got += self.cmd("POP", "COUNT", "5", "WITHDATA")
            time.sleep(0.05)
        self.assertEqual(sorted(got), [[b"http://k.test/late", b"late"],
                                       [b"http://k.test/leased", b"l"],
                                       [b"http://k.test/queued", b"q"]])

    def test_known_url_keeps_its_value_unless_replace(self):
        self.cmd("ADD", "http://a.test/", "DATA", "first")
        self.assertEqual(self.cmd("ADD", "http://a.test/", "DATA", "second"),
                         0)
        self.assertEqual(self.cmd("ADD", "http://a.test/"), 0)
        self.assertEqual(field_map(self.cmd("URLINFO", "http://a.test/"))[
            "data"], b"first")
        self.assertEqual(self.cmd("ADD", "http://a.test/", "DATA", "third",
                                  "REPLACE"), 0)
        self.assertEqual(field_map(self.cmd("URLINFO", "http://a.test/"))[
            "data"], b"third")
        self.assertEqual(self.cmd("ADD", "http://a.test/", "replace"), 0)
        self.assertIsNone(field_map(self.cmd("URLINFO", "http://a.test/"))[
            "data"])
        self.assertEqual(self.cmd("POP", "WITHDATA"), [b"http://a.test/", None])

    def test_size_limit(self):
        self.assertEqual(self.cmd("CONFIG", "GET", "max-url-data"),
                         [b"max-url-data", b"65536"])
        self.cmd("ADD", "http://a.test/max", "DATA", b"x" * 65536)
        with self.assertRaisesRegex(redis.ResponseError, "max-url-data"):
            self.cmd("ADD", "http://a.test/over", "DATA", b"x" * 65537)
        self.assertEqual(self.cmd("SEEN", "http://a.test/over"), 0)
        self.cmd("CONFIG", "SET", "max-url-data", "4")
        with self.assertRaisesRegex(redis.ResponseError, "max-url-data"):
            self.cmd("MADD", "", "DATA", "http://a.test/m1", "1234",
                     "http://a.test/m2", "12345")
        self.assertEqual(self.cmd("SEEN", "http://a.test/m1"), 0)
        self.assertEqual(self.urls(), 1)
        # REPLACE with a value over the limit keeps the old one.
        with self.assertRaises(redis.ResponseError):
            self.cmd("ADD", "http://a.test/max", "DATA", "12345", "REPLACE")
        self.assertEqual(len(field_map(self.cmd(
            "URLINFO", "http://a.test/max"))["data"]), 65536)

    def test_madd_with_data(self):
        self.cmd("ADD", "http://a.test/known", "DATA", "old")
        reply = self.cmd("MADD", "http://a.test/known", "DATA",
                         "http://a.test/y", "y", "http://a.test/known", "new",
                         "ftp://bad/", "b")
        self.assertEqual(reply[:2], [1, 0])
        self.assertIsInstance(reply[2], redis.ResponseError)  # its own error
        info = field_map(self.cmd("URLINFO", "http://a.test/y"))
        self.assertEqual(info["data"], b"y")
        self.assertEqual(info["depth"], b"2")
        self.assertEqual(field_map(self.cmd("URLINFO", "http://a.test/known"))[
            "data"], b"old")
        # The old form still works and stores no value.
        self.assertEqual(self.cmd("MADD", "", "http://a.test/plain"), [1])
        self.assertIsNone(field_map(self.cmd("URLINFO", "http://a.test/plain"))[
            "data"])

    def test_site_delete_removes_the_value(self):
        self.cmd("ADD", "http://gone.test/a", "DATA", "a")
        self.cmd("ADD", "http://kept.test/b", "DATA", "b")
        self.assertEqual(self.cmd("SITE", "DELETE", "gone.test"), 1)
        self.assertEqual(self.cmd("SEEN", "http://gone.test/a"), 0)
        self.assertEqual(self.cmd("ADD", "http://gone.test/a"), 1)
        self.assertIsNone(field_map(self.cmd("URLINFO", "http://gone.test/a"))[
            "data"])
        self.assertEqual(field_map(self.cmd("URLINFO", "http://kept.test/b"))[
            "data"], b"b")

    def test_bad_input_is_refused_and_changes_nothing(self):
        self.cmd("ADD", "http://a.test/", "DATA", "v")
        cases = [
            (("POP", "WITHDATA", "WITHDATA"), "WITHDATA given twice"),
            (("BPOP", "1", "WITHDATA", "COUNT", "2", "withdata"),
             "WITHDATA given twice"),
            (("ADD", "http://b.test/", "DATA"), "DATA needs a value"),
            (("ADD", "http://b.test/", "ref", "PRIORITY", "1", "DATA"),
             "DATA needs a value"),
            (("ADD", "http://b.test/", "DATA", "1", "DATA", "2"),
             "DATA given twice"),
            (("ADD", "http://b.test/", "REPLACE", "REPLACE"),
             "REPLACE given twice"),
            (("MADD", "", "DATA"), "url value pairs"),
            (("MADD", "", "DATA", "http://b.test/", "v", "http://b.test/2"),
             "url value pairs"),
            (("POP", "COUNT"), "^syntax error$"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                with self.assertRaisesRegex(redis.ResponseError, message):
                    self.cmd(*args)
        self.assertEqual(self.urls(), 1)
        self.assertEqual(self.cmd("SEEN", "http://b.test/"), 0)
        # Nothing was popped either: the URL is still queued.
        self.assertEqual(field_map(self.cmd("URLINFO", "http://a.test/"))[
            "state"], b"queued")


if __name__ == "__main__":
    BINARY = sys.argv.pop(1)
    unittest.main()
