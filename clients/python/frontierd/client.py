"""The client: one method per frontierd command, on a redis.Redis."""
import redis
import redis.sentinel
import redis.exceptions as rex


class FrontierdError(rex.ResponseError):
    """An error reply from frontierd. `prefix` is the error's first word as
    the server sent it (ERR, NOAUTH, NOPERM, MISCONF, ...), `message` the
    whole text."""

    def __init__(self, message, prefix="ERR"):
        super().__init__(message)
        self.prefix = prefix
        self.message = message


class ArgumentError(FrontierdError):
    """ERR for a bad argument: a value out of range, a wrong count."""


class CommandSyntaxError(ArgumentError):
    """ERR syntax error ..."""


class InvalidURL(ArgumentError):
    """ERR invalid URL: <reason>"""


class InvalidRef(ArgumentError):
    """ERR invalid ref URL: <reason>"""


class InvalidSite(ArgumentError):
    """ERR invalid site ..."""


class UnknownPartition(ArgumentError):
    """ERR unknown partition '<name>'"""


class DataTooLong(ArgumentError):
    """ERR DATA value of <n> bytes is longer than max-url-data"""


class StorageError(FrontierdError):
    """ERR storage error: <what> (Berkeley DB failed; nothing changed)"""


class ProtocolError(FrontierdError):
    """ERR Protocol error: <what>"""


class NoAuth(FrontierdError):
    """NOAUTH Authentication required."""


class WrongPass(FrontierdError):
    """WRONGPASS invalid username-password pair ..."""


class NoPerm(FrontierdError):
    """NOPERM User <name> has no permissions ..."""


class Misconf(FrontierdError):
    """MISCONF ... not accepting writes (a full disk); retry later."""


class ReadOnlyReplica(FrontierdError):
    """READONLY: a write reached a replica of a replication group (nothing
    was stored); write to the master (Frontier.from_sentinels finds it)."""


class ReplicaRead(FrontierdError):
    """REPLICA ...: a read reached a replica on a connection that did not
    send READONLY; the message names the master."""


class NoQuorum(FrontierdError):
    """NOQUORUM: the write was not acknowledged by a quorum in time; it may
    or may not survive a failover, and retrying it is safe."""


class TryAgain(FrontierdError):
    """TRYAGAIN: the replication group was busy (a site joining or
    leaving) and aborted the command's pass; nothing was stored, and
    retrying it is safe."""


class NoReplicas(FrontierdError):
    """NOREPLICAS: the master reaches too few replicas; nothing was
    written."""


# ERR messages, by their start, most specific first.
_ERR_CLASSES = [
    ("invalid URL", InvalidURL),
    ("invalid ref URL", InvalidRef),
    ("invalid site", InvalidSite),
    ("unknown partition", UnknownPartition),
    ("syntax error", CommandSyntaxError),
    ("storage error", StorageError),
    ("Protocol error", ProtocolError),
    ("DATA value of", DataTooLong),
]
_PREFIX_CLASSES = {"NOAUTH": NoAuth, "WRONGPASS": WrongPass,
                   "NOPERM": NoPerm, "MISCONF": Misconf,
                   "NOQUORUM": NoQuorum, "NOREPLICAS": NoReplicas,
                   "TRYAGAIN": TryAgain,
                   "REPLICA": ReplicaRead}


def _error(exc):
    """The FrontierdError for a redis-py error (which strips ERR from the
    message and raises NOAUTH and WRONGPASS as its own classes)."""
    text = str(exc)
    first = text.split(" ", 1)[0]
    if first in _PREFIX_CLASSES:
        return _PREFIX_CLASSES[first](text, first)
    if isinstance(exc, rex.AuthenticationWrongNumberOfArgsError):
        return ArgumentError(text)
    if isinstance(exc, (rex.AuthenticationError)):
        if "required" in text.lower():
            return NoAuth(text, "NOAUTH")
        return WrongPass(text, "WRONGPASS")
    if isinstance(exc, rex.NoPermissionError):
        return NoPerm(text, "NOPERM")
    if text.startswith("Errors writing"):
        return Misconf(text, "MISCONF")
    if isinstance(exc, rex.ReadOnlyError):
        return ReadOnlyReplica(text, "READONLY")
    if text.startswith("ERR "):
        text = text[4:]
    for start, cls in _ERR_CLASSES:
        if text.startswith(start):
            return cls(text)
    return ArgumentError(text)


def _s(value):
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _num(value):
    """A bulk string number: int when it has no fraction, else float."""
    text = _s(value)
    if text is None or text == "":
        return None
    try:
        return int(text)
    except ValueError:
        return float(text)


def _pairs(reply):
    return {_s(reply[i]).replace("-", "_"): reply[i + 1]
            for i in range(0, len(reply), 2)}


def _item(entry, withdata):
    if withdata:
        return (_s(entry[0]), entry[1])
    return _s(entry)


def _add_args(url, ref, priority, recrawl, data, replace):
    args = ["ADD", url]
    if ref is not None:
        args.append(ref)
    if priority is not None:
        args += ["PRIORITY", int(priority)]
    if recrawl is not None:
        args += ["RECRAWL", recrawl]
    if data is not None:
        args += ["DATA", data]
    if replace:
        args.append("REPLACE")
    return args


def _confirm_args(url, status, fetch_ms, changed, body):
    args = ["CONFIRM", url]
    if status is not None:
        args += ["STATUS", int(status)]
    if fetch_ms is not None:
        args += ["FETCH-MS", max(0, int(fetch_ms))]
    if changed is not None:
        args.append("CHANGED" if changed else "UNCHANGED")
    if body is not None:
        args += ["BODY", body]
    return args


def _fail_args(url, delay, status, retry_after):
    args = ["FAIL", url]
    if delay is not None:
        args += ["DELAY", delay]
    if status is not None:
        args += ["STATUS", int(status)]
    if retry_after is not None:
        args += ["RETRY-AFTER", retry_after]
    return args


def _release_args(url, delay):
    args = ["RELEASE", url]
    if delay is not None:
        args += ["DELAY", delay]
    return args


def _is_one(reply):
    return reply == 1


def _same(reply):
    return reply


def _in_crawl(connection_class, crawl):
    """`connection_class` that selects `crawl` (CRAWL name) on every
    connection it opens, after AUTH, as redis-py's own SELECT of `db`: a
    pool's connections all work in the crawl, reconnects included."""

    class CrawlConnection(connection_class):
        def on_connect(self):
            super().on_connect()
            self.send_command("CRAWL", crawl)
            try:
                reply = self.read_response()
            except rex.ResponseError as exc:
                self.disconnect()
                raise _error(exc) from exc
            if reply not in (b"OK", "OK"):
                self.disconnect()
                raise rex.ConnectionError(f"CRAWL {crawl}: {reply!r}")

    return CrawlConnection


class Frontier:
    """A connection (pool) to one frontierd.

    Frontier.from_url("redis://[user:password@]host:port") or
    "rediss://..." for TLS, with redis-py's from_url options (ssl_ca_certs,
    socket_timeout, ...); Frontier(host=..., port=..., password=...) takes
    redis.Redis's arguments; Frontier(client=r) wraps a redis.Redis you
    made (it must not decode responses: values are bytes). crawl="name"
    makes every connection work in that crawl (CRAWL name); None leaves
    the server's default crawl.
    """

    def __init__(self, client=None, *, crawl=None, **kwargs):
        if client is None:
            kwargs["decode_responses"] = False
            client = redis.Redis(**kwargs)
        if crawl is not None:
            pool = client.connection_pool
            pool.disconnect()  # connections made so far are in another
            pool.connection_class = _in_crawl(pool.connection_class, crawl)
        self.redis = client
        self.crawl_name = crawl

    @classmethod
    def from_url(cls, url, *, crawl=None, **kwargs):
        kwargs["decode_responses"] = False
        return cls(client=redis.Redis.from_url(url, **kwargs), crawl=crawl)

    @classmethod
    def from_sentinels(cls, sentinels, name="frontierd", *, crawl=None,
                       sentinel_kwargs=None, **kwargs):
        """The master of a replication group (docs/replication.md,
        "Finding the master"): `sentinels` are the group's sites as
        (host, port) pairs, each of which answers Sentinel's discovery
        commands; `name` is the group's repl-name. Connections go to the
        master the sites name, and after a failover the next connection
        goes to the new one: a command in flight when the master died
        raises redis.ConnectionError (or NoQuorum), and the caller
        re-issues it. kwargs are redis.Redis's (password, socket_timeout,
        ...); sentinel_kwargs those for the connections that ask the sites
        (their password too, if the sites require one)."""
        kwargs["decode_responses"] = False
        if sentinel_kwargs is None:
            sentinel_kwargs = {k: kwargs[k] for k in
                               ("username", "password", "socket_timeout")
                               if k in kwargs}
        sentinel = redis.sentinel.Sentinel(list(sentinels),
                                           sentinel_kwargs=sentinel_kwargs)
        return cls(client=sentinel.master_for(name, **kwargs), crawl=crawl)

    def close(self):
        self.redis.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def execute(self, *args):
        """Any command; error replies raised as FrontierdError."""
        try:
            return self.redis.execute_command(*args)
        except rex.ConnectionError as exc:
            if isinstance(exc, rex.AuthenticationError):
                raise _error(exc) from exc
            raise
        except rex.ResponseError as exc:
            raise _error(exc) from exc

    # ---- frontier -------------------------------------------------------
    def add(self, url, ref=None, *, priority=None, recrawl=None, data=None,
            replace=False):
        """ADD: 1 new, 0 known, -1 refused, -2 out of scope."""
        return self.execute(*_add_args(url, ref, priority, recrawl, data,
                                       replace))

    def madd(self, ref, urls):
        """MADD: urls is a list of URLs, or of (url, data) pairs, or a dict
        url -> data. Returns one element per url: the integer ADD would
        reply, or an InvalidURL instance (not raised) for a bad url."""
        ref = "" if ref is None else ref
        if isinstance(urls, dict):
            urls = list(urls.items())
        urls = list(urls)
        if not urls:
            return []
        if isinstance(urls[0], (tuple, list)):
            args = ["MADD", ref, "DATA"]
            for url, data in urls:
                args += [url, b"" if data is None else data]
        else:
            args = ["MADD", ref, *urls]
        reply = self.execute(*args)
        return [_error(r) if isinstance(r, Exception) else r for r in reply]

    def _pop_args(self, count, lease, partition, withdata):
        args = []
        if count is not None:
            args += ["COUNT", int(count)]
        if lease is not None:
            args += ["LEASE", lease]
        if partition is not None:
            args += ["PARTITION", partition]
        if withdata:
            args.append("WITHDATA")
        return args

    def _pop_reply(self, reply, count, withdata):
        if count is None:
            return None if reply is None else _item(reply, withdata)
        return [_item(e, withdata) for e in (reply or [])]

    def pop(self, *, count=None, lease=None, partition=None, withdata=False):
        """POP. Without count: a URL (str) or None; with count: a list.
        With withdata, each URL is a (url, data) pair, data bytes or None."""
        reply = self.execute(
            "POP", *self._pop_args(count, lease, partition, withdata))
        return self._pop_reply(reply, count, withdata)

    def bpop(self, timeout, *, count=None, lease=None, partition=None,
             withdata=False):
        """BPOP: as pop, waiting up to timeout seconds (0: forever)."""
        reply = self.execute(
            "BPOP", timeout, *self._pop_args(count, lease, partition, withdata))
        return self._pop_reply(reply, count, withdata)

    def confirm(self, url, *, status=None, fetch_ms=None, changed=None,
                body=None):
        """CONFIRM: True if confirmed, False if unknown or already done.
        changed: True (CHANGED), False (UNCHANGED) or None; body: the
        robots.txt bytes, for a robots.txt URL only."""
        return self.execute(
            *_confirm_args(url, status, fetch_ms, changed, body)) == 1

    def fail(self, url, *, delay=None, status=None, retry_after=None):
        """FAIL: True if the URL was leased. retry_after: the Retry-After
        header as sent (seconds or an HTTP-date)."""
        return self.execute(*_fail_args(url, delay, status, retry_after)) == 1

    def release(self, url, *, delay=None):
        """RELEASE: True if the URL was leased (no attempt counted)."""
        return self.execute(*_release_args(url, delay)) == 1

    def pipeline(self):
        """A Pipeline: commands queued here and sent together."""
        return Pipeline(self)

    def extend(self, url, secs):
        """EXTEND: True if the URL is leased and its deadline moved."""
        return self.execute("EXTEND", url, secs) == 1

    def recrawl(self, url, secs):
        return self.execute("RECRAWL", url, secs)

    def seen(self, url):
        return self.execute("SEEN", url) == 1

    def mseen(self, urls):
        """MSEEN: a bool per url, or an InvalidURL instance."""
        return [_error(r) if isinstance(r, Exception) else r == 1
                for r in self.execute("MSEEN", *urls)]

    def urlinfo(self, url):
        """URLINFO: None if unknown, else a dict: url, state (str); depth,
        priority, attempts, backlinks (int); recrawl, due, created (float
        seconds; due and created Unix time, 0 if none); data (bytes|None)."""
        reply = self.execute("URLINFO", url)
        if reply is None:
            return None
        raw = _pairs(reply)
        info = {}
        for key, value in raw.items():
            if key in ("url", "state"):
                info[key] = _s(value)
            elif key in ("depth", "priority", "attempts", "backlinks"):
                info[key] = int(value)
            elif key in ("recrawl", "due", "created"):
                info[key] = float(value)
            elif key == "data":
                info[key] = value
            else:
                info[key] = _s(value)
        return info

    def stats(self):
        """STATS: a dict of ints (urls, queued, leased, ... scope_removed)."""
        return {k: int(v) for k, v in _pairs(self.execute("STATS")).items()}

    def hint(self, partition=None):
        """HINT: {advice (str), n, ready_sites, leased, waiting (int)}."""
        args = ["HINT"] + (["PARTITION", partition] if partition else [])
        fields = _pairs(self.execute(*args))
        return {"advice": _s(fields["advice"]), "n": int(fields["n"]),
                "ready_sites": int(fields["ready_sites"]),
                "leased": int(fields["leased"]),
                "waiting": int(fields["waiting"])}

    # ---- crawls ------------------------------------------------------------
    def crawls(self):
        """CRAWL LIST: the crawls' names (DEFAULT first)."""
        return [_s(n) for n in self.execute("CRAWL", "LIST")]

    def crawl_info(self, name):
        """CRAWL INFO: STATS's dict for crawl `name`."""
        fields = _pairs(self.execute("CRAWL", "INFO", name))
        return {k: int(v) for k, v in fields.items() if k != "name"}

    def crawl_delete(self, name):
        """CRAWL DELETE (admins): True if the crawl existed."""
        return self.execute("CRAWL", "DELETE", name) == 1

    # ---- sites and robots ---------------------------------------------------
    def site_info(self, site):
        """SITE INFO: None if unknown, else a dict: site, delay_source,
        partition (str); queued ... excluded, backoffs, max_urls (int);
        delay, next, blocked_until (float seconds, 0 if none)."""
        reply = self.execute("SITE", "INFO", site)
        if reply is None:
            return None
        info = {}
        for key, value in _pairs(reply).items():
            if key in ("site", "delay_source", "partition"):
                info[key] = _s(value)
            elif key in ("delay", "next", "blocked_until"):
                info[key] = float(value)
            else:
                info[key] = _num(value)
        return info

    def robots_get(self, origin):
        """ROBOTS GET: None if unknown, else a dict: origin, state (str);
        status, fetched, expires, groups (int); crawl_delay (float|None);
        rules, sitemaps (lists of str)."""
        reply = self.execute("ROBOTS", "GET", origin)
        if reply is None:
            return None
        info = {}
        for key, value in _pairs(reply).items():
            if key in ("origin", "state"):
                info[key] = _s(value)
            elif key in ("rules", "sitemaps"):
                info[key] = [_s(v) for v in value]
            elif key == "crawl_delay":
                info[key] = None if _s(value) == "" else float(value)
            else:
                info[key] = _num(value)
        return info

    def robots_check(self, url):
        """ROBOTS CHECK: True allowed, False disallowed, None no rules."""
        reply = self.execute("ROBOTS", "CHECK", url)
        return None if reply is None else reply == 1

    def robots_set(self, origin, status, body=b""):
        return self.execute("ROBOTS", "SET", origin, int(status), body)

    def delay(self, site, secs):
        return self.execute("SITE", "DELAY", site, secs)

    def site_block(self, site, secs):
        return self.execute("SITE", "BLOCK", site, secs)

    def ping(self):
        return self.execute("PING")


class Pipeline:
    """Commands queued, then sent together in one round trip (redis-py's
    pipeline without MULTI). frontierd runs the commands of one read in one
    pass of its event loop, which commits them together (passes commit in
    order): one transaction and one fsync for the lot, in the order queued, so an ADD of a page's
    links queued before the page's CONFIRM is durable no later than it.

    add, confirm, fail and release take the arguments of Frontier's methods
    and queue the command; execute() sends them and returns one result per
    command, as Frontier's method would return it, or a FrontierdError
    instance (not raised) for a command the server refused. A connection
    failure raises (redis.ConnectionError); then none, some or all of the
    commands may have run.
    """

    def __init__(self, frontier):
        self._pipe = frontier.redis.pipeline(transaction=False)
        self._convert = []

    def __len__(self):
        return len(self._convert)

    def _queue(self, args, convert):
        self._pipe.execute_command(*args)
        self._convert.append(convert)
        return self

    def add(self, url, ref=None, *, priority=None, recrawl=None, data=None,
            replace=False):
        return self._queue(
            _add_args(url, ref, priority, recrawl, data, replace), _same)

    def confirm(self, url, *, status=None, fetch_ms=None, changed=None,
                body=None):
        return self._queue(
            _confirm_args(url, status, fetch_ms, changed, body), _is_one)

    def fail(self, url, *, delay=None, status=None, retry_after=None):
        return self._queue(_fail_args(url, delay, status, retry_after),
                           _is_one)

    def release(self, url, *, delay=None):
        return self._queue(_release_args(url, delay), _is_one)

    def execute(self):
        convert, self._convert = self._convert, []
        if not convert:
            return []
        replies = self._pipe.execute(raise_on_error=False)
        return [_error(r) if isinstance(r, Exception) else c(r)
                for r, c in zip(replies, convert)]
