"""Export and import (issue 25 §1; docs/operations.md "Export and import"):
a frontier with URLs in every state, values, delayed, blocked, backed-off
and limited sites and robots rules goes through frontierd-export and
frontierd-import into a fresh server, which then answers the same STATS
state counts, SITE INFO, URLINFO (a leased URL comes back queued) and POP
order; bad lines are reported by line number and skipped; a kill -9 of the
server during an import, then a resumed import, gives the same frontier.

    python3 export_import_test.py path/to/frontierd

Needs frontierd-export beside frontierd; talks RESP with the import tool's
own client, so it needs no client library.
"""
import importlib.machinery
import importlib.util
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import servers

BINARY = None
HERE = os.path.dirname(os.path.abspath(__file__))
IMPORT_TOOL = os.path.join(HERE, "..", "..", "clients", "import",
                           "frontierd-import")
_loader = importlib.machinery.SourceFileLoader("frontierd_import", IMPORT_TOOL)
_spec = importlib.util.spec_from_loader("frontierd_import", _loader)
tool = importlib.util.module_from_spec(_spec)
_loader.exec_module(tool)

FLAGS = ["--politeness-delay", "0", "--site-max-leases", "0",
         "--max-attempts", "2", "--robots", "yes", "--fsync", "always",
         "--http-port", "0"]
BINARY_VALUE = b"\x00\xff\r\n{\"k\": 1}"


class Client:
    def __init__(self, port):
        self.r = tool.Resp("127.0.0.1", port, 30)

    def __call__(self, *args):
        reply = self.r.command(list(args))
        if isinstance(reply, tool.ServerErrorReply):
            raise AssertionError(f"{args}: {reply}")
        return reply


def pairs(reply):
    return {reply[i].decode(): reply[i + 1] for i in range(0, len(reply), 2)}


def build_frontier(c):
    """URLs in every state on the server of client `c`; returns the URLs."""
    urls = []
    for host in ["done", "recrawl", "retry", "dead", "excl", "leased",
                 "slow", "blocked", "limited", "backoff"] + \
            [f"q{i}" for i in range(6)]:
        c("ROBOTS", "SET", f"http://{host}.test", "200",
          "User-agent: *\nDisallow: /private\n")

    def add(url, *opts):
        c("ADD", url, *opts)
        urls.append(url)

    def pop_all():
        return [u.decode() for u in c("POP", "COUNT", "100") or []]

    for i in range(4):
        add(f"http://done.test/{i}", "DATA", f"value {i} é")
    for u in pop_all():
        c("CONFIRM", u, "STATUS", "200")
    add("http://recrawl.test/a", "RECRAWL", "3600")
    for u in pop_all():
        c("CONFIRM", u, "STATUS", "200")  # scheduled (recrawl)
    add("http://retry.test/a", "DATA", BINARY_VALUE)
    for u in pop_all():
        c("FAIL", u, "DELAY", "3600")  # scheduled (retry)
    add("http://dead.test/a")
    for _ in range(2):
        for u in pop_all():
            c("FAIL", u)  # the second reaches max-attempts 2: dead
    add("http://excl.test/private/x")
    assert pop_all() == []  # excluded by its robots rules at POP
    add("http://backoff.test/a")
    for u in pop_all():
        c("FAIL", u, "STATUS", "503")  # backs the site off
    add("http://leased.test/a", "PRIORITY", "10")
    add("http://leased.test/b", "DATA", "held")
    assert len(pop_all()) == 2  # leased
    c("DELAY", "slow.test", "3600")
    c("SITE", "BLOCK", "blocked.test", "3600")
    c("SITE", "LIMIT", "limited.test", "50")
    for host in ["slow", "blocked", "limited"]:
        for i in range(3):
            add(f"http://{host}.test/{i}")
    for i in range(6):
        ref = f"http://q{i}.test/"
        add(ref, "PRIORITY", str(100 * i))
        links = [f"http://q{i}.test/p{k}" for k in range(8)]
        c("MADD", ref, *links)  # depth 2
        c("MADD", f"http://q{(i + 1) % 6}.test/", *links[:3])  # back-links
        urls.extend(links)
    return sorted(set(urls))


def snapshot(c, urls):
    """STATS state counts, SITE INFO of every site, URLINFO of every URL."""
    stats = pairs(c("STATS"))
    counts = {k: int(stats[k]) for k in
              ("urls", "queued", "leased", "done", "scheduled", "dead",
               "excluded", "sites")}
    infos = {u: pairs(c("URLINFO", u)) for u in urls}
    sites = {}
    for info in infos.values():
        name = info["site"].decode() if "site" in info else None
        if name is None:
            continue
        if name not in sites:
            sites[name] = pairs(c("SITE", "INFO", name))
    return counts, infos, sites


def with_lease_rule(snap):
    """What an import makes of `snap`: leased URLs are queued, no due."""
    counts, infos, sites = snap
    counts = dict(counts)
    counts["queued"] += counts.pop("leased")
    counts["leased"] = 0
    infos = {u: dict(i) for u, i in infos.items()}
    for i in infos.values():
        if i["state"] == b"leased":
            i["state"] = b"queued"
            i["due"] = b"0"
    sites = {n: dict(s) for n, s in sites.items()}
    for s in sites.values():
        s["queued"] = str(int(s["queued"]) + int(s["leased"])).encode()
        s["leased"] = b"0"
    return counts, infos, sites


def export(port, *extra):
    exporter = os.path.join(os.path.dirname(os.path.abspath(BINARY)),
                            "frontierd-export")
    out = subprocess.run([exporter, "--from", f"127.0.0.1:{port}", *extra],
                         capture_output=True, timeout=60, check=True)
    return out.stdout


def run_import(port, path, *extra, timeout=60):
    return subprocess.run([sys.executable, IMPORT_TOOL, "--port", str(port),
                           *extra, path], capture_output=True, text=True,
                          timeout=timeout)


def pop_order(c):
    order = []
    for _ in range(200):  # bounded: the frontier holds far fewer
        got = c("POP", "COUNT", "7")
        if not got:
            break
        order.extend(u.decode() for u in got)
    return order


class ExportImportTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="frontierd-export-test-")

    def tearDown(self):
        subprocess.run(["rm", "-rf", self.tmp], check=False)

    def write(self, name, data):
        path = os.path.join(self.tmp, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def test_round_trip(self):
        with servers.frontierd(BINARY, *FLAGS) as a:
            ca = Client(a.port)
            urls = build_frontier(ca)
            before = snapshot(ca, urls)
            self.assertGreater(before[0]["leased"], 0)
            for state in ("done", "scheduled", "dead", "excluded", "queued"):
                self.assertGreater(before[0][state], 0, state)
            path = self.write("a.jsonl", export(a.port))
            with servers.frontierd(BINARY, *FLAGS) as b:
                r = run_import(b.port, path, "--batch", "7")
                self.assertEqual(r.returncode, 0, r.stderr)
                cb = Client(b.port)
                after = snapshot(cb, urls)
                expected = with_lease_rule(before)
                self.assertEqual(after[0], expected[0])
                self.assertEqual(after[2], expected[2])
                self.assertEqual(after[1], expected[1])
                # Importing again changes nothing: everything is known.
                r = run_import(b.port, path)
                self.assertEqual(r.returncode, 0, r.stderr)
                with open(path, "rb") as f:
                    text = f.read()
                site_lines = text.count(b'"type":"site"')
                robots_lines = text.count(b'"type":"robots"')
                self.assertIn(f"{site_lines} stored, "
                              f"{len(urls) + robots_lines} kept",
                              r.stderr)  # sites are always written
                self.assertEqual(snapshot(cb, urls), after)
                # The same POP order, once A's leases are back in the queue.
                for u, info in before[1].items():
                    if info["state"] == b"leased":
                        ca("RELEASE", u)
                order = pop_order(ca)
                self.assertGreater(len(order), 40)
                self.assertEqual(pop_order(cb), order)

    def test_one_crawl_to_another_crawl(self):
        """--crawl on both sides: a crawl's URLs and data, not the default
        crawl's, land in the named crawl of the other server."""
        with servers.frontierd(BINARY, *FLAGS) as a:
            c = Client(a.port)
            c("ADD", "http://default.test/only-default")
            self.assertEqual(c("CRAWL", "news"), "OK")
            c("ADD", "http://n.test/1", "DATA", b"\x00one")
            c("MADD", "http://n.test/1", "http://n.test/2", "http://m.test/3")
            lines = export(a.port, "--crawl", "news").decode().splitlines()
            urls = sorted(l for l in lines if '"type":"url"' in l)
            self.assertEqual(len(urls), 3, lines)
            self.assertFalse(any("default.test" in l for l in lines))
            default = export(a.port).decode()
            self.assertIn("default.test/only-default", default)
            self.assertNotIn("n.test", default)
            missing = subprocess.run(
                [os.path.join(os.path.dirname(os.path.abspath(BINARY)),
                              "frontierd-export"), "--from",
                 f"127.0.0.1:{a.port}", "--crawl", "nosuch"],
                capture_output=True, text=True, timeout=60)
            self.assertNotEqual(missing.returncode, 0)
            self.assertIn("no crawl named 'nosuch'", missing.stderr)
            path = self.write("news.jsonl", "\n".join(lines).encode() + b"\n")
            with servers.frontierd(BINARY, *FLAGS) as b:
                r = run_import(b.port, path, "--crawl", "copy")
                self.assertEqual(r.returncode, 0, r.stderr)
                cb = Client(b.port)
                self.assertEqual(cb("SEEN", "http://n.test/2"), 0)  # DEFAULT
                self.assertEqual(cb("CRAWL", "copy"), "OK")
                for u in ("http://n.test/1", "http://n.test/2",
                          "http://m.test/3"):
                    self.assertEqual(cb("SEEN", u), 1, u)
                info = cb("URLINFO", "http://n.test/1")
                fields = dict(zip(info[::2], info[1::2]))
                self.assertEqual(fields[b"data"], b"\x00one")

    def test_one_site(self):
        with servers.frontierd(BINARY, *FLAGS) as a:
            build_frontier(Client(a.port))
            lines = export(a.port, "--site", "q1.test").decode().splitlines()
            sites = [l for l in lines if '"type":"site"' in l]
            self.assertEqual(len(sites), 1)
            self.assertIn('"name":"q1.test"', sites[0])
            url_lines = [l for l in lines if '"type":"url"' in l]
            self.assertEqual(len(url_lines), 9)
            self.assertTrue(all('"site":"q1.test"' in l for l in url_lines))

    def test_one_partition(self):
        with servers.frontierd(BINARY, *FLAGS, "--partition",
                               "edu edu, big example.com") as a:
            c = Client(a.port)
            for u in ["http://a.edu/1", "http://b.x.edu/2", "http://c.net/3",
                      "http://www.example.com/4"]:
                c("ADD", u)
            lines = export(a.port, "--partition", "edu").decode()
            self.assertEqual(lines.count('"type":"url"'), 2)
            self.assertIn('"url":"http://a.edu/1"', lines)
            self.assertIn('"url":"http://b.x.edu/2"', lines)
            self.assertNotIn("c.net", lines)
            self.assertEqual(
                export(a.port, "--partition", "default").decode().count(
                    '"type":"url"'), 1)

    def test_bad_lines(self):
        good = b'{"type":"url","url":"http://ok.test/1","state":"queued"}\n'
        data = (b'{"type":"frontier","version":1,"exported":0}\n' + good +
                b'{"type":"url","url":"http://ok.test/2",\n' +
                b'{"type":"url","url":"http://ok.test/3","state":"lost"}\n' +
                b'{"type":"url","url":"not a url","state":"queued"}\n' +
                b'{"type":"url","url":"http://ok.test/4","depth":0}\n' +
                b'{"type":"site","name":"ok.test","delay":"x"}\n' +
                b'{"type":"planet"}\n' +
                b'{"type":"url","url":"http://ok.test/5","state":"done"}\n')
        path = self.write("bad.jsonl", data)
        with servers.frontierd(BINARY, *FLAGS) as b:
            r = run_import(b.port, path, "--batch", "3")
            self.assertEqual(r.returncode, 3, r.stderr)
            for n, what in [(3, "malformed JSON"), (4, "unknown state"),
                            (5, "invalid URL"), (6, "depth"), (7, "delay"),
                            (8, "unknown type")]:
                self.assertRegex(r.stderr, rf"line {n}: .*{what}")
            self.assertIn("2 stored, 0 kept (known already), 6 refused",
                          r.stderr)
            c = Client(b.port)
            self.assertEqual(int(pairs(c("STATS"))["urls"]), 2)
            self.assertEqual(pairs(c("URLINFO", "http://ok.test/5"))["state"],
                             b"done")
            self.assertIsNone(c("URLINFO", "http://ok.test/3"))

    def test_kill_during_import_then_resume(self):
        lines = [b'{"type":"frontier","version":1,"exported":0}\n']
        for i in range(6000):
            lines.append(('{"type":"url","url":"http://s%d.test/%d",'
                          '"state":"%s","priority":%d,"data":"v%d"}\n' %
                          (i % 50, i, ["queued", "done", "dead"][i % 3],
                           i % 10000, i)).encode())
        path = self.write("big.jsonl", b"".join(lines))
        data_dir = os.path.join(self.tmp, "killed")
        binary = os.path.abspath(BINARY)

        def on_dir(d):
            return servers.Server(lambda s: [
                binary, "--port", str(s.port), "--bind", "127.0.0.1",
                "--dir", d, "--logfile",
                os.path.join(s.dir, "frontierd.log"), *FLAGS], "frontierd")

        with on_dir(data_dir) as b:
            proc = subprocess.Popen(
                [sys.executable, IMPORT_TOOL, "--port", str(b.port),
                 "--batch", "20", path], stderr=subprocess.PIPE, text=True)
            seen = 0
            deadline = time.monotonic() + 60
            for line in proc.stderr:  # bounded by the file's length
                m = re.search(r"acknowledged through line (\d+)", line)
                if m:
                    seen = int(m.group(1))
                if seen >= 1000 or time.monotonic() > deadline:
                    break
            b.proc.send_signal(signal.SIGKILL)
            b.proc.wait(timeout=10)
            rest = proc.stderr.read()
            proc.wait(timeout=30)
            self.assertEqual(proc.returncode, 1, rest)
            acked = int(re.search(r"last acknowledged line (\d+)",
                                  rest).group(1))
            self.assertGreaterEqual(acked, seen)
            self.assertLess(acked, len(lines))
        with on_dir(data_dir) as b:
            c = Client(b.port)
            # Every acknowledged batch survived, none half: whole batches.
            stored = int(pairs(c("STATS"))["urls"])
            self.assertGreaterEqual(stored, acked - 1)
            self.assertEqual((stored - (acked - 1)) % 20, 0)
            r = run_import(b.port, path, "--start-line", str(acked + 1))
            self.assertEqual(r.returncode, 0, r.stderr)
            urls = [f"http://s{i % 50}.test/{i}" for i in range(0, 6000, 37)]
            resumed = snapshot(c, urls)
            with servers.frontierd(BINARY, *FLAGS) as fresh:
                r = run_import(fresh.port, path)
                self.assertEqual(r.returncode, 0, r.stderr)
                whole = snapshot(Client(fresh.port), urls)
        self.assertEqual(resumed[0], whole[0])
        self.assertEqual(resumed[2], whole[2])
        strip = lambda infos: {u: {k: v for k, v in i.items()
                                   if k != "created"}
                               for u, i in infos.items()}
        self.assertEqual(strip(resumed[1]), strip(whole[1]))


if __name__ == "__main__":
    BINARY = sys.argv.pop(1)
    unittest.main()
