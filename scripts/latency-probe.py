#!/usr/bin/env python3
"""Sends ADDs of new URLs one at a time to a frontierd for a while and
prints the latency of each as a client sees it (p50, p99, max): what other
clients wait while something else runs, such as an export's BACKUP or an
IMPORT (docs/performance.md, "Export and import").

    python3 scripts/latency-probe.py PORT SECONDS

Uses frontierd-import's RESP client, so it needs no client library.
"""
import importlib.machinery
import importlib.util
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
_path = os.path.join(HERE, "..", "clients", "import", "frontierd-import")
_loader = importlib.machinery.SourceFileLoader("frontierd_import", _path)
_spec = importlib.util.spec_from_loader("frontierd_import", _loader)
tool = importlib.util.module_from_spec(_spec)
_loader.exec_module(tool)


def main():
    port, seconds = int(sys.argv[1]), float(sys.argv[2])
    conn = tool.Resp("127.0.0.1", port, 120)
    lat = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        start = time.monotonic()
        conn.command(["ADD", f"http://probe.example/{len(lat)}"])
        lat.append(time.monotonic() - start)
    lat.sort()
    print(f"commands {len(lat)}  p50 {lat[len(lat) // 2] * 1e3:.2f} ms  "
          f"p99 {lat[int(len(lat) * 0.99)] * 1e3:.2f} ms  "
          f"max {lat[-1] * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
