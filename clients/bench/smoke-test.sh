#!/usr/bin/env bash
# CTest bench_smoke: starts frontierd on a free loopback port in a temporary
# dir, runs frontier-bench add (500 ADDs), pop-confirm, and the per-verb
# workloads pop and confirm with --json, and checks the correctness fields;
# then the per-verb workloads against a stock redis-server holding the peer
# (redis_frontier.lua) when one is installed, and pop against a polite
# frontierd, which must fail its check. Bounded: a few seconds, 20 s per run.
#
#   smoke-test.sh <frontierd> <frontier-bench>
set -euo pipefail
frontierd="$1"
bench="$2"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dir="$(mktemp -d "${TMPDIR:-/tmp}/bench-smoke.XXXXXX")"
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "bench_smoke: FAIL: $*" >&2; exit 1; }

free_port() {
  local p
  for _ in $(seq 1 100); do
    p=$(( 20000 + RANDOM % 12000 ))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
  done
  fail "no free port"
}

wait_port() {  # port pid log
  for _ in $(seq 1 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    kill -0 "$2" 2>/dev/null || break
    sleep 0.1
  done
  cat "$3" >&2
  fail "server on port $1 did not start"
}

start_frontierd() {  # name extra-args... ; sets port
  port="$(free_port)"
  local name="$1"
  shift
  "$frontierd" --port "$port" --bind 127.0.0.1 --dir "$dir/$name" "$@" \
    > "$dir/$name.log" 2>&1 &
  pids+=($!)
  wait_port "$port" "$!" "$dir/$name.log"
}

field() { sed -nE "s/.*\"$2\":(-?[0-9.]+|true|false).*/\1/p" <<< "$1" | head -n 1; }
expect() {  # what json key value
  [ "$(field "$2" "$3")" = "$4" ] || fail "$1: $3 is '$(field "$2" "$3")', expected $4"
}
# Runs the bench; json is its JSON line. Fails unless it exited 0.
bench_ok() {  # what args...
  local what="$1" out
  shift
  out="$(timeout 20 "$bench" --json "$@")" || { echo "$out" >&2; fail "$what exited non-zero"; }
  echo "$out"
  json="$(grep '^{' <<< "$out" | tail -n 1)"
  expect "$what" "$json" ok true
  expect "$what" "$json" errors 0
}
# The timed phase's commands are the only ones in latency_us.
timed_only() {  # what json verb
  local verb
  for verb in ADD MADD POP CONFIRM; do
    if [ "$verb" = "$3" ]; then
      grep -q "\"$verb\":{\"count\"" <<< "$2" || fail "$1: no $verb latency"
    elif grep -q "\"$verb\":{\"count\"" <<< "$2"; then
      fail "$1: $verb of an unmeasured phase in the latency table"
    fi
  done
}
# pop and confirm of n URLs: all loaded new, popped once, confirmed :1, and
# nothing left queued or leased.
check_verb_alone() {  # what json n verb
  expect "$1" "$2" expected_new "$3"
  expect "$1" "$2" acknowledged_new "$3"
  expect "$1" "$2" popped "$3"
  expect "$1" "$2" duplicate_pops 0
  expect "$1" "$2" confirm_ok "$3"
  expect "$1" "$2" confirm_zero 0
  expect "$1" "$2" queued 0
  expect "$1" "$2" leased 0
  timed_only "$1" "$2" "$4"
}

start_frontierd fast --politeness-delay 0 --site-max-leases 0

bench_ok add -p "$port" -c 4 -P 8 -n 500 --sites 50 add
expect add "$json" expected_new 400
expect add "$json" acknowledged_new 400
expect add "$json" known 100

bench_ok pop-confirm -p "$port" -c 4 -P 8 pop-confirm
expect pop-confirm "$json" popped 400
expect pop-confirm "$json" duplicate_pops 0
expect pop-confirm "$json" confirm_ok 400
expect pop-confirm "$json" queued 0

bench_ok pop -p "$port" -c 4 -P 8 -n 300 --sites 50 pop
check_verb_alone pop "$json" 300 POP
bench_ok "pop -P 1" -p "$port" -c 2 -P 1 -n 40 --sites 50 --seed 2 pop
check_verb_alone "pop -P 1" "$json" 40 POP
bench_ok confirm -p "$port" -c 4 -P 8 -n 300 --sites 50 confirm
check_verb_alone confirm "$json" 300 CONFIRM
# pop and confirm tag their URLs apart: the same seed is new URLs again.
bench_ok "confirm -P 5" -p "$port" -c 3 -P 5 -n 100 --sites 50 --seed 2 confirm
check_verb_alone "confirm -P 5" "$json" 100 CONFIRM

# Politeness on (1 lease per site): POP holds URLs back, and the check says so.
start_frontierd polite
status=0
out="$(timeout 20 "$bench" -p "$port" -c 2 -P 8 -n 40 --sites 4 --json pop)" || status=$?
echo "$out"
[ "$status" -eq 1 ] || fail "pop against a polite server exited $status, expected 1"
grep -q '"reason":"popped [0-9]* of the 40 URLs loaded' <<< "$out" ||
  fail "pop against a polite server: no 'popped n of the 40 URLs loaded' reason"

if command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then
  port="$(free_port)"
  redis-server --port "$port" --bind 127.0.0.1 --dir "$dir" --save "" \
    --appendonly no --logfile "$dir/redis.log" > /dev/null 2>&1 &
  pids+=($!)
  wait_port "$port" "$!" "$dir/redis.log"
  redis-cli -p "$port" -x FUNCTION LOAD REPLACE < "$here/redis_frontier.lua" > /dev/null
  bench_ok "redis pop" -p "$port" --target redis -c 4 -P 8 -n 300 --sites 50 pop
  check_verb_alone "redis pop" "$json" 300 POP
  bench_ok "redis confirm" -p "$port" --target redis -c 4 -P 8 -n 300 --sites 50 confirm
  check_verb_alone "redis confirm" "$json" 300 CONFIRM
else
  echo "bench_smoke: redis-server not installed: the peer's runs skipped"
fi
echo "bench_smoke: OK"
