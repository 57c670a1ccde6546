"""Two replicas killed and started again while the master is stopped
(issue 20, docs/replication.md, "Two restarted sites"): they elect a
master between them, with every write the group acknowledged, and the old
master, once it continues, becomes their replica.

It failed before replicas synced their logs: a replica acknowledges the
master's records from its log buffer, and one killed (kill -9) lost that
tail on restart, here the record that made the third site a member. It
then refused the third site's connections ("rejecting connection from
unknown or provisional site") and no election reached two votes
(`BDB3534 Not enough votes to elect: recvd 1 of 2 from 2 sites`).

Three sites, replication addresses on 127.0.0.2-.4, RESP on 127.0.0.1;
every process is stopped by its PID and every wait is bounded (about 30 s
here, 90 s at most).

    python3 replication_restart_test.py path/to/frontierd
"""
import os
import signal
import subprocess
import sys
import time
import unittest

import redis

import replication_test as rt
import servers


def restart(site):
    """Starts `site` again on its data, on a new RESP port, without
    waiting: a replica's start waits for the group's election."""
    site.port = servers.free_port()
    site._stderr.close()
    site._stderr = open(os.path.join(site.dir, "stderr"), "ab")
    site.proc = subprocess.Popen(site._argv_for_port(site),
                                 stdout=subprocess.DEVNULL,
                                 stderr=site._stderr, cwd=site.dir)


class RestartedSitesTest(unittest.TestCase):
    def test_two_restarted_replicas_elect_while_the_master_is_stopped(self):
        started = time.monotonic()
        with rt.Group() as g:
            master = g.client(0)
            urls = [f"http://restart.example/{n}" for n in range(50)]
            pipe = master.pipeline(transaction=False)
            for url in urls:
                pipe.execute_command("ADD", url)
            self.assertEqual(pipe.execute(), [1] * len(urls))
            leased = master.execute_command("POP")
            self.assertIsNotNone(leased)
            # The replicas sync their logs once a second: let a sync pass
            # after the group formed and the writes were acknowledged.
            time.sleep(2.5)

            os.kill(g.sites[0].proc.pid, signal.SIGSTOP)
            for i in (1, 2):
                g.sites[i].proc.kill()
                g.sites[i].proc.wait(timeout=10)
            for i in (1, 2):
                restart(g.sites[i])
            stopped_at = time.monotonic()

            def elected():
                for i in (1, 2):
                    if g.sites[i].proc.poll() is not None:
                        raise AssertionError(
                            f"site {i} exited:\n{g.sites[i].logs()[-3000:]}")
                    try:
                        c = redis.Redis(host="127.0.0.1", port=g.sites[i].port,
                                        socket_timeout=5)
                        c.execute_command("ADD", "http://restart.example/new")
                        return i
                    except (redis.ResponseError, redis.ConnectionError):
                        pass
                return None
            i = rt.wait_for(elected, 60, "one of the restarted sites to be "
                            "elected and take a write")
            print(f"a restarted site took a write "
                  f"{time.monotonic() - stopped_at:.1f} s after the restarts",
                  file=sys.stderr)
            new = g.client(i)
            # Every acknowledged write is there, the lease too.
            for url in urls:
                self.assertEqual(new.execute_command("SEEN", url), 1, url)
            self.assertIn(b"leased", new.execute_command("URLINFO", leased))
            other = g.client(3 - i)
            other.execute_command("READONLY")
            rt.wait_for(lambda: other.execute_command(
                "SEEN", "http://restart.example/new") == 1, 20,
                "the other restarted site to replicate the new master")

            # The old master continues and becomes a replica.
            os.kill(g.sites[0].proc.pid, signal.SIGCONT)
            old = g.client(0)
            old.execute_command("READONLY")
            rt.wait_for(lambda: old.execute_command("ROLE")[0] == b"slave",
                        30, "the old master to become a replica")
            rt.wait_for(lambda: old.execute_command(
                "SEEN", "http://restart.example/new") == 1, 30,
                "the old master to catch up")
        self.assertLess(time.monotonic() - started, 90)


if __name__ == "__main__":
    rt.BINARY = sys.argv.pop(1)
    unittest.main()
