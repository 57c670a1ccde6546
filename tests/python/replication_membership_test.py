"""Adding and removing sites of a running group (issue 20,
docs/replication.md, "Adding and removing sites"): a fourth site joins a
group of three while a client writes, and catches up with every
acknowledged write; REPLICATION REMOVE takes it out again, after which the
group's quorum is counted without it and writes go on with it stopped.

Replication on 127.0.0.2-.5, RESP on 127.0.0.1; every process is stopped by
its PID and every wait is bounded.

    python3 replication_membership_test.py path/to/frontierd
"""
import os
import signal
import sys
import threading
import time
import unittest

import redis

import replication_test as rt
import servers


class Writer(threading.Thread):
    """ADDs URLs through the master, pipelined, until stopped; keeps the
    acknowledged ones."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.r = redis.Redis(host="127.0.0.1", port=port, socket_timeout=10)
        self.stop = threading.Event()
        self.added = []
        self.errors = []
        self.retried = 0

    def run(self):
        n = 0
        while not self.stop.is_set() and n < 200_000:
            urls = [f"http://m{n + i}.example/" for i in range(50)]
            n += 50
            # A pass that meets the join's API lock-out (the membership
            # update) is refused whole with TRYAGAIN (docs/replication.md):
            # nothing of it is stored, so a retried ADD answers 1 again.
            for attempt in range(20):
                p = self.r.pipeline(transaction=False)
                for u in urls:
                    p.execute_command("ADD", u)
                again = []
                for u, reply in zip(urls, p.execute(raise_on_error=False)):
                    if reply == 1:
                        self.added.append(u)
                    elif (isinstance(reply, Exception)
                          and str(reply).startswith("TRYAGAIN ")):
                        again.append(u)
                    else:
                        self.errors.append(f"{u}: {reply!r}")
                if not again:
                    break
                self.retried += len(again)
                urls = again
                time.sleep(0.05)
            else:
                self.errors.append(f"still TRYAGAIN after 20 tries: {urls}")


class MembershipTest(unittest.TestCase):
    def test_a_fourth_site_joins_under_load_and_is_removed(self):
        with rt.Group() as g:
            fourth_addr = f"127.0.0.5:{rt.free_port_on('127.0.0.5')}"
            writer = Writer(g.sites[0].port)
            writer.start()
            flags = rt.FLAGS + ["--replication", "yes", "--repl-listen",
                                fourth_addr, "--repl-peers", *g.addrs]
            with servers.frontierd(rt.BINARY, *flags) as fourth:
                master = g.client(0)
                rt.wait_for(lambda: master.info("replication")["repl_sites"]
                            == 4, 30, "the group to count four sites")
                rt.wait_for(lambda: len(writer.added) > 2000, 30,
                            "writes while the fourth site joins")
                writer.stop.set()
                writer.join(timeout=30)
                self.assertEqual(writer.errors, [])
                if writer.retried:
                    print(f"{writer.retried} ADDs answered TRYAGAIN during "
                          "the join were retried", file=sys.stderr)
                joined = redis.Redis(host="127.0.0.1", port=fourth.port,
                                     socket_timeout=30)
                joined.execute_command("READONLY")
                self.assertEqual(joined.execute_command("ROLE")[0], b"slave")
                rt.wait_for(lambda: joined.execute_command(
                    "SEEN", writer.added[-1]) == 1, 30,
                    "the fourth site to catch up")
                added = writer.added
                for k in range(0, len(added), 1000):
                    seen = joined.execute_command("MSEEN", *added[k:k + 1000])
                    self.assertEqual(seen, [1] * len(seen))

                # Bad input changes nothing.
                for bad, why in [("nowhere", "invalid replication address"),
                                 ("127.0.0.9:1", "no site 127.0.0.9:1"),
                                 (g.addrs[0], "this site's own")]:
                    with self.assertRaises(redis.ResponseError) as caught:
                        master.execute_command("REPLICATION", "REMOVE", bad)
                    self.assertIn(why, str(caught.exception))
                self.assertEqual(master.info("replication")["repl_sites"], 4)

                self.assertTrue(master.execute_command(
                    "REPLICATION", "REMOVE", fourth_addr))
                rt.wait_for(lambda: master.info("replication")["repl_sites"]
                            == 3, 30, "the group to count three sites")
            # The fourth site is stopped; three sites, quorum two: writes go
            # on, and so they do with one more replica stopped.
            self.assertEqual(master.execute_command(
                "ADD", "http://after-removal.example/"), 1)
            g.sites[2].stop()
            self.assertEqual(master.execute_command(
                "ADD", "http://one-replica-left.example/"), 1)


    def test_a_master_stopped_on_purpose_hands_over_and_rejoins(self):
        """The planned way to move the master: SIGTERM it (it checkpoints
        and exits 0), the others elect one at once, and the old one,
        started again on its directory, rejoins as a replica."""
        with rt.Group() as g:
            master = g.client(0)
            self.assertEqual(master.execute_command(
                "ADD", "http://before.example/"), 1)
            stopped = time.monotonic()
            g.sites[0].proc.send_signal(signal.SIGTERM)
            self.assertEqual(g.sites[0].proc.wait(timeout=30), 0)
            i = g.wait_for_new_master("http://after.example/")
            self.assertLess(time.monotonic() - stopped, 10)
            new = g.client(i)
            self.assertEqual(new.execute_command(
                "SEEN", "http://before.example/"), 1)
            # Started again on the same directory: a replica of the new one.
            data = os.path.join(g.sites[0].dir, "data")
            with servers.frontierd_on(rt.BINARY, data,
                                      *g.site_flags(0, False)) as back:
                again = redis.Redis(host="127.0.0.1", port=back.port,
                                    socket_timeout=30)
                rt.wait_for(lambda: again.execute_command("ROLE")[0] ==
                            b"slave", 30, "the old master to rejoin")
                again.execute_command("READONLY")
                rt.wait_for(lambda: again.execute_command(
                    "SEEN", "http://after.example/") == 1, 30,
                    "the old master to catch up")


if __name__ == "__main__":
    rt.BINARY = sys.argv.pop(1)
    unittest.main()
