"""The frontierd of the benchmark scripts (bench-*.py): started from the
given binary on a free loopback port in a temporary directory, with
`--fsync no` (loading is not what they measure) and no HTTP listener;
stopped and its directory removed when the `with` block ends.

    with frontierd(binary, "--politeness-delay", "0") as (proc, r):
        r.execute_command("ADD", "http://example.com/")

`proc` is the server's process (for its pid), `r` a redis-py client of it.
"""
import contextlib
import shutil
import socket
import subprocess
import tempfile
import time

import redis


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@contextlib.contextmanager
def frontierd(binary, *args, decode_responses=False):
    tmp = tempfile.mkdtemp(prefix="bench_frontierd_")
    port = free_port()
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir",
         tmp + "/data", "--logfile", tmp + "/log", "--http-port", "0",
         "--fsync", "no", *args])
    try:
        r = redis.Redis(port=port, decode_responses=decode_responses)
        for _ in range(100):  # 10 s
            try:
                r.ping()
                break
            except redis.ConnectionError:
                if proc.poll() is not None:
                    raise RuntimeError("frontierd exited with status %d; "
                                       "see %s/log" % (proc.returncode, tmp))
                time.sleep(0.1)
        else:
            raise RuntimeError("frontierd did not answer PING in 10 s")
        yield proc, r
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)
