#!/usr/bin/env bash
# A single node against a replication group of three on this machine
# (docs/replication.md), the same workloads on each: pipelined ADD,
# pipelined POP+CONFIRM, unpipelined ADD. fsync always, politeness off.
# RESP on 127.0.0.1, replication on 127.0.0.2-4; data in one temporary
# directory removed at exit; every server started here is stopped by PID.
#
#   clients/bench/compare-replication.sh [build-dir]
# Environment: N (pipelined ADDs, 200000), N1 (unpipelined ADDs, 20000),
# PORT (first RESP port, 17379; the next three are used too), REPL_PORT
# (replication port, 17400). After each workload, the CPU seconds each
# server process used for it (user + system, from /proc/PID/stat) and per
# 1,000 commands: the model of what a group costs (docs/performance.md);
# and the benchmark client's own CPU and the workload's wall-clock time.
set -u
B=${1:-build}
N=${N:-200000}
N1=${N1:-20000}
PORT=${PORT:-17379}
REPL_PORT=${REPL_PORT:-17400}
T=$(mktemp -d /tmp/frontierd-repl-bench.XXXXXX)
FLAGS=(--politeness-delay 0 --site-max-leases 0 --fsync always
       --bind 127.0.0.1 --http-port 0)
pids=()
names=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  rm -rf "$T"
}
trap cleanup EXIT

start() {  # name port [directives...]
  local name=$1 port=$2
  shift 2
  "$B/frontierd" --port "$port" --dir "$T/$name" "${FLAGS[@]}" \
    --logfile "$T/$name.log" "$@" 2>>"$T/$name.err" &
  pids+=($!)
  names+=("$name")
  for _ in $(seq 1 300); do
    redis-cli -p "$port" ping >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "$name did not start" >&2
  exit 1
}

ticks() {  # the CPU clock ticks (user + system) of every server started
  for p in "${pids[@]}"; do
    awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || echo 0
  done
}

cpu() {  # commands: the CPU each server used since `before`, in seconds
  local hz i=0 t
  hz=$(getconf CLK_TCK)
  for t in $(ticks); do
    awk -v n="${names[$i]}" -v a="${before[$i]}" -v b="$t" -v hz="$hz" \
      -v c="$1" 'BEGIN { s = (b - a) / hz; k = c > 0 ? s * 1000 / c : 0;
        printf "   cpu %s: %.2f s, %.3f s per 1k commands\n", n, s, k }'
    i=$((i + 1))
  done
}

bench() {  # pattern frontier-bench-args...: its rate line, and its own
  # CPU and wall-clock seconds (with the servers', what the machine spent)
  local pattern=$1 TIMEFORMAT='   cpu frontier-bench: %U s user + %S s system in %R s'
  shift
  { time "$B/frontier-bench" "$@" | grep -E "$pattern"; } 2>&1
}

run() {  # label port
  echo "== $1"
  before=($(ticks))
  bench "adds/s" -p "$2" -c 50 -P 64 -n "$N" add
  cpu "$N"
  before=($(ticks))
  bench "pops/s" -p "$2" -c 50 -P 64 pop-confirm
  cpu $((2 * N))  # every URL the adds stored, popped and confirmed
  before=($(ticks))
  bench "adds/s" -p "$2" -c 50 -P 1 -n "$N1" add
  cpu "$N1"
}

start single "$PORT"
run "single node" "$PORT"
cleanup
pids=()
names=()
T=$(mktemp -d /tmp/frontierd-repl-bench.XXXXXX)

sites=(127.0.0.2:$REPL_PORT 127.0.0.3:$REPL_PORT 127.0.0.4:$REPL_PORT)
for i in 0 1 2; do
  peers=()
  for j in 0 1 2; do [ "$j" != "$i" ] && peers+=("${sites[$j]}"); done
  extra=()
  [ "$i" = 0 ] && extra=(--repl-group-creator yes)
  start "site$i" $((PORT + 1 + i)) --replication yes \
    --repl-listen "${sites[$i]}" --repl-peers "${peers[@]}" "${extra[@]}"
done
run "group of three (master)" $((PORT + 1))
