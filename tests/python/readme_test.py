#!/usr/bin/env python3
"""The README shows what the server does (issue 25 §3).

- The redis-cli tour ("A tour with redis-cli"), run as pasted in one go
  against a frontierd on its defaults (politeness included), through
  `redis-cli --no-raw`, gives the replies the README prints, the URLINFO
  due date aside.
- The README's inline Python worker and clients/examples/python/worker.py
  treat a page the same way: against a loopback site whose page links to
  one that answers 503, both CONFIRM the pages and FAIL the 503.

    readme_test.py path/to/frontierd
"""
import http.server
import os
import re
import shlex
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import redis

import servers

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
README = os.path.join(ROOT, "README.md")
WORKER = os.path.join(ROOT, "clients", "examples", "python", "worker.py")
FRONTIERD = None  # set from argv


def readme():
    with open(README, encoding="utf-8") as f:
        return f.read()


def section(text, heading):
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    return text[start:end if end >= 0 else len(text)]


def tour_steps(text):
    """(command, expected output lines) of every `127.0.0.1:7379>` prompt
    in the tour's code blocks, in order."""
    steps = []
    for block in re.findall(r"```\n(.*?)```", section(text, "## A tour"),
                            re.S):
        for line in block.splitlines():
            if line.startswith("127.0.0.1:7379> "):
                steps.append((line[len("127.0.0.1:7379> "):], []))
            elif steps:
                steps[-1][1].append(line)
    return steps


class Site:
    """A loopback web site: / links to /ok and /busy; /busy answers 503."""

    def __init__(self):
        site = self
        self.hits = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                site.hits.append(self.path)
                pages = {"/": (200, '<a href="/ok">ok</a> <a href="/busy">b</a>'),
                         "/ok": (200, "<p>fine</p>")}
                status, body = pages.get(self.path, (503, "busy"))
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path):
        return "http://127.0.0.1:%d%s" % (self.port, path)

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class ReadmeTest(unittest.TestCase):
    def test_tour_replies_as_printed_when_pasted(self):
        steps = tour_steps(readme())
        self.assertGreaterEqual(len(steps), 10)
        with servers.frontierd(FRONTIERD) as server:  # its defaults
            for command, expected in steps:
                out = subprocess.run(
                    ["redis-cli", "-p", str(server.port), "--no-raw",
                     *shlex.split(command)],
                    capture_output=True, text=True, timeout=30).stdout
                got = out.rstrip("\n").split("\n")
                if command.startswith("URLINFO"):  # a date: now + 30 s
                    got = [re.sub(r'"[0-9]+\.[0-9]{3}"$', '"<date>"', g)
                           for g in got]
                    expected = [re.sub(r'"[0-9]+\.[0-9]{3}"$', '"<date>"', e)
                                for e in expected]
                self.assertEqual(got, expected, command)

    def run_worker(self, argv, env):
        """Runs a worker until /, /ok are done and /busy failed once (30 s
        at most); returns URLINFO of /busy and STATS."""
        with servers.frontierd(FRONTIERD, "--politeness-delay", "0") as server:
            site = Site()
            r = redis.Redis(port=server.port, decode_responses=True)
            proc = subprocess.Popen(
                [sys.executable, *argv(site, server.port)],
                env=dict(os.environ, **env(server.port)),
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            try:
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline:
                    stats = dict(zip(*[iter(r.execute_command("STATS"))] * 2))
                    busy = r.execute_command("URLINFO", site.url("/busy"))
                    busy = dict(zip(*[iter(busy)] * 2)) if busy else {}
                    if (stats["confirmed"] >= 2 and
                            int(busy.get("attempts", "0")) >= 1 or
                            stats["confirmed"] >= 3):
                        break
                    time.sleep(0.1)
            finally:
                proc.kill()
                _, err = proc.communicate(timeout=10)
                site.close()
            return busy, stats, err.decode(errors="replace")

    def check_503_is_failed(self, argv, env):
        busy, stats, err = self.run_worker(argv, env)
        self.assertEqual(busy.get("state"), "scheduled", (busy, err))
        self.assertEqual(busy.get("attempts"), "1")
        self.assertEqual(stats["confirmed_2xx"], 2, stats)
        self.assertEqual(stats["confirmed_5xx"], 0, stats)

    def test_readme_worker_fails_a_503(self):
        code = section(readme(), "## A worker in Python")
        code = re.search(r"```python\n(.*?)```", code, re.S).group(1)
        self.assertIn('port=7379', code)
        self.assertIn('"https://example.com/"', code)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "readme_worker.py")

            def argv(site, port):
                with open(path, "w") as f:
                    f.write(code.replace("port=7379", "port=%d" % port)
                            .replace('"https://example.com/"',
                                     repr(site.url("/"))))
                return [path]

            # The README tells the reader to put clients/python on
            # PYTHONPATH (or pip-install it); so does the test.
            self.check_503_is_failed(argv, lambda port: {
                "PYTHONPATH": os.path.join(ROOT, "clients", "python")})

    def test_example_file_fails_a_503(self):
        self.check_503_is_failed(
            lambda site, port: [WORKER, site.url("/")],
            lambda port: {"FRONTIERD_PORT": str(port)})


if __name__ == "__main__":
    FRONTIERD = sys.argv[1]
    unittest.main(argv=sys.argv[:1])
