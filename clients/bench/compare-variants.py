#!/usr/bin/env python3
"""Runs one frontier-bench workload against several frontierd variants.

Each variant is LABEL=COMMAND: a frontierd binary and its extra directives,
e.g. "popularity=build-bench/frontierd --order popularity". Every run gets a
fresh data directory and a fresh server on a free 127.0.0.1 port (with
--politeness-delay 0 --site-max-leases 0 and --fsync always, as
compare-redis.sh's frontierd). The variants take turns in each round, the
first of a round rotating, so that the noise of a shared machine falls on
all of them alike. Prints each run's throughput and the server's CPU time
per operation (user + system, from /proc: less sensitive than wall time to
other load on the machine, and covering the start-up too), then the
medians per variant and their ratios to the first variant.

  clients/bench/compare-variants.py --rounds 3 -- \\
      "bfs=build-bench/frontierd --order bfs" \\
      "popularity=build-bench/frontierd --order popularity"

Bench arguments (after the variants' defaults) go in --bench-args; the
default is the crawl workload of the issue-9 measurement. --setup-args
runs a bench first on the same server (say, an add that fills the queue
for pop-confirm), and the CPU per operation then covers only the
measured run.
Exit status: 0 if every run passed the bench's checks, 1 otherwise.
"""
import argparse
import json
import os
import shlex
import socket
import statistics
import subprocess
import sys
import tempfile
import time

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(port, proc, timeout_s=20.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with socket.create_connection(("127.0.0.1", port), 0.5) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return True
        except OSError:
            time.sleep(0.05)
    return False


def cpu_seconds(pid):
    """User + system CPU time of a live process, from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_bench(bench, port, bench_args):
    out = subprocess.run([bench, "-p", str(port), "--json"] + bench_args,
                         capture_output=True, text=True, timeout=900)
    lines = [l for l in out.stdout.splitlines() if l.startswith("{")]
    return (json.loads(lines[-1]) if lines else {}), out.returncode


def run_once(command, bench, bench_args, workdir, setup_args):
    port = free_port()
    data = tempfile.mkdtemp(dir=workdir)
    argv = shlex.split(command) + [
        "--port", str(port), "--bind", "127.0.0.1", "--dir", data,
        "--politeness-delay", "0", "--site-max-leases", "0",
        "--fsync", "always", "--logfile", os.path.join(data, "server.log")]
    server = subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        if not wait_ready(port, server):
            sys.exit("compare-variants: server did not start: " + command)
        cpu_before = 0.0
        if setup_args:
            _, rc = run_bench(bench, port, setup_args)
            if rc != 0:
                return {"server_cpu_s": 0.0}, rc
            cpu_before = cpu_seconds(server.pid)
        result, rc = run_bench(bench, port, bench_args)
        result["server_cpu_s"] = cpu_seconds(server.pid) - cpu_before
        return result, rc
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--bench", default="build-bench/frontier-bench")
    ap.add_argument("--bench-args",
                    default="-c 50 -P 1 -n 6000 --sites 10000 crawl")
    ap.add_argument("--setup-args", default="",
                    help="a bench run before the measured one, on the same "
                    "server (e.g. an add that fills the queue); its server "
                    "CPU is left out of the CPU per operation")
    ap.add_argument("variants", nargs="+", metavar="LABEL=COMMAND")
    args = ap.parse_args()
    variants = []
    for v in args.variants:
        label, sep, command = v.partition("=")
        if not sep or not command:
            ap.error("a variant is LABEL=COMMAND: " + v)
        variants.append((label, command))
    bench_args = shlex.split(args.bench_args)
    setup_args = shlex.split(args.setup_args)
    rates = {label: [] for label, _ in variants}
    cpu = {label: [] for label, _ in variants}
    key = "rate"
    ok = True
    with tempfile.TemporaryDirectory(prefix="frontier-variants.") as work:
        for r in range(args.rounds):
            turn = variants[r % len(variants):] + variants[:r % len(variants)]
            for label, command in turn:
                result, rc = run_once(command, args.bench, bench_args, work,
                                      setup_args)
                rate = float(result.get("rate", 0.0))
                key = result.get("rate_unit", "rate")
                ops = max(1, int(result.get("ops", 1)))
                cpu_us = result["server_cpu_s"] * 1e6 / ops
                ok = ok and rc == 0
                rates[label].append(rate)
                cpu[label].append(cpu_us)
                print(f"round {r + 1} {label:<14} {key} {rate:10.1f}   "
                      f"server CPU {cpu_us:8.1f} us/op"
                      f"{'' if rc == 0 else '  (checks FAILED)'}", flush=True)
    base = statistics.median(rates[variants[0][0]]) or 1.0
    cpu_base = statistics.median(cpu[variants[0][0]]) or 1.0
    print(f"\n{'variant':<14} {'median ' + key:>18} ratio"
          f" {'CPU us/op':>10} ratio  runs ({key})")
    for label, _ in variants:
        med = statistics.median(rates[label])
        med_cpu = statistics.median(cpu[label])
        runs = " ".join(f"{x:.0f}" for x in rates[label])
        print(f"{label:<14} {med:18.1f} {med / base:5.3f} {med_cpu:10.1f}"
              f" {med_cpu / cpu_base:5.3f}  {runs}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
