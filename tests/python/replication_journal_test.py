"""A single-node directory and the site journal (docs/design.md, "The site
journal"; docs/replication.md): replication does not journal site records
and its start does not replay them, so a directory whose single-node
process was killed with kill -9 (its replay point still set) is refused by
a replicated start, before it serves anything, with a message naming the
fix; started single-node again, every site record is as the killed process
acknowledged it.

    python3 replication_journal_test.py path/to/frontierd
"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import unittest

import redis

import servers

BINARY = None
SITES = [f"s{i}.example" for i in range(5)]


def free_port_on(host):
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def site_info(client, site):
    return servers.field_map(client.execute_command("SITE", "INFO", site))


class ReplicationJournalTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="frontierd-py-")
        self.data = os.path.join(self.tmp, "data")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def replicated_argv(self, port):
        addr = f"127.0.0.2:{free_port_on('127.0.0.2')}"
        return [os.path.abspath(BINARY), "--port", str(port), "--bind",
                "127.0.0.1", "--dir", self.data, "--politeness-delay", "0",
                "--replication", "yes", "--repl-listen", addr,
                "--repl-group-creator", "yes"]

    def test_a_killed_single_node_directory_is_refused_until_started_once(self):
        # Single node: writes whose site records go to the journal, then
        # kill -9 (no write-back at a clean stop).
        with servers.frontierd_on(BINARY, self.data, "--politeness-delay",
                                  "0") as s:
            c = redis.Redis(port=s.port, socket_timeout=30)
            for i in range(40):
                self.assertEqual(
                    c.execute_command("ADD",
                                      f"http://{SITES[i % 5]}/p/{i}"), 1)
            self.assertIsNotNone(c.execute_command("POP"))
            before = {site: site_info(c, site) for site in SITES}
            os.kill(s.proc.pid, signal.SIGKILL)
            s.proc.wait(timeout=10)

        refused = subprocess.run(self.replicated_argv(servers.free_port()),
                                 capture_output=True, text=True, timeout=60)
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn("start it once with replication no",
                      refused.stdout + refused.stderr)

        # Started single-node again: the journal is replayed, nothing of
        # what was acknowledged is missing.
        with servers.frontierd_on(BINARY, self.data, "--politeness-delay",
                                  "0") as s:
            c = redis.Redis(port=s.port, socket_timeout=30)
            after = {site: site_info(c, site) for site in SITES}
            self.assertEqual(after, before)
            self.assertEqual(sum(int(a["queued"]) for a in after.values()),
                             39)


if __name__ == "__main__":
    BINARY = sys.argv.pop(1)
    unittest.main()
