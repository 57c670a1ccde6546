"""The frontier's hints to a partition's workers, heard with redis-py's
pubsub() as a Python worker pool hears them, while the pool grows and
drains (docs/commands.md#hint).

    python3 partition_hints_test.py path/to/frontierd
"""
import sys
import threading
import time
import unittest

import redis

import servers

BINARY = None
EDU = b"frontier:hints:edu"
EX = b"frontier:hints:ex"


HINT_FIELDS = [b"advice", b"n", b"ready_sites", b"leased", b"waiting"]


def hint_values(reply):
    """HINT's field/value pairs as [advice, n, ready_sites, leased,
    waiting], after checking the names and their order."""
    assert reply[0::2] == HINT_FIELDS, reply
    return reply[1::2]


class Heard:
    """Every hint one PSUBSCRIBE frontier:hints:* connection received, by
    channel, in order. Waiting for a message on one channel keeps what
    arrives on the others, so a test can assert on all of it."""

    def __init__(self, p):
        self.p = p
        self.by_channel = {}

    def _read(self, timeout):
        m = self.p.get_message(timeout=timeout)
        if m is None or m["type"] != "pmessage":
            return None
        self.by_channel.setdefault(m["channel"], []).append(m["data"])
        return m

    def wait_for(self, channel, data, timeout=5.0):
        """Reads until `data` arrives on `channel`, or fails after
        `timeout`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            m = self._read(0.05)
            if m is not None and m["channel"] == channel and \
                    m["data"] == data:
                return
        raise AssertionError(f"no {data!r} on {channel!r} in {timeout} s; "
                             f"heard {self.by_channel!r}")

    def messages_on(self, channel, seconds):
        """Reads for `seconds`; returns the data of the messages on
        `channel` that arrived meanwhile."""
        before = len(self.by_channel.get(channel, []))
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self._read(0.05)
        return self.by_channel.get(channel, [])[before:]

    def on(self, channel):
        """Everything heard on `channel` so far."""
        return list(self.by_channel.get(channel, []))


class PartitionHintsTest(unittest.TestCase):

    def setUp(self):
        self.server = servers.frontierd(
            BINARY, "--partition", "edu", "edu", "--partition", "ex",
            "example.com", "--politeness-delay", "0", "--site-max-leases",
            "1", "--timer-ms", "10", "--hint-interval", "0.05").__enter__()
        self.addCleanup(self.server.__exit__, None, None, None)
        self.r = redis.Redis(host="127.0.0.1", port=self.server.port,
                             socket_timeout=10)
        self.addCleanup(self.r.close)
        self.p = self.r.pubsub()
        self.addCleanup(self.p.close)
        self.p.psubscribe("frontier:hints:*")
        m = None
        deadline = time.monotonic() + 5
        while m is None and time.monotonic() < deadline:
            m = self.p.get_message(timeout=0.1)
        self.assertEqual(m["type"], "psubscribe")
        self.heard = Heard(self.p)
        # The first hints (steady 0 everywhere) went out at start, most
        # likely before this subscription; let a late one arrive.
        self.heard.messages_on(EDU, 0.2)

    def hint(self, partition="edu"):
        return hint_values(
            self.r.execute_command("HINT", "PARTITION", partition))

    def test_hints_follow_a_pool_that_grows_and_drains(self):
        self.assertEqual(self.hint(), [b"steady", 0, 0, 0, 0])
        # In one command: the hint timer (every 0.05 s) must not see the
        # pool half-filled, or it says "hurry-up 1" and then nothing, as
        # the advice has not changed.
        self.assertEqual(self.r.execute_command(
            "MADD", "", *[f"http://s{i}.mit.edu/" for i in range(8)]),
            [1] * 8)
        # Eight sites ready, nobody fetching: hurry up.
        self.heard.wait_for(EDU, b"hurry-up 8")
        self.assertEqual(self.hint(), [b"hurry-up", 8, 8, 0, 0])
        # Unchanged advice is not repeated, however many intervals pass.
        self.assertEqual(self.heard.messages_on(EDU, 0.3), [])

        # The pool grows to three workers with two URLs each: six of eight.
        leased = []
        for _ in range(3):
            worker = redis.Redis(host="127.0.0.1", port=self.server.port,
                                 socket_timeout=10)
            self.addCleanup(worker.close)
            urls = worker.execute_command("POP", "COUNT", "2", "PARTITION",
                                          "edu")
            self.assertEqual(len(urls), 2)
            leased += urls
        self.heard.wait_for(EDU, b"steady 8")
        self.assertEqual(self.hint(), [b"steady", 8, 2, 6, 0])

        # The pool drains: the work is done and nothing is left.
        rest = self.r.execute_command("POP", "COUNT", "5", "PARTITION", "edu")
        self.assertEqual(len(rest), 2)
        for url in leased + rest:
            self.assertEqual(self.r.execute_command("CONFIRM", url), 1)
        self.assertEqual(self.hint(), [b"steady", 0, 0, 0, 0])

        # Idle workers wait in BPOP on an empty partition: slow down.
        results = []

        def idle_worker():
            c = redis.Redis(host="127.0.0.1", port=self.server.port,
                            socket_timeout=10)
            try:
                results.append(c.execute_command("BPOP", "1.5", "PARTITION",
                                                 "edu"))
            finally:
                c.close()

        threads = [threading.Thread(target=idle_worker) for _ in range(2)]
        for t in threads:
            t.start()
        self.heard.wait_for(EDU, b"slow-down 0")
        self.assertEqual(self.hint(), [b"slow-down", 0, 0, 0, 2])
        self.assertEqual(self.hint("ex"), [b"steady", 0, 0, 0, 0])
        for t in threads:
            t.join(timeout=10)
        self.assertEqual(results, [None, None])
        # They gave up: nobody waits, nothing to do.
        self.heard.wait_for(EDU, b"steady 0")
        # Nothing of this concerned the other partitions. Everything heard
        # on their channels since the subscription, not only at the end:
        # at most the first hint, which every partition gets at start.
        self.heard.messages_on(EX, 0.2)
        self.assertIn(self.heard.on(EX), ([], [b"steady 0"]))
        for channel, data in self.heard.by_channel.items():
            if channel != EDU:
                self.assertIn(data, ([], [b"steady 0"]), channel)

    def test_hint_without_partition_covers_every_partition(self):
        self.r.execute_command("ADD", "http://a.edu/")
        self.r.execute_command("ADD", "http://example.com/")
        self.r.execute_command("ADD", "http://other.org/")
        self.assertEqual(hint_values(self.r.execute_command("HINT")),
                         [b"hurry-up", 3, 3, 0, 0])


if __name__ == "__main__":
    BINARY = sys.argv.pop(1)
    unittest.main()
