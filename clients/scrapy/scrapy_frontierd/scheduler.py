"""The scheduler: Scrapy's requests through a frontierd frontier.

Every request the spider yields is ADDed to the frontier with the whole
request as the URL's value (serialize.py); next_request POPs leased URLs
WITHDATA and rebuilds their requests; signals report each lease back:
CONFIRM (a response), FAIL (a 429 or 5xx, a download error, a request a
middleware ignored), RELEASE (a request dropped, the spider closing).
ADDs and CONFIRMs are queued and flushed together in one pipeline (one
pass, one fsync on the server), a response's CONFIRM only once its callback
is done and after the ADDs of the requests it yielded (_flush).
Each popped request carries a lease token in its meta; Scrapy copies meta
into the requests its middlewares derive (redirects, retries), which is
how a redirect stays on its lease, and a spider's child request that
copies response.meta is told apart: its parent's lease is then resolved.
"""
import collections
import logging
import time
import uuid
from urllib.parse import urldefrag, urlsplit

from scrapy import Request, signals
from scrapy.exceptions import IgnoreRequest

import frontierd

from .serialize import PRIVATE_PREFIX, dumps_request, loads_request

logger = logging.getLogger(__name__)

TOKEN = PRIVATE_PREFIX + "_token"
KEY = PRIVATE_PREFIX + "_key"
MARKER = "frontierd-req"  # the query parameter of requests the URL cannot name


class Scheduler:
    """SCHEDULER = "scrapy_frontierd.Scheduler" (docs/scrapy.md)."""

    def __init__(self, crawler):
        self.crawler = crawler
        s = crawler.settings
        self.url = s.get("FRONTIERD_URL", "redis://127.0.0.1:7379")
        # Every connection of the scheduler works in this crawl (CRAWL
        # name); unset: the server's DEFAULT crawl.
        self.crawl = s.get("FRONTIERD_CRAWL") or None
        self.partition = s.get("FRONTIERD_PARTITION") or None
        self.lease = s.getfloat("FRONTIERD_LEASE", 0) or None
        self.pop_count = s.getint(
            "FRONTIERD_POP_COUNT", min(16, s.getint("CONCURRENT_REQUESTS", 16)))
        self.poll_interval = s.getfloat("FRONTIERD_POLL_INTERVAL", 0.1)
        self.retry_delay = s.getfloat("FRONTIERD_RETRY_DELAY", 60)
        self.idle_timeout = s.getfloat("FRONTIERD_IDLE_TIMEOUT", 0)
        self.max_idle = s.getfloat("FRONTIERD_MAX_IDLE", 0)
        self.flush_size = max(1, s.getint("FRONTIERD_FLUSH_SIZE", 64))
        self.stats = crawler.stats
        self.frontier = None
        self.spider = None
        self.buffer = collections.deque()
        self.leases = {}  # token -> {"key", "popped", "robots"}
        self.failed = collections.OrderedDict()  # tokens FAILed, bounded
        self.downloaded = set()  # id() of requests a response came for
        # Written at the next flush, in one pipeline: the requests to ADD,
        # in the order the spider yielded them, then the CONFIRMs of the
        # responses whose callbacks have finished (so that a page's links
        # are never stored after its CONFIRM: a process that dies between
        # the two would lose them).
        self.adds = []      # (key, ref, priority, data)
        self.confirms = []  # (request, key, confirm kwargs, stat name)
        self.next_poll = 0.0
        self.last_pop = time.monotonic()
        self.empty_since = None
        self.cached = (0.0, None)

    @classmethod
    def from_crawler(cls, crawler):
        self = cls(crawler)
        crawler.signals.connect(self._response_downloaded,
                                signals.response_downloaded)
        crawler.signals.connect(self._left_downloader,
                                signals.request_left_downloader)
        crawler.signals.connect(self._response_received,
                                signals.response_received)
        crawler.signals.connect(self._request_dropped, signals.request_dropped)
        return self

    # ---- BaseScheduler ------------------------------------------------
    def open(self, spider):
        self.spider = spider
        self.frontier = frontierd.Frontier.from_url(self.url,
                                                    crawl=self.crawl,
                                                    socket_timeout=30)
        self.frontier.ping()
        logger.info("frontierd scheduler on %s", self._safe_url())

    def close(self, reason):
        try:
            self._flush(force=True)
        except Exception:  # the leases expire; the links are lost
            logger.warning("frontierd: final flush failed", exc_info=True)
        held = list(self.leases.items())
        released = 0
        for token, lease in held:
            try:
                if self.frontier.release(lease["key"]):
                    released += 1
            except Exception:  # the lease expires anyway
                logger.warning("RELEASE %s failed", lease["key"], exc_info=True)
        self.leases.clear()
        self.buffer.clear()
        self._inc("released", released)
        self._frontier_stats(force=True)
        if released:
            logger.info("frontierd: released %d leases at close", released)
        self.frontier.close()

    def has_pending_requests(self):
        self._flush()
        if self.buffer or self.confirms:
            return True
        now = time.monotonic()
        counts = self._frontier_stats()
        if counts is None:
            return True
        remaining = counts["queued"] + counts["leased"] + counts["scheduled"]
        if remaining == 0:
            if self.empty_since is None:
                self.empty_since = now
            return now - self.empty_since < self.idle_timeout
        self.empty_since = None
        if self.max_idle and now - self.last_pop > self.max_idle:
            logger.info("frontierd: nothing popped for %.0f s, closing with "
                        "%d URLs still to come", self.max_idle, remaining)
            return False
        return True

    def enqueue_request(self, request):
        token = request.meta.get(TOKEN)
        if token is not None and token in self.leases:
            # A redirect or retry of a request on a lease we hold.
            self.buffer.append(request)
            return True
        if token is not None and token in self.failed:
            # A retry of a request already FAILed: the frontier retries it.
            self._inc("retry_to_frontier")
            return False
        key = self._key(request)
        ref = request.meta.get("frontierd_ref")
        if ref is None:
            referer = request.headers.get("Referer")
            ref = referer.decode("latin-1") if referer else None
        priority = min(9999, max(0, 5000 - int(request.priority)))
        if isinstance(request.errback, _Errback):  # derived from a popped one
            request = request.replace(errback=request.errback.original)
        try:
            data = dumps_request(request, self.spider)
        except (TypeError, ValueError) as exc:
            logger.error("frontierd: cannot store %s: %s", request, exc)
            self._inc("unserialisable")
            return False
        self.adds.append((key, ref, priority, data))
        if len(self.adds) >= self.flush_size:
            self._flush()
        # Whether it was new is known at the flush (the stats count it);
        # like scrapy-redis, a duplicate is not reported as dropped.
        return True

    def next_request(self):
        self._flush()
        if not self.buffer and time.monotonic() >= self.next_poll:
            self._pop()
        if self.buffer:
            return self.buffer.popleft()
        # Nothing ready: ask the engine to call again soon (its own heartbeat
        # is 5 s).
        slot = getattr(self.crawler.engine, "slot", None)
        if slot is not None:
            slot.nextcall.schedule(self.poll_interval)
        return None

    # ---- popping ---------------------------------------------------------
    def _pop(self):
        popped = self.frontier.pop(count=self.pop_count, lease=self.lease,
                                   partition=self.partition, withdata=True)
        if not popped:
            self.next_poll = time.monotonic() + self.poll_interval
            return
        self.last_pop = time.monotonic()
        self._inc("popped", len(popped))
        for key, data in popped:
            token = uuid.uuid4().hex
            robots = data is None and _is_robots(key)
            try:
                request = self._rebuild(key, data, robots)
            except Exception as exc:
                logger.error("frontierd: cannot rebuild %s: %s", key, exc)
                self.frontier.fail(key, delay=self.retry_delay)
                self._inc("unloadable")
                continue
            request.meta[TOKEN] = token
            request.meta[KEY] = key
            request.errback = _Errback(self, request.errback)
            self.leases[token] = {"key": key, "popped": time.monotonic(),
                                  "robots": robots}
            self.buffer.append(request)

    def _rebuild(self, key, data, robots):
        if robots:
            # Fetched for the frontier, which reads the rules: no spider
            # callback sees it, no retry hammers a failing site.
            return Request(key, callback=_no_output, dont_filter=True,
                           priority=1000,
                           meta={"handle_httpstatus_all": True,
                                 "dont_retry": True,
                                 "dont_obey_robotstxt": True})
        if data is None:  # added by something else (redis-cli, a seed list)
            return Request(key, dont_filter=True)
        return loads_request(data, self.spider)

    def _key(self, request):
        """The URL the frontier knows the request by: its URL, or, for a
        request a URL does not name (dont_filter, a body), the URL with a
        query parameter that the frontier keeps (it drops fragments)."""
        url = urldefrag(request.url)[0]
        if request.dont_filter:
            tag = uuid.uuid4().hex
        elif request.method not in ("GET", "HEAD") or request.body:
            tag = self.crawler.request_fingerprinter.fingerprint(request).hex()
        else:
            return url
        return f"{url}{'&' if '?' in url else '?'}{MARKER}={tag}"

    # ---- lease reports -----------------------------------------------------
    def _resolve(self, token):
        lease = self.leases.pop(token, None)
        return lease

    def _fail(self, token, **kwargs):
        lease = self._resolve(token)
        if lease is None:
            return
        self.failed[token] = True
        while len(self.failed) > 100000:
            self.failed.popitem(last=False)
        try:
            self.frontier.fail(lease["key"], **kwargs)
            self._inc("failed")
        except frontierd.FrontierdError:
            logger.warning("FAIL %s refused", lease["key"], exc_info=True)

    def _response_downloaded(self, response, request, spider):
        self.downloaded.add(id(request))
        token = request.meta.get(TOKEN)
        lease = self.leases.get(token)
        if lease is None or lease["robots"]:
            return
        status = response.status
        if status == 429 or status >= 500:
            retry_after = response.headers.get("Retry-After")
            kwargs = {"status": status}
            if retry_after:
                kwargs["retry_after"] = retry_after.decode("latin-1")
            if status not in (429, 503):
                kwargs["delay"] = self.retry_delay
            self._fail(token, **kwargs)

    def _left_downloader(self, request, spider):
        if id(request) in self.downloaded:
            self.downloaded.discard(id(request))
            return
        token = request.meta.get(TOKEN)
        if token in self.leases:  # no response: a download error
            self._fail(token, delay=self.retry_delay)

    def _response_received(self, response, request, spider):
        token = request.meta.get(TOKEN)
        lease = self._resolve(token)
        if lease is None:
            return
        if lease["robots"]:
            kwargs = {"status": response.status, "body": response.body}
            self.confirms.append((request, lease["key"], kwargs,
                                  "robots_confirmed"))
            return
        latency = request.meta.get("download_latency")
        if latency is None:
            latency = time.monotonic() - lease["popped"]
        kwargs = {"status": response.status, "fetch_ms": latency * 1000}
        self.confirms.append((request, lease["key"], kwargs, "confirmed"))

    # ---- the flush -----------------------------------------------------------
    def _scraping(self):
        """The requests whose responses Scrapy's scraper holds: queued for
        their callback or in it (Scrapy 2.8's Scraper.slot)."""
        slot = getattr(getattr(self.crawler.engine, "scraper", None), "slot",
                       None)
        if slot is None:
            return set()
        busy = set(slot.active)
        busy.update(entry[1] for entry in slot.queue)
        return busy

    def _flush(self, force=False):
        """Sends the queued ADDs, then the CONFIRMs of responses whose
        callbacks are done (all of them with force), in one pipeline:
        frontierd runs it in one pass, one transaction and one fsync."""
        ready = []
        if self.confirms:
            busy = set() if force else self._scraping()
            waiting = []
            for entry in self.confirms:
                (waiting if entry[0] in busy else ready).append(entry)
            self.confirms = waiting
        adds, self.adds = self.adds, []
        if not adds and not ready:
            return
        pipe = self.frontier.pipeline()
        for key, ref, priority, data in adds:
            pipe.add(key, ref, priority=priority, data=data)
        for _, key, kwargs, _ in ready:
            pipe.confirm(key, **kwargs)
        results = pipe.execute()
        no_ref = []
        for (key, ref, priority, data), reply in zip(adds, results):
            if isinstance(reply, frontierd.InvalidRef):
                no_ref.append((key, priority, data))
            elif isinstance(reply, frontierd.FrontierdError):
                logger.error("frontierd: refused %s: %s", key, reply)
                self._inc("refused")
            else:
                self._inc({1: "added", 0: "duplicates"}.get(reply, "refused"))
        for (_, key, _, name), reply in zip(ready, results[len(adds):]):
            if isinstance(reply, frontierd.FrontierdError):
                logger.warning("CONFIRM %s refused: %s", key, reply)
            else:
                self._inc(name)
        if no_ref:  # a Referer that is not a URL: added without a ref
            pipe = self.frontier.pipeline()
            for key, priority, data in no_ref:
                pipe.add(key, priority=priority, data=data)
            for (key, _, _), reply in zip(no_ref, pipe.execute()):
                if isinstance(reply, frontierd.FrontierdError):
                    logger.error("frontierd: refused %s: %s", key, reply)
                    self._inc("refused")
                else:
                    self._inc({1: "added", 0: "duplicates"}.get(
                        reply, "refused"))

    def _request_dropped(self, request, spider):
        lease = self._resolve(request.meta.get(TOKEN))
        if lease is not None:
            self.frontier.release(lease["key"])
            self._inc("released")

    def _errback_failed(self, request, failure):
        """A request on a lease ended in an error with no response: an
        IgnoreRequest of a downloader middleware, an exception. FAIL (an
        attempt counted, so a request every process ignores dies after
        max-attempts instead of going round forever)."""
        token = request.meta.get(TOKEN)
        if token in self.leases:
            if failure.check(IgnoreRequest):
                self._inc("ignored")
            self._fail(token, delay=self.retry_delay)

    # ---- stats ---------------------------------------------------------------
    def _inc(self, name, count=1):
        if self.stats is not None and count:
            self.stats.inc_value("frontierd/" + name, count)

    def _frontier_stats(self, force=False):
        at, counts = self.cached
        now = time.monotonic()
        if not force and counts is not None and now - at < self.poll_interval:
            return counts
        try:
            counts = self.frontier.stats()
        except Exception:
            logger.warning("frontierd: STATS failed", exc_info=True)
            return None
        self.cached = (now, counts)
        if self.stats is not None:
            for name, value in counts.items():
                self.stats.set_value("frontierd/server/" + name, value)
        return counts

    def _safe_url(self):
        parts = urlsplit(self.url)
        host = parts.hostname or ""
        return f"{parts.scheme}://{host}:{parts.port or 7379}"


def _is_robots(url):
    parts = urlsplit(url)
    return parts.path == "/robots.txt" and not parts.query


def _no_output(response):
    return []


class _Errback:
    """The request's errback, after the scheduler has seen the failure."""

    def __init__(self, scheduler, original):
        self.scheduler = scheduler
        self.original = original

    def __call__(self, failure):
        request = getattr(failure, "request", None)
        if request is not None:
            self.scheduler._errback_failed(request, failure)
        if self.original is not None:
            return self.original(failure)
        return failure
