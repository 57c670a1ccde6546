"""URL Frontier's gRPC API under load and bad input (issue 23,
docs/urlfrontier.md): PutURLs back-pressure (a client that reads no acks
is held back, nothing is lost), oversized messages and items (the message
refused, the server unharmed; an item over max-url-length or max-url-data
SKIPPED alone), DeleteCrawl of a large crawl while the loop keeps
answering. The crawl has FRONTIERD_DELETE_CRAWL_URLS URLs (20,000 by
default, seconds in CI; 1000000 for the issue's figure). Builds on
urlfrontier_test.py's server fixture.

    python3 urlfrontier_load_test.py path/to/frontierd
"""
import os
import threading
import time

import grpc

import urlfrontier_stubs
import urlfrontier_test as base

pb = None
rpc = None
discovered = base.discovered

DELETE_CRAWL_URLS = int(os.environ.get("FRONTIERD_DELETE_CRAWL_URLS",
                                       "20000"))


class UrlFrontierLoadTest(base.UrlFrontierCase):

    def test_put_urls_holds_back_a_client_that_reads_no_acks(self):
        self.start()
        total = 40000
        pad = "p" * 1000  # 1 KB items, 1 KB acks (the URL echoed)
        urls = [f"https://e{i % 50}.example/{pad}/{i}" for i in range(total)]
        pulled = [0]

        def items():
            for url in urls:
                pulled[0] += 1
                yield discovered(url)

        call = self.stub.PutURLs(items(), timeout=120)
        # No ack read: the server stops reading once 256 items wait for
        # their acks and its acks fill the client's window; HTTP/2 flow
        # control then stops the client's sends.
        time.sleep(3)
        held = pulled[0]
        time.sleep(1)
        self.assertEqual(pulled[0], held)  # held, not just slow
        self.assertLess(held, total // 2)
        # Reading the acks lets the stream go on to its end, every item
        # stored and acked in order.
        acks = [(a.ID, a.status) for a in call]
        self.assertEqual(acks, [(u, pb.AckMessage.OK) for u in urls])
        self.assertEqual(self.stub.CountURLs(pb.CountUrlParams(),
                                             timeout=30).value, total)

    def test_oversized_messages_and_items(self):
        self.start()
        # A message over gRPC's 4 MB limit ends that call only.
        huge = discovered("https://example.com/huge",
                          metadata={"k": ["x" * (5 << 20)]})
        with self.assertRaises(grpc.RpcError) as caught:
            list(self.stub.PutURLs(iter([huge]), timeout=30))
        self.assertEqual(caught.exception.code(),
                         grpc.StatusCode.RESOURCE_EXHAUSTED)
        # Items too large for frontierd: SKIPPED, the others stored.
        acks = self.put([
            discovered("https://example.com/" + "a" * 9000, item_id="long"),
            discovered("https://example.com/data",
                       metadata={"k": ["v" * (70 << 10)]}, item_id="data"),
            discovered("https://example.com/fine", item_id="fine")])
        self.assertEqual(acks, [("long", pb.AckMessage.SKIPPED),
                                ("data", pb.AckMessage.SKIPPED),
                                ("fine", pb.AckMessage.OK)])
        self.assertEqual([u.url for u in self.get()],
                         ["https://example.com/fine"])

    def test_delete_crawl_of_many_urls_while_serving(self):
        server = self.start("--site-max-leases", "0")
        n = DELETE_CRAWL_URLS
        batches = (pb.DiscoveredBatch(ID=str(i), items=[
            pb.URLInfo(url=f"https://h{j % 997}.example/{j}", crawlID="big")
            for j in range(i, min(i + 100, n))]) for i in range(0, n, 100))
        acked = sum(len(a.statuses) for a in
                    self.stub.PutDiscovered(batches, timeout=600))
        self.assertEqual(acked, n)
        self.put([discovered(f"https://live.example/{i}")
                  for i in range(100)])
        # While the crawl goes, a RESP client and GetURLs keep being
        # answered: the slowest PING of the time is measured.
        stop = threading.Event()
        worst = [0.0]
        got = []

        def serve():
            for _ in range(100000):
                if stop.is_set():
                    return
                started = time.monotonic()
                self.resp.ping()
                worst[0] = max(worst[0], time.monotonic() - started)
                got.extend(self.get(max_urls_per_queue=1))

        t = threading.Thread(target=serve)
        t.start()
        time.sleep(0.2)
        deleted = self.stub.DeleteCrawl(pb.DeleteCrawlMessage(value="big"),
                                        timeout=600).value
        time.sleep(0.2)
        stop.set()
        t.join(timeout=30)
        self.assertFalse(t.is_alive())
        self.assertEqual(deleted, n)
        self.assertLess(worst[0], 1.0)
        self.assertGreater(len(got), 0)
        self.assertEqual(list(self.stub.ListCrawls(pb.Local(),
                                                   timeout=10).values),
                         ["DEFAULT"])
        # Gone for good: kill -9 and a restart do not bring it back.
        server.proc.kill()
        server.proc.wait(timeout=10)
        self.start()
        self.assertEqual(list(self.stub.ListCrawls(pb.Local(),
                                                   timeout=10).values),
                         ["DEFAULT"])
        self.assertEqual(self.stub.DeleteCrawl(
            pb.DeleteCrawlMessage(value="big"), timeout=10).value, 0)


if __name__ == "__main__":
    urlfrontier_stubs.run_tests([globals(), vars(base)])
