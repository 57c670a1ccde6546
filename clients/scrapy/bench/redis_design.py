"""A Scrapy scheduler of scrapy-redis's design, written for the benchmark.

scrapy-redis itself is not packaged in Debian, so `scrapy-bench.py`
compares scrapy_frontierd with this minimal scheduler of the same design:
every request pickled (its `to_dict()`) into one Redis sorted set scored by
its negated priority, a Redis set of request fingerprints as the duplicate
filter, and a pop that takes the set's first member in one MULTI/EXEC
(ZRANGE 0 0 + ZREMRANGEBYRANK 0 0). Like scrapy-redis it has no leases (a
popped request lives only in the process that popped it), no politeness
across processes and no robots.txt sharing.

Settings: REDIS_DESIGN_URL (redis://host:port), REDIS_DESIGN_KEY (the key
prefix), REDIS_DESIGN_IDLE_TIMEOUT (seconds the queue must stay empty before
the spider may close, as scrapy-redis's idle time), REDIS_DESIGN_POLL
(seconds between pops when the queue is empty; the same nudge of the engine
as scrapy_frontierd's FRONTIERD_POLL_INTERVAL, so that neither waits for
the engine's 5 s heartbeat).
"""
import pickle
import time

import redis
from scrapy.utils.request import request_from_dict


class Scheduler:
    def __init__(self, crawler):
        s = crawler.settings
        self.crawler = crawler
        self.url = s.get("REDIS_DESIGN_URL", "redis://127.0.0.1:6379")
        prefix = s.get("REDIS_DESIGN_KEY", "bench")
        self.queue_key = prefix + ":requests"
        self.seen_key = prefix + ":dupefilter"
        self.idle_timeout = s.getfloat("REDIS_DESIGN_IDLE_TIMEOUT", 2.0)
        self.poll = s.getfloat("REDIS_DESIGN_POLL", 0.1)
        self.stats = crawler.stats
        self.spider = None
        self.redis = None
        self.empty_since = None

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def open(self, spider):
        self.spider = spider
        self.redis = redis.Redis.from_url(self.url)
        self.redis.ping()

    def close(self, reason):
        self.redis.close()

    def has_pending_requests(self):
        if self.redis.zcard(self.queue_key) > 0:
            self.empty_since = None
            return True
        now = time.monotonic()
        if self.empty_since is None:
            self.empty_since = now
        return now - self.empty_since < self.idle_timeout

    def enqueue_request(self, request):
        if not request.dont_filter:
            fp = self.crawler.request_fingerprinter.fingerprint(request).hex()
            if self.redis.sadd(self.seen_key, fp) == 0:
                self.stats.inc_value("redis_design/duplicates")
                return False
        data = pickle.dumps(request.to_dict(spider=self.spider), protocol=-1)
        self.redis.zadd(self.queue_key, {data: -request.priority})
        self.stats.inc_value("redis_design/enqueued")
        return True

    def next_request(self):
        pipe = self.redis.pipeline()
        pipe.multi()
        pipe.zrange(self.queue_key, 0, 0).zremrangebyrank(self.queue_key, 0, 0)
        results, _ = pipe.execute()
        if results:
            return request_from_dict(pickle.loads(results[0]),
                                     spider=self.spider)
        slot = getattr(self.crawler.engine, "slot", None)
        if slot is not None:
            slot.nextcall.schedule(self.poll)
        return None
