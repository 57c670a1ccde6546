"""Replica offsets and lag (issue 20, docs/replication.md, "Replica
offsets and lag"): each replica reports the end of its log to the master
once a second, and the master shows every replica's position in ROLE,
INFO replication (slaveN:...,offset=..,lag=..), SENTINEL REPLICAS,
/metrics and the dashboard's data.

- the offsets rise with writes, and once the group is idle every
  replica's equals the master's (lag 0 bytes, a report under 2 s old),
  within a bounded wait;
- a stopped replica (SIGSTOP) falls behind: its report ages and it lacks
  the bytes written since; after SIGCONT it catches up;
- a malformed offset in REPLICATION ANNOUNCE is refused and changes
  nothing.

Three sites, replication addresses on 127.0.0.2-.4, RESP on 127.0.0.1;
every process is stopped by its PID and every wait is bounded.

    python3 replication_offsets_test.py path/to/frontierd
"""
import json
import os
import re
import signal
import sys
import unittest
import urllib.request

import redis

import replication_test as rt
import servers


def http_get(port, path):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}",
                                timeout=10) as page:
        return page.read().decode()


def slaves(info):
    """INFO replication's slaveN entries, by RESP port."""
    return {entry["port"]: entry for key, entry in info.items()
            if re.fullmatch(r"slave\d+", key)}


class ReplicaOffsetsTest(unittest.TestCase):
    def test_offsets_rise_with_writes_and_the_lag_goes_to_zero(self):
        http_port = servers.free_port()
        with rt.Group(extra={0: ["--http-port", str(http_port)]}) as g:
            master = g.client(0)
            last = {}

            def caught_up(on=0):
                """The master's offset if both replicas reported it as
                theirs, recently, on site `on` (the master); else None (and
                what every site said in `last`)."""
                info = g.client(on).info("replication")
                s = slaves(info)
                last["info"] = (on, info["master_repl_offset"], s,
                                [g.client(i).execute_command("ROLE")
                                 for i in range(3)])
                ports = sorted(g.sites[i].port for i in range(3) if i != on)
                if info["role"] != "master" or sorted(s) != ports:
                    return None
                offset = info["master_repl_offset"]
                if all(e["offset"] == offset and e["lag_bytes"] == 0 and
                       0 <= e["lag"] <= 1 for e in s.values()):
                    return offset
                return None

            def wait_caught_up(timeout_s, what, on=0):
                try:
                    return rt.wait_for(lambda: caught_up(on), timeout_s, what)
                except AssertionError as e:
                    raise AssertionError(
                        f"{e}; last seen (site, master offset, slaves, every "
                        f"site's ROLE): {last.get('info')}") from None

            start = wait_caught_up(15,
                                   "both replicas to report the master's offset")
            self.assertGreater(start, 0)

            pipe = master.pipeline(transaction=False)
            for n in range(300):
                pipe.execute_command("ADD", f"http://offsets.example/{n}")
            self.assertEqual(pipe.execute(), [1] * 300)
            after = master.info("replication")["master_repl_offset"]
            # 300 URLs are several kilobytes of log.
            self.assertGreater(after, start + 300 * 20)
            end = rt.wait_for(lambda: (lambda o: o if o and o >= after
                                       else None)(caught_up()), 10,
                              "both replicas to report the new offset")

            # ROLE: ["master", offset, [[host, port, offset], ...]], all
            # the same once idle (a write between the two reads: retry).
            def role_agrees():
                role = master.execute_command("ROLE")
                offsets = {int(r[2]) for r in role[2]}
                return offsets == {role[1]} and role[1] >= end
            rt.wait_for(role_agrees, 10, "ROLE's offsets to agree")
            # A replica's own ROLE and INFO give its position too.
            for i in (1, 2):
                replica = g.client(i)
                rt.wait_for(lambda: replica.execute_command("ROLE")[4] ==
                            master.info("replication")["master_repl_offset"],
                            10, f"site {i}'s own offset to be the master's")
                self.assertEqual(
                    replica.info("replication")["slave_repl_offset"],
                    replica.execute_command("ROLE")[4])
            # SENTINEL REPLICAS names each replica's offset.
            rt.wait_for(lambda: {int(r["slave-repl-offset"]) for r in
                                 master.sentinel_slaves("frontierd")} ==
                        {master.info("replication")["master_repl_offset"]},
                        10, "SENTINEL REPLICAS to show the offsets")
            # /metrics and /api/stats, from the same view.
            def metrics_agree():
                text = http_get(http_port, "/metrics")
                own = int(re.search(r"^frontierd_replication_log_offset (\d+)",
                                    text, re.M).group(1))
                lags = re.findall(
                    r'^frontierd_replication_peer_lag_bytes\{peer="([^"]+)"\}'
                    r" (\d+)", text, re.M)
                offs = re.findall(
                    r'^frontierd_replication_peer_offset\{peer="([^"]+)"\}'
                    r" (\d+)", text, re.M)
                return (sorted(p for p, _ in lags) == sorted(g.addrs[1:]) and
                        all(v == "0" for _, v in lags) and
                        all(int(v) == own for _, v in offs))
            rt.wait_for(metrics_agree, 10, "/metrics to show lag 0")
            stats = json.loads(http_get(http_port, "/api/stats"))
            sites = {s["site"]: s for s in stats["replication"]["sites"]}
            stats_offset = sites[g.addrs[0]]["offset"]
            self.assertGreaterEqual(stats_offset, end)
            for addr in g.addrs[1:]:
                self.assertIn("lag_bytes", sites[addr])
                self.assertGreaterEqual(sites[addr]["lag_seconds"], 0)
                self.assertLessEqual(sites[addr]["offset"], stats_offset)

            # A stopped replica falls behind, then catches up.
            stopped = g.sites[2]
            os.kill(stopped.proc.pid, signal.SIGSTOP)
            try:
                for n in range(50):  # site 1 acknowledges: a quorum
                    master.execute_command("ADD", f"http://behind.example/{n}")
                behind = rt.wait_for(
                    lambda: (lambda e: e if e and e["lag"] >= 2 else None)(
                        slaves(master.info("replication")).get(stopped.port)),
                    10, "the stopped replica's report to age")
                self.assertGreater(behind["lag_bytes"], 0)
                self.assertLess(behind["offset"],
                                master.info("replication")["master_repl_offset"])
            finally:
                os.kill(stopped.proc.pid, signal.SIGCONT)
            # The resumed replica, having missed the master's heartbeats,
            # calls an election, which the other replica may win (Berkeley
            # DB's; docs/replication.md): the offsets are the new master's
            # then.
            def a_master():
                roles = [g.client(i).execute_command("ROLE")[0]
                         for i in range(3)]
                return [i for i, r in enumerate(roles) if r == b"master"]
            try:
                (now,) = rt.wait_for(
                    lambda: (lambda m: (m[0],) if len(m) == 1 and
                             caught_up(m[0]) else None)(a_master()),
                    20, "the stopped replica to catch up after SIGCONT")
            except AssertionError as e:
                raise AssertionError(f"{e}; last seen: {last.get('info')}")
            master = g.client(now)

            # A malformed offset is refused; the reports go on.
            other = 1 if now != 1 else 2
            for bad in ["-1", "x", "1.5"]:
                with self.assertRaises(redis.ResponseError) as caught:
                    master.execute_command(
                        "REPLICATION", "ANNOUNCE", g.addrs[other],
                        f"127.0.0.1:{g.sites[other].port}", bad)
                self.assertIn("invalid replication offset", str(caught.exception))
            with self.assertRaises(redis.ResponseError) as caught:
                master.execute_command("REPLICATION", "ANNOUNCE",
                                       g.addrs[other], "127.0.0.1:1", "1", "2")
            self.assertIn("syntax error", str(caught.exception))
            wait_caught_up(10, "the reports to go on", on=now)


if __name__ == "__main__":
    rt.BINARY = sys.argv.pop(1)
    unittest.main()
