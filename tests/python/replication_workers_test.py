"""Workers through a failover (issue 20, docs/replication.md, "Finding the
master"): a replication group of three crawls a loopback web site with a
worker that finds the master through the sites (Sentinel's discovery
commands); the master is killed (kill -9) in the middle of the crawl; the
worker finds the new master, re-issues what failed, and the crawl ends with
every page done. frontier-worker (--sentinels), and the example workers of
clients/examples/ in Python and Node.js (FRONTIERD_SENTINELS).

Replication on 127.0.0.2-.4, RESP on 127.0.0.1, the site on 127.0.0.5;
every process is stopped by its PID and every wait is bounded.

    python3 replication_workers_test.py path/to/frontierd
"""
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from redis.sentinel import Sentinel

import replication_test as rt

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                        "clients", "examples")
PAGES = 60


def resp(site):
    return ("127.0.0.1", site.port)


class TreeSite:
    """A web site on 127.0.0.5: page i links to pages 2i+1 and 2i+2 below
    `pages`; each answer takes 20 ms. Counts the fetches of each page."""

    def __init__(self, pages):
        self.pages = pages
        self.fetches = {}
        self.lock = threading.Lock()
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                i = int(self.path[2:]) if self.path.startswith("/p") else -1
                time.sleep(0.02)
                with site.lock:
                    site.fetches[self.path] = site.fetches.get(self.path, 0) + 1
                links = "".join(f'<a href="/p{j}">{j}</a>'
                                for j in (2 * i + 1, 2 * i + 2)
                                if 0 <= i and j < site.pages)
                body = f"<html><body>{links}</body></html>".encode()
                self.send_response(200 if 0 <= i < site.pages else 404)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # a fetch the worker abandoned when it reconnected

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.5", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       daemon=True)

    def url(self, i):
        return f"http://127.0.0.5:{self.port}/p{i}"

    def fetched(self):
        with self.lock:
            return len(self.fetches)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()



class FailoverCrawlTest(unittest.TestCase):
    def crawl_through_a_failover(self, argv, env=None, exits_when_done=False):
        """Runs worker `argv` (given the sentinels in argv or env) on a
        group: seeds the site's home page, kills the master once 20 pages
        were fetched, and checks that every page ends done on the new
        master, each fetched (a page in flight at the kill may be fetched
        twice)."""
        # A BPOP the old master committed (a quorum holds its lease) but
        # whose reply the kill lost leaves its URL leased on the new master
        # until the lease ends (docs/replication.md): short leases, so such
        # a URL is handed out again well within the wait below (with the
        # default 300 s it failed a CI run under load).
        short_leases = {i: ["--lease-timeout", "3"] for i in range(3)}
        with rt.Group(short_leases) as g, TreeSite(PAGES) as site:
            rt.wait_for(lambda: g.client(1).execute_command(
                "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "frontierd")
                is not None, 10, "the group's directory")
            self.assertEqual(g.client(0).execute_command(
                "ADD", site.url(0)), 1)
            sentinels = ",".join(f"127.0.0.1:{s.port}" for s in g.sites)
            argv = [a.replace("SENTINELS", sentinels) for a in argv]
            env = {k: v.replace("SENTINELS", sentinels)
                   for k, v in (env or {}).items()}
            proc = subprocess.Popen(
                argv, env=dict(os.environ, **env), stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE, text=True)
            try:
                rt.wait_for(lambda: site.fetched() >= 20, 30,
                            "20 pages fetched")
                os.kill(g.sites[0].proc.pid, signal.SIGKILL)
                g.sites[0].proc.wait(timeout=10)
                new_master = Sentinel([resp(s) for s in g.sites[1:]],
                                      socket_timeout=5)

                def all_done():
                    try:
                        stats = new_master.master_for(
                            "frontierd", socket_timeout=5).execute_command(
                            "STATS")
                    except Exception:  # the election is still on
                        return False
                    stats = dict(zip(stats[::2], stats[1::2]))
                    return stats[b"done"] == PAGES
                if exits_when_done:
                    proc.wait(timeout=90)
                else:
                    try:
                        rt.wait_for(all_done, 90, "every page done")
                    except AssertionError:
                        proc.kill()
                        proc.wait(timeout=10)
                        raise AssertionError(
                            "not every page done; the worker exited "
                            f"{proc.returncode}, its stderr:\n"
                            f"{proc.stderr.read()[-3000:]}")
                    proc.send_signal(signal.SIGINT)
                    proc.wait(timeout=30)
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait(timeout=10)
                err = proc.stderr.read()
                proc.stderr.close()
            self.assertEqual(proc.returncode, 0, err)
            master = new_master.master_for("frontierd", socket_timeout=5)
            for i in range(PAGES):
                info = master.execute_command("URLINFO", site.url(i))
                self.assertEqual(info[info.index(b"state") + 1], b"done",
                                 site.url(i))
            self.assertEqual(site.fetched(), PAGES)
            return err

    def test_frontier_worker(self):
        worker = os.path.join(os.path.dirname(os.path.abspath(rt.BINARY)),
                              "frontier-worker")
        if not os.path.exists(worker):
            self.skipTest("frontier-worker is not built")
        err = self.crawl_through_a_failover(
            [worker, "--sentinels", "SENTINELS", "--exit-when-done", "-q",
             "-c", "2", "--lease", "2", "--reconnect", "30"],
            exits_when_done=True)
        self.assertIn("reconnected", err)

    def test_python_example_worker(self):
        self.crawl_through_a_failover(
            [sys.executable, os.path.join(EXAMPLES, "python", "worker.py")],
            env={"FRONTIERD_SENTINELS": "SENTINELS"})

    def test_node_example_worker(self):
        node = shutil.which("node")
        if not node or not os.path.isdir(
                os.path.join(EXAMPLES, "node", "node_modules", "ioredis")):
            if os.environ.get("CI"):
                self.fail("node and ioredis are needed in CI")
            self.skipTest("node or ioredis missing")
        self.crawl_through_a_failover(
            [node, os.path.join(EXAMPLES, "node", "worker.js")],
            env={"FRONTIERD_SENTINELS": "SENTINELS"})


if __name__ == "__main__":
    rt.BINARY = sys.argv.pop(1)
    unittest.main()
