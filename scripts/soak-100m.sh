#!/usr/bin/env bash
# The 100M soak of issue 10: load 100M URLs over 1M sites, then crawl,
# restart after SHUTDOWN, crawl again, kill -9 during a crawl and restart,
# with the URL count, RSS and data size after every step.
#
#   scripts/soak-100m.sh BUILD_DIR DATA_DIR OUT_DIR [URLS]
#
# BUILD_DIR holds frontierd and frontier-bench (a Release build); DATA_DIR
# is created if missing (and kept for a look afterwards); OUT_DIR gets the
# bench tables, the server logs and summary.txt. URLS defaults to 100M.
#
# The load is not what the soak measures, so it runs with `--fsync no`
# and a 6 GiB cache (SOAK_LOAD_CACHE), through scripts/madd-load.py and
# `redis-cli --pipe` (MADDs of 5,000 new URLs: one transaction each),
# 5M URLs a chunk, until DATA_DIR holds URLS; a directory that already
# does is not loaded again (SOAK_SKIP_LOAD=1 skips the load whatever it
# holds). Every later step runs on the defaults: `fsync always` and
# `cache-size 256mb`. Needs redis-cli and python3. Traffic stays on
# 127.0.0.1.
set -euo pipefail

build=${1:?build dir}
data=${2:?data dir}
out=${3:?output dir}
want=${4:-100000000}
port=${SOAK_PORT:-7394}
here=$(cd "$(dirname "$0")" && pwd)
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
  for _ in $(seq 1 6000); do  # 600 s at most
    if cli PING 2>/dev/null | grep -q PONG; then break; fi
    kill -0 "$pid" 2>/dev/null || { echo "frontierd exited; see $log" >&2; exit 1; }
    sleep 0.1
  done
  t1=$(date +%s%N)
  say "start: PING after $(( (t1 - t0) / 1000000 )) ms; log: $(grep -o 'recovery took [0-9]* ms' "$log" | tail -1)"
}

urls() { cli INFO | tr -d '\r' | grep -E '^urls:' | cut -d: -f2; }

state() {  # state LABEL: URL count, sites, RSS and data size
  local urls sites rss size
  urls=$(urls)
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

secs=${SOAK_CRAWL_SECS:-60}
crawl() { bench "$1" -c 50 -P 1 -n 100000 --sites 1000000 --duration "$secs" --seed "$2" crawl; }

if [ "${SOAK_SKIP_LOAD:-0}" != 1 ]; then
  start --fsync no --cache-size "${SOAK_LOAD_CACHE:-6gb}"
  chunk=0
  while [ "$(urls)" -lt "$want" ] && [ "$chunk" -lt 100 ]; do
    chunk=$((chunk + 1))
    n=$((want - $(urls)))
    [ "$n" -gt 5000000 ] && n=5000000
    t0=$(date +%s)
    python3 "$here/madd-load.py" "soak$chunk-$(date +%s)" "$n" 1000000 5000 |
        cli --pipe > "$out/load$chunk.txt" 2>&1
    say "load chunk $chunk: $n URLs in $(( $(date +%s) - t0 )) s"
    state "after load chunk $chunk"
  done
  cli SHUTDOWN >/dev/null 2>&1 || true
  wait "$pid" || true
fi

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
    --duration "$secs" --seed 103 crawl > "$out/crawl3-killed.txt" 2>&1 &
bpid=$!
sleep $((secs / 3))
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
