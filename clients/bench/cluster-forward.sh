#!/bin/bash
# The cost of forwarding (docs/cluster.md, docs/performance.md): a cluster
# of three one-process shards on 127.0.0.2-.4 (port PORT, default 7391),
# then redis-benchmark's ADD and SEEN of one site's URLs sent to the node
# that owns the site (local) and to another node (forwarded). Prints
# redis-benchmark's CSV: rps, avg, min, p50, p95, p99, max (ms).
#
#   clients/bench/cluster-forward.sh BUILD_DIR [N]
set -euo pipefail
BIN="$(cd "$1" && pwd)/frontierd"
N="${2:-40000}"
PORT="${PORT:-7391}"
DIR="$(mktemp -d /tmp/frontierd-cluster-bench.XXXXXX)"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait
  rm -rf "$DIR"
}
trap cleanup EXIT
cat > "$DIR/cluster.conf" <<C
epoch 1
shard a 0-5460
shard b 5461-10922
shard c 10923-16383
node a 127.0.0.2:$PORT
node b 127.0.0.3:$PORT
node c 127.0.0.4:$PORT
C
for i in 2 3 4; do
  "$BIN" --port "$PORT" --bind "127.0.0.$i" --dir "$DIR/d$i" \
    --logfile "$DIR/log$i" --fsync everysec --politeness-delay 0 \
    --cluster-config-file "$DIR/cluster.conf" &
  PIDS+=($!)
done
for i in 2 3 4; do
  for _ in $(seq 100); do
    redis-cli -h "127.0.0.$i" -p "$PORT" PING >/dev/null 2>&1 && break
    sleep 0.1
  done
done
# www.example.com is shard c's (slot 13603): local on .4, forwarded from .2.
for host in 127.0.0.4 127.0.0.2; do
  bench() { redis-benchmark -h "$host" -p "$PORT" -n "$N" -c 8 --csv "$@" 2>/dev/null | tail -1; }
  echo "== $host ADD";       bench -r 100000000 ADD "http://www.example.com/__rand_int__"
  echo "== $host ADD -P 16"; bench -P 16 -r 100000000 ADD "http://www.example.com/__rand_int__"
  echo "== $host SEEN";      bench SEEN "http://www.example.com/a"
done
