#!/usr/bin/env bash
# CTest bench_smoke: starts frontierd on a free loopback port in a temporary
# dir, runs frontier-bench add (500 ADDs) and pop-confirm with --json, and
# checks the correctness fields. Bounded: about a second, 20 s at most.
#
#   smoke-test.sh <frontierd> <frontier-bench>
set -euo pipefail
frontierd="$1"
bench="$2"
dir="$(mktemp -d "${TMPDIR:-/tmp}/bench-smoke.XXXXXX")"
pid=""
cleanup() {
  if [ -n "$pid" ]; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "bench_smoke: FAIL: $*" >&2; exit 1; }

port=""
for _ in $(seq 1 100); do
  p=$(( 20000 + RANDOM % 40000 ))
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then port=$p; break; fi
done
[ -n "$port" ] || fail "no free port"

"$frontierd" --port "$port" --bind 127.0.0.1 --dir "$dir/data" \
  --politeness-delay 0 --site-max-leases 0 > "$dir/frontierd.log" 2>&1 &
pid=$!
ready=0
for _ in $(seq 1 100); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then ready=1; break; fi
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
[ "$ready" -eq 1 ] || { cat "$dir/frontierd.log" >&2; fail "frontierd did not start"; }

field() { sed -nE "s/.*\"$2\":(-?[0-9.]+|true|false).*/\1/p" <<< "$1" | head -n 1; }

out="$(timeout 20 "$bench" -p "$port" -c 4 -P 8 -n 500 --sites 50 --json add)" ||
  { echo "$out" >&2; fail "add exited non-zero"; }
echo "$out"
json="$(grep '^{' <<< "$out" | tail -n 1)"
[ "$(field "$json" ok)" = true ] || fail "add: ok is not true"
[ "$(field "$json" expected_new)" = 400 ] || fail "add: expected_new is not 400"
[ "$(field "$json" acknowledged_new)" = 400 ] || fail "add: acknowledged_new is not 400"
[ "$(field "$json" known)" = 100 ] || fail "add: known is not 100"
[ "$(field "$json" errors)" = 0 ] || fail "add: errors"

out="$(timeout 20 "$bench" -p "$port" -c 4 -P 8 --json pop-confirm)" ||
  { echo "$out" >&2; fail "pop-confirm exited non-zero"; }
echo "$out"
json="$(grep '^{' <<< "$out" | tail -n 1)"
[ "$(field "$json" ok)" = true ] || fail "pop-confirm: ok is not true"
[ "$(field "$json" popped)" = 400 ] || fail "pop-confirm: popped is not 400"
[ "$(field "$json" duplicate_pops)" = 0 ] || fail "pop-confirm: a URL was popped twice"
[ "$(field "$json" confirm_ok)" = 400 ] || fail "pop-confirm: confirm_ok is not 400"
[ "$(field "$json" queued)" = 0 ] || fail "pop-confirm: queue not drained"
echo "bench_smoke: OK"
