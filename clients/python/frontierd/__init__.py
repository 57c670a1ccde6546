"""frontierd: a Python client for the frontierd URL frontier, on redis-py.

    import frontierd
    f = frontierd.Frontier.from_url("redis://127.0.0.1:7379")
    f.add("https://example.com/", data=b"seed")
    for url, data in f.pop(count=10, withdata=True):
        ...
        f.confirm(url, status=200, fetch_ms=120)

One method per command (docs/commands.md), with named, typed results.
Errors the server replies become exceptions named after frontierd's error
prefixes (FrontierdError, with InvalidURL, SyntaxError_, NoAuth, ...
below); connection failures stay redis-py's (redis.ConnectionError).
"""
from .client import (Frontier, Pipeline, FrontierdError, ArgumentError, InvalidURL,
                     InvalidRef, InvalidSite, UnknownPartition, NoAuth,
                     WrongPass, NoPerm, Misconf, StorageError, ProtocolError,
                     CommandSyntaxError, DataTooLong, ReadOnlyReplica,
                     ReplicaRead, NoQuorum, NoReplicas, TryAgain)

__all__ = [
    "Frontier", "Pipeline", "FrontierdError", "ArgumentError", "InvalidURL", "InvalidRef",
    "InvalidSite", "UnknownPartition", "NoAuth", "WrongPass", "NoPerm",
    "Misconf", "StorageError", "ProtocolError", "CommandSyntaxError",
    "DataTooLong", "ReadOnlyReplica", "ReplicaRead", "NoQuorum", "NoReplicas",
    "TryAgain"
]
__version__ = "0.1.0"
