"""URL Frontier's gRPC API, the rpcs added last (issue 23,
docs/urlfrontier.md): SetActive/GetActive, a node-wide pause of
GetURLs (and of RESP's POP) kept across kill -9; SetCrawlLimit, a
per-queue cap on completed URLs, kept across kill -9; GetURLs with a
key; `order date` (URLs by their dates, through GetURLs and POP);
ListURLs and CountURLs with filters, and the reference's dump and
re-import; TLS on the gRPC port (urlfrontier-tls). Builds on
urlfrontier_test.py's server fixture.

    python3 urlfrontier_more_test.py path/to/frontierd
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

import grpc

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import servers  # noqa: E402
import urlfrontier_stubs  # noqa: E402
import urlfrontier_test as base  # noqa: E402

pb = None
rpc = None
discovered = base.discovered
known = base.known
field_map = base.field_map


class UrlFrontierMoreTest(base.UrlFrontierCase):

    def restart_after_kill_9(self, server, *extra):
        server.proc.kill()
        server.proc.wait(timeout=10)
        return self.start(*extra)

    # --- SetActive, GetActive ------------------------------------------

    def test_pause_holds_get_urls_across_kill_9(self):
        server = self.start("--site-max-leases", "0")
        self.assertTrue(self.stub.GetActive(pb.Local(), timeout=10).state)
        self.put([discovered("https://example.com/1")])
        self.stub.SetActive(pb.Active(state=False), timeout=10)
        self.assertFalse(self.stub.GetActive(pb.Local(), timeout=10).state)
        # Paused: nothing handed out, over gRPC or RESP; puts still work.
        self.assertEqual(self.get(), [])
        self.assertEqual(self.resp.execute_command("POP"), None)
        self.assertEqual(self.put([discovered("https://example.com/2")]),
                         [("https://example.com/2", pb.AckMessage.OK)])
        self.assertEqual(self.resp.execute_command("PAUSE", "STATUS"), 1)

        server = self.restart_after_kill_9(server, "--site-max-leases", "0")
        self.assertFalse(self.stub.GetActive(pb.Local(), timeout=10).state)
        self.assertEqual(self.get(), [])

        self.stub.SetActive(pb.Active(state=True), timeout=10)
        self.assertTrue(self.stub.GetActive(pb.Local(), timeout=10).state)
        self.assertCountEqual(
            [u.url for u in self.get(max_urls_per_queue=5)],
            ["https://example.com/1", "https://example.com/2"])
        # Resumed for good: a restart keeps it resumed.
        self.put([discovered("https://example.com/3")])
        self.restart_after_kill_9(server, "--site-max-leases", "0")
        self.assertTrue(self.stub.GetActive(pb.Local(), timeout=10).state)
        self.assertEqual([u.url for u in self.get()],
                         ["https://example.com/3"])

    def test_pause_holds_every_crawl_and_a_waiting_bpop(self):
        self.start("--site-max-leases", "0")
        self.resp.execute_command("PAUSE", "ON")
        self.put([discovered("https://example.com/a", crawl="other")])
        self.assertEqual(self.get(crawlID="other"), [])
        self.assertEqual(self.get(anyCrawlID=pb.AnyCrawlID()), [])
        self.put([discovered("https://example.com/b")])
        # A BPOP waits while paused and is served once resumed.
        self.assertEqual(self.resp.execute_command("BPOP", "0.3"), None)
        self.resp.execute_command("PAUSE", "OFF")
        self.assertEqual(self.resp.execute_command("BPOP", "5"),
                         b"https://example.com/b")

    def test_only_an_admin_pauses(self):
        self.start("--user", "worker on >wpass ~* +@worker",
                   "--requirepass", "secret")
        creds = (("user", "worker"), ("password", "wpass"))
        with self.assertRaises(grpc.RpcError) as caught:
            self.stub.SetActive(pb.Active(state=False), metadata=creds,
                                timeout=10)
        self.assertEqual(caught.exception.code(),
                         grpc.StatusCode.PERMISSION_DENIED)
        # A worker reads the switch; nothing changed.
        self.assertTrue(self.stub.GetActive(pb.Local(), metadata=creds,
                                            timeout=10).state)

    # --- SetCrawlLimit -------------------------------------------------

    def confirm_all(self, urls):
        for url in urls:
            self.assertEqual(self.resp.execute_command("CONFIRM", url), 1)

    def test_crawl_limit_stops_a_queue_at_its_completed_count(self):
        # One lease per site (the default): one URL of a queue per GetURLs.
        server = self.start()
        urls = [f"https://limited.example/{i}" for i in range(6)]
        self.put([discovered(u) for u in urls] +
                 [discovered("https://free.example/")])
        self.stub.SetCrawlLimit(
            pb.CrawlLimitParams(key="limited.example", limit=2), timeout=10)
        for _ in range(2):
            got = [u.url for u in self.get()]
            self.assertEqual(len([u for u in got if "limited" in u]), 1)
            self.confirm_all(got)
        # Two done: the queue gives nothing more, the others still do.
        self.put([discovered("https://free.example/2")])
        self.assertEqual([u.url for u in self.get()],
                         ["https://free.example/2"])
        site = field_map(self.resp.execute_command(
            "SITE", "INFO", "limited.example"))
        self.assertEqual((site["done"], site["queued"], site["crawl-limit"]),
                         (b"2", b"4", b"2"))
        # Not an active queue any more.
        queues = self.stub.ListQueues(pb.Pagination(), timeout=10)
        self.assertNotIn("limited.example", list(queues.values))

        self.restart_after_kill_9(server)
        self.assertEqual(self.get(), [])
        self.assertEqual(self.resp.execute_command("POP"), None)

        # A higher limit hands the queue out again, up to the new cap.
        self.stub.SetCrawlLimit(
            pb.CrawlLimitParams(key="limited.example", limit=3), timeout=10)
        got = [u.url for u in self.get()]
        self.assertEqual(len(got), 1)
        self.confirm_all(got)
        self.assertEqual(self.get(), [])
        # 0 removes the limit.
        self.stub.SetCrawlLimit(
            pb.CrawlLimitParams(key="limited.example", limit=0), timeout=10)
        self.assertEqual(len(self.get()), 1)

    def test_crawl_limit_is_per_crawl(self):
        self.start("--site-max-leases", "0")
        self.put([discovered("https://example.com/1", crawl="c1"),
                  discovered("https://example.com/2", crawl="c1"),
                  discovered("https://example.com/1", crawl="c2")])
        self.stub.SetCrawlLimit(
            pb.CrawlLimitParams(key="example.com", limit=1, crawlID="c1"),
            timeout=10)
        got = [u.url for u in self.get(crawlID="c1", max_urls_per_queue=1)]
        self.resp.execute_command("CRAWL", "c1")
        self.confirm_all(got)
        self.assertEqual(self.get(crawlID="c1", max_urls_per_queue=5), [])
        self.assertEqual([u.url for u in self.get(crawlID="c2")],
                         ["https://example.com/1"])

    def test_bad_crawl_limit_changes_nothing(self):
        self.start()
        with self.assertRaises(grpc.RpcError) as caught:
            self.stub.SetCrawlLimit(
                pb.CrawlLimitParams(key="not a site", limit=1), timeout=10)
        self.assertEqual(caught.exception.code(),
                         grpc.StatusCode.INVALID_ARGUMENT)
        self.assertEqual(self.resp.execute_command("SITE", "LIST"),
                         [b"0", []])

    # --- order date ----------------------------------------------------

    def wait_none_scheduled(self):
        """Until no URL of the default crawl waits for its date (10 s)."""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            info = field_map(self.resp.execute_command(
                "CRAWL", "INFO", "DEFAULT"))
            if info["scheduled"] == 0:
                return
            time.sleep(0.1)
        self.fail("URLs still scheduled after 10 s")

    def test_order_date_hands_urls_out_by_their_dates(self):
        # URL Frontier's order: by refetch date, discovered URLs dated now.
        self.start("--order", "date", "--site-max-leases", "0")
        now = int(time.time())
        for host in ("example.com", "example.org"):
            self.put([known(f"https://{host}/c", refetch=now + 6),
                      known(f"https://{host}/a", refetch=now + 2),
                      known(f"https://{host}/b", refetch=now + 4),
                      known(f"https://{host}/never"),
                      discovered(f"https://{host}/d")])
        self.wait_none_scheduled()
        # Through GetURLs and through POP: the discovered URL (dated at
        # the put) first, then the refetch dates in order.
        self.assertEqual(
            [u.url for u in self.get(key="example.com",
                                     max_urls_per_queue=10)],
            ["https://example.com/d", "https://example.com/a",
             "https://example.com/b", "https://example.com/c"])
        self.assertEqual(
            self.resp.execute_command("POP", "COUNT", 10),
            [b"https://example.org/d", b"https://example.org/a",
             b"https://example.org/b", b"https://example.org/c"])

    def test_order_date_directory_refuses_another_order(self):
        server = self.start("--order", "date")
        self.put([discovered("https://example.com/")])
        server.stop()
        proc = subprocess.run(
            [base.BINARY, "--port", str(servers.free_port()), "--bind",
             "127.0.0.1", "--dir", self.data],
            capture_output=True, text=True, timeout=30)
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("order=date", proc.stdout + proc.stderr)

    # --- GetURLs with a key ----------------------------------------------

    def test_get_urls_with_a_key_takes_that_queue_only(self):
        self.start("--site-max-leases", "0")
        a = [f"https://a.example/{i}" for i in range(3)]
        self.put([discovered(u) for u in a] +
                 [discovered("https://b.example/")])
        got = [u.url for u in self.get(key="a.example", max_urls_per_queue=2,
                                       max_queues=1)]
        self.assertEqual(len(got), 2)
        self.assertTrue(set(got) <= set(a))
        self.assertEqual(self.get(key="c.example"), [])
        self.assertEqual([u.url for u in self.get(key="b.example",
                                                  max_urls_per_queue=5)],
                         ["https://b.example/"])
        # The same over RESP: POP ... SITE.
        (last,) = set(a) - set(got)
        self.assertEqual(
            self.resp.execute_command("POP", "SITE", "a.example"),
            last.encode())
        self.assertEqual(self.resp.execute_command("POP", "SITE", "a.example"),
                         None)
        with self.assertRaises(grpc.RpcError) as caught:
            self.get(key="not a site")
        self.assertEqual(caught.exception.code(),
                         grpc.StatusCode.INVALID_ARGUMENT)

    # --- ListURLs, CountURLs with a filter -------------------------------

    def test_list_urls_pages_through_a_crawl_and_a_queue(self):
        self.start("--site-max-leases", "0")
        urls = [f"https://a.example/{i:02}" for i in range(30)]
        urls += [f"https://b.example/{i:02}" for i in range(5)]
        self.put([discovered(u, metadata={"k": [u[-2:]]}) for u in urls])
        self.put([discovered("https://a.example/other", crawl="c2")])
        self.put([base.known("https://b.example/00")])

        def listed(**params):
            return list(self.stub.ListURLs(pb.ListUrlParams(**params),
                                           timeout=20))

        items = listed(size=1000)
        self.assertCountEqual([i.ID for i in items], urls)
        # Pages: start and size cut one stable order, no URL twice.
        pages = [listed(start=s, size=10) for s in range(0, 40, 10)]
        self.assertEqual([len(p) for p in pages], [10, 10, 10, 5])
        paged = [i.ID for p in pages for i in p]
        self.assertEqual(paged, [i.ID for i in items])
        self.assertEqual(len(listed()), 35)  # the default page: 100
        # One queue, with what each URL is.
        items = listed(key="b.example")
        self.assertCountEqual([i.ID for i in items],
                              [u for u in urls if "b.example" in u])
        by_id = {i.ID: i for i in items}
        self.assertEqual(by_id["https://b.example/00"].WhichOneof("item"),
                         "known")
        info = by_id["https://b.example/03"].discovered.info
        self.assertEqual(base.metadata_of(info), {"k": ["03"]})
        self.assertGreater(by_id["https://b.example/03"].creation_date, 0)
        # Another crawl's URLs are its own.
        self.assertEqual([i.ID for i in listed(crawlID="c2")],
                         ["https://a.example/other"])
        # A filter, with or without case.
        self.assertCountEqual(
            [i.ID for i in listed(filter="/0", size=1000)],
            [u for u in urls if "/0" in u])
        self.assertEqual(listed(filter="A.EXAMPLE/1"), [])
        self.assertEqual(len(listed(filter="A.EXAMPLE/1", ignoreCase=True)),
                         10)

    def test_dump_and_reimport_keeps_every_url_and_what_it_is(self):
        # The reference's scenario: ListURLs out of one frontier, PutURLs
        # of those very items into a new one; each URL is the same item.
        self.start()
        due = int(time.time()) + 3600
        self.put([discovered(f"https://a.example/{i}",
                             metadata={"n": [str(i)], "empty": []})
                  for i in range(12)] +
                 [discovered("https://b.example/x", crawl="c2")])
        self.put([base.known("https://a.example/0"),
                  base.known("https://a.example/1", refetch=due,
                             metadata={"v": ["2"]})])

        def dump(stub, crawl=""):
            items = list(stub.ListURLs(
                pb.ListUrlParams(size=1000, crawlID=crawl), timeout=20))
            return {i.ID: i for i in items}

        def same(item):
            kind = item.WhichOneof("item")
            info = getattr(item, kind).info
            return kind, info.url, base.metadata_of(info)

        before = dump(self.stub)
        before_c2 = dump(self.stub, "c2")
        self.assertEqual(len(before), 12)
        self.data = tempfile.mkdtemp(prefix="frontierd-data-")
        self.addCleanup(shutil.rmtree, self.data, True)
        self.start()  # a new frontier
        acks = self.put(list(before.values()) + list(before_c2.values()))
        self.assertTrue(all(status == pb.AckMessage.OK for _, status in acks))
        after = dump(self.stub)
        self.assertEqual({k: same(v) for k, v in after.items()},
                         {k: same(v) for k, v in before.items()})
        self.assertEqual(list(dump(self.stub, "c2")), ["https://b.example/x"])
        self.assertEqual(same(after["https://a.example/1"]),
                         ("known", "https://a.example/1", {"v": ["2"]}))
        # The refetch date is kept (to the second it was sent as).
        self.assertAlmostEqual(
            after["https://a.example/1"].known.refetchable_from_date, due,
            delta=2)
        self.assertEqual(same(after["https://a.example/0"])[0], "known")

    def test_count_urls_with_a_filter(self):
        self.start()
        urls = [f"https://a.example/{w}" for w in ("cat", "Cats", "dog")]
        urls += ["https://b.example/cat"]
        self.put([discovered(u) for u in urls])

        def count(**params):
            return self.stub.CountURLs(pb.CountUrlParams(**params),
                                       timeout=20).value

        self.assertEqual(count(), 4)
        self.assertEqual(count(filter="cat"), 2)
        self.assertEqual(count(filter="cat", ignoreCase=True), 3)
        self.assertEqual(count(filter="cat", key="a.example"), 1)
        self.assertEqual(count(filter="zebra"), 0)
        with self.assertRaises(grpc.RpcError) as caught:
            count(filter="cat", crawlID="nowhere")
        self.assertEqual(caught.exception.code(), grpc.StatusCode.NOT_FOUND)
        # Read only: the unknown crawl was not made.
        self.assertNotIn("nowhere", list(
            self.stub.ListCrawls(pb.Local(), timeout=10).values))

    def test_urls_scans_in_slices_over_resp(self):
        self.start()
        urls = [f"https://example.com/{i}" for i in range(25)]
        self.resp.execute_command("MADD", "", *urls)
        seen, cursor, calls = [], b"0", 0
        while True:
            cursor, page = self.resp.execute_command(
                "URLS", "CURSOR", cursor, "COUNT", 7)
            seen += page
            calls += 1
            self.assertLessEqual(len(page), 7)
            if cursor == b"0" or calls > 20:
                break
        self.assertEqual(calls, 4)
        self.assertCountEqual([u.decode() for u in seen], urls)
        with self.assertRaises(Exception):
            self.resp.execute_command("URLS", "CURSOR", "nonsense")



class UrlFrontierTlsTest(unittest.TestCase):
    """urlfrontier-tls yes: the gRPC port speaks TLS with the tls-* files,
    as grpcio's ssl_channel_credentials sees it."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="frontierd-tls-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.cert = os.path.join(self.dir, "server.crt")
        self.key = os.path.join(self.dir, "server.key")
        # Self-signed, so it is its own CA (and a client certificate the
        # server can check against it).
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
             "-keyout", self.key, "-out", self.cert, "-days", "2", "-subj",
             "/CN=localhost", "-addext",
             "subjectAltName=DNS:localhost,IP:127.0.0.1"],
            check=True, capture_output=True, timeout=60)
        with open(self.cert, "rb") as f:
            self.cert_pem = f.read()
        with open(self.key, "rb") as f:
            self.key_pem = f.read()

    def start(self, *extra):
        self.port = servers.free_port()
        server = servers.frontierd_on(
            base.BINARY, os.path.join(self.dir, "data"),
            "--urlfrontier-port", str(self.port), "--urlfrontier-tls", "yes",
            "--tls-cert-file", self.cert, "--tls-key-file", self.key,
            *extra).__enter__()
        self.addCleanup(server.__exit__, None, None, None)
        return server

    def stub(self, credentials):
        channel = grpc.secure_channel(f"127.0.0.1:{self.port}", credentials)
        self.addCleanup(channel.close)
        return rpc.URLFrontierStub(channel)

    def list_crawls(self, stub):
        return list(stub.ListCrawls(pb.Local(), timeout=10).values)

    def test_tls_port_answers_a_tls_client_only(self):
        self.start("--tls-auth-clients", "no")
        secure = self.stub(
            grpc.ssl_channel_credentials(root_certificates=self.cert_pem))
        self.assertEqual(self.list_crawls(secure), ["DEFAULT"])
        plain = grpc.insecure_channel(f"127.0.0.1:{self.port}")
        self.addCleanup(plain.close)
        with self.assertRaises(grpc.RpcError) as caught:
            rpc.URLFrontierStub(plain).ListCrawls(pb.Local(), timeout=5)
        self.assertEqual(caught.exception.code(),
                         grpc.StatusCode.UNAVAILABLE)

    def test_client_certificates_are_checked_as_tls_auth_clients_says(self):
        self.start("--tls-ca-cert-file", self.cert)  # tls-auth-clients yes
        anonymous = self.stub(
            grpc.ssl_channel_credentials(root_certificates=self.cert_pem))
        with self.assertRaises(grpc.RpcError) as caught:
            self.list_crawls(anonymous)
        self.assertEqual(caught.exception.code(),
                         grpc.StatusCode.UNAVAILABLE)
        signed = self.stub(grpc.ssl_channel_credentials(
            root_certificates=self.cert_pem, private_key=self.key_pem,
            certificate_chain=self.cert_pem))
        self.assertEqual(self.list_crawls(signed), ["DEFAULT"])

    def test_tls_without_a_certificate_stops_the_server(self):
        proc = subprocess.run(
            [base.BINARY, "--port", str(servers.free_port()), "--bind",
             "127.0.0.1", "--dir", os.path.join(self.dir, "data"),
             "--urlfrontier-port", str(servers.free_port()),
             "--urlfrontier-tls", "yes"],
            capture_output=True, text=True, timeout=30)
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("urlfrontier-tls", proc.stdout + proc.stderr)


if __name__ == "__main__":
    urlfrontier_stubs.run_tests([globals(), vars(base)])
