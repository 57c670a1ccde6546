"""Starts the servers the Python tests talk to: the frontierd under test
and, for byte-for-byte comparisons, a real redis-server. Each listens on
127.0.0.1 on a free port, in a temporary directory removed at stop; every
wait is bounded in time.
"""
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

SANITIZER_MARKERS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                     "runtime error:")


def free_port(host="127.0.0.1"):
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def field_map(reply):
    """STATS', CRAWL INFO's or URLINFO's flat field/value array as a dict."""
    return {reply[i].decode(): reply[i + 1] for i in range(0, len(reply), 2)}


def _ping(port, host="127.0.0.1"):
    try:
        with socket.create_connection((host, port), timeout=1) as s:
            s.sendall(b"PING\r\n")
            return s.recv(64).startswith(b"+PONG")
    except OSError:
        return False


class Server:
    """One server process; use as a context manager."""

    def __init__(self, argv_for_port, name, host="127.0.0.1", port=None):
        """`port`: the one to listen on (e.g. written in a cluster file
        beforehand); by default a free one, tried again if taken."""
        self.name = name
        self.host = host
        self._fixed_port = port
        self._argv_for_port = argv_for_port
        self.dir = tempfile.mkdtemp(prefix="frontierd-py-")
        self.proc = None
        self.port = 0

    def __enter__(self):
        for _ in range(1 if self._fixed_port else 5):
            # A free port may be taken meanwhile: then another one.
            self.port = self._fixed_port or free_port(self.host)
            self._stderr = open(os.path.join(self.dir, "stderr"), "wb")
            self.proc = subprocess.Popen(self._argv_for_port(self),
                                         stdout=subprocess.DEVNULL,
                                         stderr=self._stderr, cwd=self.dir)
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and self.proc.poll() is None:
                if _ping(self.port, self.host):
                    return self
                time.sleep(0.05)
            self._kill()
            self._stderr.close()
        logs = self.logs()
        shutil.rmtree(self.dir, ignore_errors=True)  # no __exit__ follows
        raise RuntimeError(f"{self.name} did not start:\n{logs}")

    def __exit__(self, *exc):
        report = self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)
        if report and exc[0] is None:
            raise AssertionError(f"{self.name} sanitizer report:\n{report}")

    def logs(self):
        out = []
        for name in ("frontierd.log", "stderr"):
            try:
                with open(os.path.join(self.dir, name), errors="replace") as f:
                    out.append(f.read())
            except OSError:
                pass
        return "\n".join(out)

    def stop(self):
        """SIGTERM and wait (10 s at most); returns a sanitizer report or ""."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._kill()
        if getattr(self, "_stderr", None) is not None:
            self._stderr.close()
        logs = self.logs()
        for marker in SANITIZER_MARKERS:
            at = logs.find(marker)
            if at >= 0:
                return logs[at:at + 4000]
        return ""

    def _kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


def frontierd(binary, *extra):
    binary = os.path.abspath(binary)  # the server runs in its own directory
    return Server(lambda s: [
        binary, "--port", str(s.port), "--bind", "127.0.0.1", "--dir",
        os.path.join(s.dir, "data"), "--logfile",
        os.path.join(s.dir, "frontierd.log"), *extra
    ], "frontierd")


def frontierd_on(binary, data_dir, *extra):
    """A frontierd on `data_dir`, a directory that outlives the server (for
    restarts and kill -9); its log goes in the server's own directory."""
    binary = os.path.abspath(binary)
    return Server(lambda s: [
        binary, "--port", str(s.port), "--bind", "127.0.0.1", "--dir",
        data_dir, "--logfile", os.path.join(s.dir, "frontierd.log"), *extra
    ], "frontierd")


def redis_server():
    return Server(lambda s: [
        shutil.which("redis-server") or "/usr/bin/redis-server", "--port",
        str(s.port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
        "no", "--dir", s.dir
    ], "redis-server")
