"""Requests as JSON, the URL's value in the frontier.

JSON and not pickle: every process of the crawl (and any worker with the
frontier's credentials) loads what the others stored, and unpickling
bytes from a shared server runs whatever code they name. JSON holds only
data; it is also readable by workers in other languages. A meta value that
JSON cannot hold (an object) makes the request unserialisable: the
scheduler logs it and does not schedule it rather than lose it silently.
Bytes, tuples and dicts with non-string keys (headers) are tagged.
"""
import base64
import json

from scrapy.utils.request import request_from_dict

# Meta keys the scheduler sets per lease, never stored.
PRIVATE_PREFIX = "_frontierd"


def _enc(value):
    if isinstance(value, bytes):
        return {"__b": base64.b64encode(value).decode("ascii")}
    if isinstance(value, tuple):
        return {"__t": [_enc(v) for v in value]}
    if isinstance(value, list):
        return [_enc(v) for v in value]
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value) and not (
                len(value) == 1 and next(iter(value)) in ("__b", "__t", "__d")):
            return {k: _enc(v) for k, v in value.items()}
        return {"__d": [[_enc(k), _enc(v)] for k, v in value.items()]}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"cannot store a {type(value).__name__} in the frontier")


def _dec(value):
    if isinstance(value, list):
        return [_dec(v) for v in value]
    if isinstance(value, dict):
        if len(value) == 1:
            key = next(iter(value))
            if key == "__b":
                return base64.b64decode(value["__b"])
            if key == "__t":
                return tuple(_dec(v) for v in value["__t"])
            if key == "__d":
                return {_dec(k): _dec(v) for k, v in value["__d"]}
        return {k: _dec(v) for k, v in value.items()}
    return value


def dumps_request(request, spider):
    """The request as JSON bytes (request_to_dict, callbacks by name)."""
    d = request.to_dict(spider=spider)
    d["meta"] = {k: v for k, v in d.get("meta", {}).items()
                 if not k.startswith(PRIVATE_PREFIX)}
    return json.dumps(_enc(d), separators=(",", ":")).encode("utf-8")


def loads_request(data, spider):
    return request_from_dict(_dec(json.loads(data)), spider=spider)
