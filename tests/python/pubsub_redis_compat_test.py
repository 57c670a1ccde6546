"""The same Pub/Sub session against a real redis-server and against
frontierd must produce the same bytes on every connection: confirmations,
messages, pmessages, PING in subscribed mode, the subscribed-mode error,
PUBSUB introspection, RESET.

The script avoids what Redis leaves in hash order (several patterns
matching one publish, UNSUBSCRIBE of several channels at once) and what
frontierd documents as different (PUBSUB HELP has no shard lines).

    python3 pubsub_redis_compat_test.py path/to/frontierd
"""
import socket
import sys
import time
import unittest

import servers

BINARY = None

# (connection, command); after each step every connection's output is
# collected up to the reply of a PING sent after it (see sync()).
SCRIPT = [
    (0, ["SUBSCRIBE", "news", "sport"]),
    (1, ["PSUBSCRIBE", "n?ws"]),
    (2, ["SUBSCRIBE", "news"]),
    (3, ["PUBSUB", "NUMSUB", "news", "sport", "none"]),
    (3, ["PUBSUB", "NUMPAT"]),
    (3, ["PUBSUB", "CHANNELS", "s*"]),
    (3, ["PUBLISH", "news", "hello\r\nworld \x00\xff"]),
    (3, ["PUBLISH", "sport", ""]),
    (3, ["PUBLISH", "", "empty channel"]),
    (0, ["PING"]),
    (0, ["PING", "are you there"]),
    (0, ["PUBLISH", "news", "x"]),
    (0, ["PUBSUB", "NUMPAT"]),
    (0, ["SUBSCRIBE"]),
    (0, ["SUBSCRIBE", "news"]),
    (0, ["UNSUBSCRIBE", "news"]),
    (0, ["UNSUBSCRIBE", "never"]),
    (0, ["UNSUBSCRIBE"]),
    (0, ["UNSUBSCRIBE"]),
    (0, ["PUNSUBSCRIBE"]),
    (0, ["PING"]),
    (1, ["PUNSUBSCRIBE", "n?ws", "other*"]),
    (1, ["PUNSUBSCRIBE"]),
    (2, ["RESET"]),
    (2, ["PING"]),
    (3, ["PUBLISH", "news", "after"]),
    (3, ["PUBSUB", "NUMSUB", "news"]),
    (1, ["PSUBSCRIBE", "*"]),
    (1, ["QUIT"]),
    (3, ["PUBLISH", "news", "after quit"]),
]
CONNECTIONS = 4


def resp(args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        b = a.encode("latin-1")
        out += b"$%d\r\n%s\r\n" % (len(b), b)
    return out


def read_until(sock, endings, limit=5.0):
    """Reads until the bytes end with one of `endings` (b"" = until the
    peer closes), or `limit` seconds pass."""
    out = b""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if any(e and out.endswith(e) for e in endings):
            break
        sock.settimeout(max(deadline - time.monotonic(), 0.01))
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            break
        if not chunk:
            out += b"<closed>"
            break
        out += chunk
    return out


def sync(sock, token):
    """Everything `sock` receives up to the reply of a PING `token` sent
    now: Redis answers it after anything already queued for the client, as
    a bulk string, or as ["pong", token] in subscribed mode."""
    sock.sendall(resp(["PING", token]))
    t = token.encode()
    return read_until(sock, [b"$%d\r\n%s\r\n" % (len(t), t)])


def run_script(port):
    conns = [socket.create_connection(("127.0.0.1", port), timeout=5)
             for _ in range(CONNECTIONS)]
    closed = [False] * CONNECTIONS
    transcript = []
    try:
        for n, (who, command) in enumerate(SCRIPT):
            conns[who].sendall(resp(command))
            step = []
            for i, c in enumerate(conns):
                if closed[i]:
                    step.append(b"")
                elif i == who and command[0] == "QUIT":
                    step.append(read_until(c, [b""]))
                    closed[i] = True
                else:
                    step.append(sync(c, f"sync-{n}-{i}"))
            transcript.append((who, command, step))
    finally:
        for c in conns:
            c.close()
    return transcript


class RedisCompatTest(unittest.TestCase):

    def test_same_bytes_as_redis_server(self):
        with servers.redis_server() as redis_srv:
            expected = run_script(redis_srv.port)
        with servers.frontierd(BINARY) as frontier_srv:
            actual = run_script(frontier_srv.port)
        self.assertEqual(len(expected), len(actual))
        for (who, command, want), (_, _, got) in zip(expected, actual):
            for i, (w, g) in enumerate(zip(want, got)):
                self.assertEqual(
                    g, w,
                    f"after {command!r} from connection {who}, "
                    f"connection {i} read {g!r}, redis-server sent {w!r}")
        # The session did deliver messages, pmessages and the error.
        everything = b"".join(b"".join(step) for _, _, step in expected)
        for seen in (b"$7\r\nmessage\r\n", b"$8\r\npmessage\r\n",
                     b"-ERR Can't execute 'publish'", b"+RESET\r\n"):
            self.assertIn(seen, everything)


if __name__ == "__main__":
    BINARY = sys.argv.pop(1)
    unittest.main()
