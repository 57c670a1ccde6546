"""A checkpoint's parts in the log (docs/operations.md, "Checkpoints"): at
`loglevel verbose` each checkpoint says how long the loop waited for it and
for each of its parts, the site journal's write-back (with how many site
records and in-memory leases it wrote), Berkeley DB's txn_checkpoint and
the removal of log files, so a stall in the crawl can be traced to one.

    python3 checkpoint_log_test.py path/to/frontierd
"""
import re
import sys
import time
import unittest

import redis

import servers

BINARY = None
LINE = re.compile(
    r"Checkpoint done in (\d+) ms: journal write-back (\d+) ms "
    r"\((\d+) site records, (\d+) leases\), txn_checkpoint (\d+) ms, "
    r"log removal (\d+) ms")


def checkpoint_lines(server):
    return [tuple(int(g) for g in m.groups())
            for m in LINE.finditer(server.logs())]


class CheckpointLogTest(unittest.TestCase):
    def test_each_checkpoint_logs_its_parts_and_what_it_wrote_back(self):
        with servers.frontierd(BINARY, "--loglevel", "verbose",
                               "--checkpoint-interval", "1",
                               "--politeness-delay", "0") as s:
            c = redis.Redis(port=s.port, socket_timeout=30)
            # Wait out any checkpoint of the start, so the next one is the
            # first with these writes pending.
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and not checkpoint_lines(s):
                time.sleep(0.1)
            seen = len(checkpoint_lines(s))
            self.assertGreater(seen, 0, s.logs())
            sites = [f"http://s{i}.example/" for i in range(3)]
            for url in sites:
                self.assertEqual(c.execute_command("ADD", url), 1)
            popped = c.execute_command("POP", "LEASE", "600")
            self.assertIn(popped.decode(), sites)

            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and len(
                    checkpoint_lines(s)) == seen:
                time.sleep(0.1)
            lines = checkpoint_lines(s)
            self.assertGreater(len(lines), seen, s.logs())
            total, wb_ms, site_records, leases, ckp_ms, rm_ms = lines[seen]
            # The journal (single node, one crawl) held the live lease in
            # memory until this checkpoint moved it to Qc; the three sites'
            # records were written back by then, before it or by it.
            self.assertLessEqual(site_records, 3)
            self.assertEqual(leases, 1)
            self.assertLessEqual(wb_ms + ckp_ms + rm_ms, total + 3)
            # After it nothing is pending: the next one writes nothing back.
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and len(
                    checkpoint_lines(s)) == seen + 1:
                time.sleep(0.1)
            lines = checkpoint_lines(s)
            self.assertGreater(len(lines), seen + 1, s.logs())
            self.assertEqual(lines[seen + 1][2:4], (0, 0))
            # The lease moved to Qc is still live.
            self.assertEqual(
                servers.field_map(c.execute_command("STATS"))["leased"], 1)


if __name__ == "__main__":
    BINARY = sys.argv.pop(1)
    unittest.main()
