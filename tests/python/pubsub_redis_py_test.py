"""redis-py's pubsub() against frontierd, unchanged: what a Python worker
does to hear the frontier's hints (docs/commands.md#pubsub).

    python3 pubsub_redis_py_test.py path/to/frontierd
"""
import sys
import threading
import time
import unittest

import redis

import servers

BINARY = None


def next_message(p, timeout=5.0):
    """The next message (of any type) within `timeout` seconds, or None."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = p.get_message(timeout=0.1)
        if m is not None:
            return m
    return None


class RedisPyPubSubTest(unittest.TestCase):

    def setUp(self):
        self.server = servers.frontierd(BINARY).__enter__()
        self.addCleanup(self.server.__exit__, None, None, None)
        self.r = redis.Redis(host="127.0.0.1", port=self.server.port,
                             socket_timeout=5)
        self.addCleanup(self.r.close)

    def test_subscribe_publish_unsubscribe(self):
        p = self.r.pubsub()
        self.addCleanup(p.close)
        p.subscribe("frontier:hints:eu")
        self.assertEqual(next_message(p), {
            "type": "subscribe", "pattern": None,
            "channel": b"frontier:hints:eu", "data": 1})
        p.psubscribe("frontier:hints:*")
        self.assertEqual(next_message(p), {
            "type": "psubscribe", "pattern": None,
            "channel": b"frontier:hints:*", "data": 2})
        self.assertEqual(self.r.pubsub_numsub("frontier:hints:eu", "x"),
                         [(b"frontier:hints:eu", 1), (b"x", 0)])
        self.assertEqual(self.r.pubsub_numpat(), 1)
        self.assertEqual(self.r.pubsub_channels(), [b"frontier:hints:eu"])
        self.assertEqual(self.r.pubsub_channels("frontier:*"),
                         [b"frontier:hints:eu"])

        self.assertEqual(self.r.publish("frontier:hints:eu", "slow-down 2"), 2)
        self.assertEqual(next_message(p), {
            "type": "message", "pattern": None,
            "channel": b"frontier:hints:eu", "data": b"slow-down 2"})
        self.assertEqual(next_message(p), {
            "type": "pmessage", "pattern": b"frontier:hints:*",
            "channel": b"frontier:hints:eu", "data": b"slow-down 2"})
        self.assertEqual(self.r.publish("frontier:hints:us", "hurry-up 9"), 1)
        self.assertEqual(next_message(p)["channel"], b"frontier:hints:us")

        # PING in subscribed mode is answered as a message redis-py knows.
        p.ping("still there?")
        self.assertEqual(next_message(p), {
            "type": "pong", "pattern": None, "channel": None,
            "data": b"still there?"})

        p.unsubscribe()
        self.assertEqual(next_message(p), {
            "type": "unsubscribe", "pattern": None,
            "channel": b"frontier:hints:eu", "data": 1})
        p.punsubscribe()
        self.assertEqual(next_message(p), {
            "type": "punsubscribe", "pattern": None,
            "channel": b"frontier:hints:*", "data": 0})
        self.assertFalse(p.subscribed)
        self.assertEqual(self.r.publish("frontier:hints:eu", "x"), 0)
        self.assertEqual(self.r.pubsub_numpat(), 0)

    def test_listen_in_a_thread_with_handlers(self):
        got = []
        done = threading.Event()

        def handler(message):
            got.append(message["data"])
            if len(got) == 3:
                done.set()

        p = self.r.pubsub(ignore_subscribe_messages=True)
        p.subscribe(**{"hints": handler})
        worker = p.run_in_thread(sleep_time=0.05, daemon=True)
        try:
            deadline = time.monotonic() + 5
            while (self.r.pubsub_numsub("hints")[0][1] != 1
                   and time.monotonic() < deadline):
                time.sleep(0.01)
            for advice in ("hurry-up 4", "steady 4", "slow-down 1"):
                self.assertEqual(self.r.publish("hints", advice), 1)
            self.assertTrue(done.wait(5), got)
        finally:
            worker.stop()
            worker.join(5)
            p.close()
        self.assertEqual(got, [b"hurry-up 4", b"steady 4", b"slow-down 1"])

    def test_other_commands_are_refused_while_subscribed(self):
        p = self.r.pubsub()
        self.addCleanup(p.close)
        p.subscribe("c")
        next_message(p)
        p.execute_command("DBSIZE")
        with self.assertRaises(redis.ResponseError) as caught:
            next_message(p)
        self.assertEqual(
            str(caught.exception),
            "Can't execute 'dbsize': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE "
            "/ PING / QUIT / RESET are allowed in this context")
        # The subscription is intact.
        self.assertEqual(self.r.publish("c", "m"), 1)
        self.assertEqual(next_message(p)["data"], b"m")


if __name__ == "__main__":
    BINARY = sys.argv.pop(1)
    unittest.main()
