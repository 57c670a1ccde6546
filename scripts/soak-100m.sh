#!/usr/bin/env bash
# The 100M soak of issue 10: load about 100M URLs over 1M sites, then
# crawl, restart after SHUTDOWN, crawl again, kill -9 during a crawl and
# restart, with the URL count, RSS and data size after every step.
#
#   scripts/soak-100m.sh BUILD_DIR DATA_DIR OUT_DIR [SEEDS]
#
# BUILD_DIR holds frontierd and frontier-bench (a Release build); DATA_DIR
# must not exist (it is created, and kept for a look afterwards); OUT_DIR
# gets the bench tables, the server logs and summary.txt. SEEDS (default
# 10) is the number of 12.5M-ADD chunks (20% of them repeats): about 10M
# new URLs each. The load runs with `--fsync no` (how fast a bulk load
# goes is not a target); every later step runs on the defaults, so
# `fsync always` and `cache-size 256mb`. Needs redis-cli. Traffic stays
# on 127.0.0.1.
set -euo pipefail

build=${1:?build dir}
data=${2:?data dir}
out=${3:?output dir}
seeds=${4:-10}
port=${SOAK_PORT:-7394}
[ -e "$data" ] && { echo "$data exists; give a new directory" >&2; exit 2; }
mkdir -p "$out"
summary=$out/summary.txt
pid=

cli() { redis-cli -p "$port" "$@"; }

say() { echo "$(date -u +%H:%M:%S) $*" | tee -a "$summary"; }

start() {  # start [extra frontierd args...]: waits for PING, reports the time
  local log=$out/frontierd.$(date -u +%H%M%S).log t0 t1
  t0=$(date +%s%N)
  "$build/frontierd" --port "$port" --bind 127.0.0.1 --dir "$data" \
      --logfile "$log" --http-port 0 --politeness-delay 0 \
      --site-max-leases 0 "$@" &
  pid=$!
  for _ in $(seq 1 1200); do  # 120 s at most
    if cli PING 2>/dev/null | grep -q PONG; then break; fi
    kill -0 "$pid" 2>/dev/null || { echo "frontierd exited; see $log" >&2; exit 1; }
    sleep 0.1
  done
  t1=$(date +%s%N)
  say "start: PING after $(( (t1 - t0) / 1000000 )) ms; log: $(grep -o 'recovery took [0-9]* ms' "$log" | tail -1)"
}

state() {  # state LABEL: URL count, sites, RSS and data size
  local urls sites rss size
  urls=$(cli INFO | tr -d '\r' | grep -E '^(urls_known|urls):' | head -1 | cut -d: -f2)
  sites=$(cli INFO | tr -d '\r' | grep -E '^sites:' | head -1 | cut -d: -f2)
  rss=$(awk '/VmRSS/ {print int($2/1024)}' "/proc/$pid/status")
  size=$(du -sm "$data" | cut -f1)
  say "$1: urls=$urls sites=$sites rss=${rss}MiB data=${size}MiB"
}

bench() {  # bench NAME ARGS...: one frontier-bench run, its table kept
  local name=$1; shift
  "$build/frontier-bench" -p "$port" "$@" > "$out/$name.txt" 2>&1 || true
  say "$name: $(grep -E 'pages/s|adds/s|ops/s' "$out/$name.txt" | head -3 | tr -s ' ' | tr '\n' ';')"
}

crawl() { bench "$1" -c 50 -P 1 -n 100000 --sites 1000000 --duration 60 --seed "$2" crawl; }

start --fsync no
for seed in $(seq 1 "$seeds"); do
  bench "load$seed" -c 50 -P 64 -n 12500000 --sites 1000000 --dup-ratio 0.2 --seed "$seed" add
  state "after load $seed"
done
cli SHUTDOWN >/dev/null 2>&1 || true
wait "$pid" || true

start
state "restarted after SHUTDOWN"
crawl crawl1 101
state "after crawl 1"
cli SHUTDOWN >/dev/null 2>&1 || true
wait "$pid" || true

start
state "restarted after SHUTDOWN"
crawl crawl2 102
state "after crawl 2"

"$build/frontier-bench" -p "$port" -c 50 -P 1 -n 100000 --sites 1000000 \
    --duration 60 --seed 103 crawl > "$out/crawl3-killed.txt" 2>&1 &
bpid=$!
sleep 20
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
wait "$bpid" 2>/dev/null || true
say "kill -9 during a crawl"
start
state "restarted after kill -9"
cli STATS > "$out/stats-after-kill.txt"
crawl crawl4 104
state "after crawl 4"
cli SHUTDOWN >/dev/null 2>&1 || true
wait "$pid" || true
say "done"
