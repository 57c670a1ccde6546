"""URL Frontier's PurgeURLs against a real frontierd (issue 23,
docs/urlfrontier.md): the URLs of a queue, or of a crawl, first stored
more than `days` days ago are removed, whatever their state, in slices
(RESP's PURGE, docs/commands.md#purge), with exact counts, also after a
kill -9 between slices; other queues and crawls keep theirs; only an
admin purges. Builds on urlfrontier_test.py's server fixture.

    python3 urlfrontier_purge_test.py path/to/frontierd
"""
import time

import grpc

import urlfrontier_stubs
import urlfrontier_test as base

pb = None
rpc = None


class UrlFrontierPurgeTest(base.UrlFrontierCase):

    def purge(self, **params):
        return self.stub.PurgeURLs(pb.PurgeUrlParams(**params),
                                   timeout=60).value

    def count(self, **params):
        return self.stub.CountURLs(pb.CountUrlParams(**params),
                                   timeout=30).value

    def put_discovered(self, urls, crawl=""):
        """PutDiscovered in batches of 100; every status OK."""
        batches = [pb.DiscoveredBatch(
            ID=str(i), items=[pb.URLInfo(url=u, crawlID=crawl)
                              for u in urls[i:i + 100]])
            for i in range(0, len(urls), 100)]
        for ack in self.stub.PutDiscovered(iter(batches), timeout=60):
            self.assertEqual(set(ack.statuses), {pb.AckMessage.OK})

    def scanned(self):
        """How many URLs a whole URLS scan of the default crawl finds."""
        found, cursor = 0, "0"
        for _ in range(1000):
            cursor, urls = self.resp.execute_command(
                "URLS", "CURSOR", cursor, "COUNT", 1000)
            found += len(urls)
            if cursor == b"0":
                return found
        self.fail("URLS scan did not end")

    def test_purge_removes_a_queues_old_urls_in_every_state(self):
        self.start("--site-max-leases", "0")
        big = [f"https://big.example/{i}" for i in range(600)]
        self.put_discovered(big)
        self.put([base.known("https://big.example/done"),
                  base.discovered("https://small.example/a"),
                  base.discovered("https://big.example/x", crawl="other")])
        leased = [u.url for u in self.get(key="big.example",
                                          max_urls_per_queue=3)]
        self.assertEqual(len(leased), 3)
        # Nothing is a day old.
        self.assertEqual(self.purge(key="big.example", days=1), 0)
        self.assertEqual(self.count(key="big.example"), 601)
        # Creation dates are seconds: wait for the cutoff to pass them.
        time.sleep(1.1)
        # 601 URLs: three slices of 250 records; the count is exact.
        self.assertEqual(self.purge(key="big.example", days=0), 601)
        self.assertEqual(self.count(key="big.example"), 0)
        site = base.field_map(self.resp.execute_command(
            "SITE", "INFO", "big.example"))
        for state in (b"queued", b"leased", b"done"):
            self.assertEqual(site[state.decode()], b"0", state)
        status = self.stub.GetStats(pb.QueueWithinCrawlParams(), timeout=10)
        self.assertEqual(status.size, 1)
        self.assertEqual(status.inProcess, 0)
        # A lease the purge ended no longer confirms; the URL is unknown.
        self.assertEqual(self.resp.execute_command("CONFIRM", leased[0]), 0)
        with self.assertRaises(grpc.RpcError) as caught:
            self.stub.GetURLStatus(pb.URLStatusRequest(url=leased[0]),
                                   timeout=10)
        self.assertEqual(caught.exception.code(), grpc.StatusCode.NOT_FOUND)
        # The other queue and the other crawl keep theirs.
        self.assertEqual([u.url for u in self.get()],
                         ["https://small.example/a"])
        self.assertEqual(self.count(crawlID="other"), 1)
        # The whole crawl: its last URL (leased now).
        self.assertEqual(self.purge(days=0), 1)
        self.assertEqual(self.count(), 0)
        self.assertEqual(self.count(crawlID="other"), 1)
        # An unknown crawl has nothing to purge, and is not created.
        self.assertEqual(self.purge(crawlID="nope", days=0), 0)
        self.assertNotIn(b"nope", self.resp.execute_command("CRAWL", "LIST"))

    def test_counts_stay_exact_after_kill_9_between_slices(self):
        server = self.start()
        self.put_discovered([f"https://e{i % 7}.example/{i}"
                             for i in range(1500)])
        time.sleep(1.1)
        before = str(int(time.time()))
        # Two slices over RESP, each acknowledged (durable), then kill -9.
        removed, cursor = 0, "0"
        for _ in range(2):
            cursor, n = self.resp.execute_command(
                "PURGE", "BEFORE", before, "CURSOR", cursor, "COUNT", 300)
            removed += n
        self.assertEqual(removed, 600)
        self.assertNotEqual(cursor, b"0")
        server.proc.kill()
        server.proc.wait(timeout=10)
        self.start()
        left = 1500 - removed
        self.assertEqual(self.count(), left)
        self.assertEqual(self.scanned(), left)
        info = base.field_map(self.resp.execute_command("CRAWL", "INFO",
                                                   "DEFAULT"))
        self.assertEqual(info["queued"], left)
        # Purged again from the start: exactly what was left.
        self.assertEqual(self.purge(days=0), left)
        self.assertEqual(self.count(), 0)
        self.assertEqual(self.scanned(), 0)
        self.assertEqual(self.get(), [])

    def test_bad_input_and_roles(self):
        self.start("--user", "worker on >wpass ~* +@worker",
                   "--requirepass", "secret")
        self.resp = base.redis.Redis(host="127.0.0.1", port=self.server.port,
                                     password="secret", socket_timeout=20)
        self.addCleanup(self.resp.close)
        admin = (("user", "default"), ("password", "secret"))
        worker = (("user", "worker"), ("password", "wpass"))
        # The acks are read, so the URL is stored before the checks below
        # (an unread stream may not have been served yet).
        acks = list(self.stub.PutURLs(
            iter([base.discovered("https://example.com/")]),
            metadata=admin, timeout=20))
        self.assertEqual(len(acks), 1)
        time.sleep(1.1)  # older than the purge's cut below
        with self.assertRaises(grpc.RpcError) as caught:
            self.stub.PurgeURLs(pb.PurgeUrlParams(days=0), metadata=worker,
                                timeout=10)
        self.assertEqual(caught.exception.code(),
                         grpc.StatusCode.PERMISSION_DENIED)
        for argv in (["PURGE"], ["PURGE", "CURSOR", "0"],
                     ["PURGE", "BEFORE", "soon"],
                     ["PURGE", "BEFORE", "-1"],
                     ["PURGE", "BEFORE", "0", "CURSOR", "nonsense"],
                     ["PURGE", "BEFORE", "0", "SITE", "a b"],
                     ["PURGE", "BEFORE", "0", "COUNT", "0"]):
            with self.assertRaises(base.redis.ResponseError, msg=argv):
                self.resp.execute_command(*argv)
        # Nothing changed.
        self.assertEqual(self.stub.CountURLs(pb.CountUrlParams(),
                                             metadata=admin,
                                             timeout=10).value, 1)
        self.assertEqual(self.stub.PurgeURLs(pb.PurgeUrlParams(days=0),
                                             metadata=admin,
                                             timeout=10).value, 1)


if __name__ == "__main__":
    urlfrontier_stubs.run_tests([globals(), vars(base)])
