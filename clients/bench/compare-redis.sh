#!/usr/bin/env bash
# Runs the same workloads against frontierd and against a stock redis-server
# holding the Redis Functions peer (clients/bench/redis_frontier.lua), row by
# row, alternating between the servers, and prints the ratios frontierd/Redis.
#
# Servers (all on 127.0.0.1, free ports, data in one temporary directory that
# is removed at exit):
#   frontierd          --fsync always --politeness-delay 0 --site-max-leases 0
#   redis always       appendonly yes, appendfsync always
#   redis everysec     appendonly yes, appendfsync everysec
#   frontierd polite   --fsync always, default politeness (1 s, 1 lease/site);
#                      only the pipelined add, pop-confirm and crawl rows
#
# Full run (about the issue's targets; several minutes):
#   clients/bench/compare-redis.sh
# CI-sized smoke run (seconds):
#   clients/bench/compare-redis.sh -n 2000 --polite-seconds 2
#
# Options (or the environment variable in brackets, with its default):
#   -n N                 URLs of the pipelined add row [COMPARE_N=1000000]
#   -c C                 connections [COMPARE_CONNS=50]
#   -P P                 pipeline depth of the pipelined rows [COMPARE_PIPELINE=64]
#   --n-verb N           URLs of each per-verb row (pop-only, confirm-only: loaded
#                        unmeasured, then each verb timed alone) [COMPARE_N_VERB=N]
#   --sites S            sites [COMPARE_SITES=10000]
#   --n-serial N         ADDs of the C-connection unpipelined row [COMPARE_N_SERIAL=N/20]
#   --n-single N         ADDs of the 1-connection row [COMPARE_N_SINGLE=N/500, min 100]
#   --pages N            crawl pages [COMPARE_PAGES=N/50, min 200]
#   --crawl-pipeline P   pages per round trip in the crawl [COMPARE_CRAWL_PIPELINE=1]
#   --polite-seconds S   time cap of the polite pop-confirm and crawl rows
#                        [COMPARE_POLITE_SECONDS=20]
#   --frontierd PATH     [COMPARE_FRONTIERD=build/frontierd]
#   --bench PATH         [COMPARE_BENCH=build/frontier-bench]
#   --out DIR            where the bench outputs and results.jsonl go
#                        [COMPARE_OUT=a new temporary directory, kept]
#   --row-timeout S      hard cap on one bench run [COMPARE_ROW_TIMEOUT=900]
#
# Exit status: 0 when every run passed its correctness checks, 1 otherwise,
# 2 on a usage or setup error.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

N="${COMPARE_N:-1000000}"
CONNS="${COMPARE_CONNS:-50}"
PIPELINE="${COMPARE_PIPELINE:-64}"
SITES="${COMPARE_SITES:-10000}"
N_VERB="${COMPARE_N_VERB:-}"
N_SERIAL="${COMPARE_N_SERIAL:-}"
N_SINGLE="${COMPARE_N_SINGLE:-}"
PAGES="${COMPARE_PAGES:-}"
CRAWL_PIPELINE="${COMPARE_CRAWL_PIPELINE:-1}"
POLITE_SECONDS="${COMPARE_POLITE_SECONDS:-20}"
FRONTIERD="${COMPARE_FRONTIERD:-$root/build/frontierd}"
BENCH="${COMPARE_BENCH:-$root/build/frontier-bench}"
OUT="${COMPARE_OUT:-}"
ROW_TIMEOUT="${COMPARE_ROW_TIMEOUT:-900}"

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "compare-redis: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
  case "$1" in
    -n) N="$2"; shift 2 ;;
    -c) CONNS="$2"; shift 2 ;;
    -P) PIPELINE="$2"; shift 2 ;;
    --sites) SITES="$2"; shift 2 ;;
    --n-verb) N_VERB="$2"; shift 2 ;;
    --n-serial) N_SERIAL="$2"; shift 2 ;;
    --n-single) N_SINGLE="$2"; shift 2 ;;
    --pages) PAGES="$2"; shift 2 ;;
    --crawl-pipeline) CRAWL_PIPELINE="$2"; shift 2 ;;
    --polite-seconds) POLITE_SECONDS="$2"; shift 2 ;;
    --frontierd) FRONTIERD="$2"; shift 2 ;;
    --bench) BENCH="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --row-timeout) ROW_TIMEOUT="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (try --help)" ;;
  esac
done
[ -n "$N_VERB" ] || N_VERB="$N"
for v in N N_VERB CONNS PIPELINE SITES CRAWL_PIPELINE POLITE_SECONDS ROW_TIMEOUT; do
  [[ "${!v}" =~ ^[0-9]+$ ]] || die "$v must be a whole number, got '${!v}'"
done
[ -n "$N_SERIAL" ] || N_SERIAL=$(( N / 20 > 100 ? N / 20 : 100 ))
[ -n "$N_SINGLE" ] || N_SINGLE=$(( N / 500 > 100 ? N / 500 : 100 ))
[ -n "$PAGES" ] || PAGES=$(( N / 50 > 200 ? N / 50 : 200 ))

# --- Tools ---
if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
  echo "compare-redis: installing redis-server (Debian package)" >&2
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq </dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq redis-server redis-tools \
    </dev/null >/dev/null
fi
if [ ! -x "$FRONTIERD" ] || [ ! -x "$BENCH" ]; then
  echo "compare-redis: building frontierd and frontier-bench in $root/build" >&2
  # Release, warnings not fatal (build/ is shared with scripts/test.sh).
  build_log="$(mktemp)"
  if ! { cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release -DFRONTIERD_WERROR=OFF &&
         cmake --build "$root/build" -j "$(nproc)" --target frontierd frontier-bench; } \
       > "$build_log" 2>&1; then
    tail -n 30 "$build_log" >&2
    rm -f "$build_log"
    die "build failed"
  fi
  rm -f "$build_log"
fi
[ -x "$FRONTIERD" ] || die "no frontierd at $FRONTIERD"
[ -x "$BENCH" ] || die "no frontier-bench at $BENCH"

work="$(mktemp -d "${TMPDIR:-/tmp}/frontier-compare.XXXXXX")"
if [ -z "$OUT" ]; then OUT="$(mktemp -d "${TMPDIR:-/tmp}/frontier-compare-results.XXXXXX")"; fi
mkdir -p "$OUT"
: > "$OUT/results.jsonl"

# --- Servers ---
declare -A PORT PID KIND
SERVERS=()

cleanup() {
  local name pid
  for name in "${SERVERS[@]}"; do
    pid="${PID[$name]:-}"
    [ -n "$pid" ] || continue
    kill -TERM "$pid" 2>/dev/null || true
  done
  for name in "${SERVERS[@]}"; do
    pid="${PID[$name]:-}"
    [ -n "$pid" ] || continue
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A port nothing listens on (bash's /dev/tcp connect fails), bounded tries,
# below the kernel's ephemeral range: a port there may be the local end of
# one of the bench's own connections, and then the server cannot bind it.
free_port() {
  local port low=32768
  read -r low _ < /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
  [ "$low" -gt 20100 ] || low=32768
  for _ in $(seq 1 200); do
    port=$(( 20000 + RANDOM % (low - 20000) ))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  die "no free port found"
}

wait_ready() {  # name
  local name="$1"
  for _ in $(seq 1 200); do
    if [ "$(redis-cli -p "${PORT[$name]}" ping 2>/dev/null)" = "PONG" ]; then return 0; fi
    kill -0 "${PID[$name]}" 2>/dev/null || break
    sleep 0.1
  done
  echo "compare-redis: $name did not start; its log:" >&2
  tail -n 20 "$work/$name/server.log" >&2 || true
  exit 2
}

start_redis() {  # name appendfsync
  local name="$1" policy="$2" dir="$work/$1"
  mkdir -p "$dir"
  PORT[$name]="$(free_port)"
  cat > "$dir/redis.conf" <<EOF
port ${PORT[$name]}
bind 127.0.0.1
protected-mode yes
daemonize no
dir $dir
appendonly yes
appendfsync $policy
save ""
logfile $dir/server.log
EOF
  redis-server "$dir/redis.conf" >/dev/null 2>&1 &
  PID[$name]=$!
  KIND[$name]=redis
  SERVERS+=("$name")
  wait_ready "$name"
  redis-cli -p "${PORT[$name]}" -x FUNCTION LOAD REPLACE < "$here/redis_frontier.lua" >/dev/null
}

start_frontierd() {  # name extra-args...
  local name="$1" dir="$work/$1"
  shift
  mkdir -p "$dir"
  PORT[$name]="$(free_port)"
  "$FRONTIERD" --port "${PORT[$name]}" --bind 127.0.0.1 --dir "$dir/data" --fsync always \
    "$@" > "$dir/server.log" 2>&1 &
  PID[$name]=$!
  KIND[$name]=frontierd
  SERVERS+=("$name")
  wait_ready "$name"
}

start_frontierd fd --politeness-delay 0 --site-max-leases 0
start_redis always always
start_redis everysec everysec
start_frontierd polite

# --- Runs ---
failures=0
declare -A RATE UNIT P99 RSS DATA URLS OKS

json_field() {  # json key -> the first numeric or boolean value of "key":
  sed -nE "s/.*\"$2\":(-?[0-9.]+|true|false).*/\1/p" <<< "$1" | head -n 1
}
json_p99() {  # json verb
  sed -nE "s/.*\"$2\":\{[^}]*\"p99\":([0-9.]+).*/\1/p" <<< "$1" | head -n 1
}

run() {  # row-id server workload bench-args...
  local row="$1" name="$2" workload="$3"
  shift 3
  local target="${KIND[$name]}" file="$OUT/$row.$name.txt" json status=0
  timeout "$ROW_TIMEOUT" "$BENCH" -p "${PORT[$name]}" --target "$target" --sites "$SITES" \
    --json "$@" "$workload" > "$file" 2>&1 || status=$?
  json="$(grep '^{' "$file" | tail -n 1 || true)"
  if [ -z "$json" ]; then
    echo "compare-redis: $row on $name produced no result (exit $status):" >&2
    tail -n 5 "$file" >&2
    failures=$((failures + 1))
    return 0
  fi
  sed "s/^{/{\"row\":\"$row\",\"instance\":\"$name\",/" <<< "$json" >> "$OUT/results.jsonl"
  RATE[$row.$name]="$(json_field "$json" rate)"
  UNIT[$row]="$(sed -nE 's/.*"rate_unit":"([^"]*)".*/\1/p' <<< "$json")"
  local verb
  case "$workload" in
    add) verb=ADD ;; pop-confirm|pop) verb=POP ;; confirm) verb=CONFIRM ;; crawl) verb=MADD ;;
  esac
  P99[$row.$name]="$(json_p99 "$json" "$verb")"
  RSS[$name]="$(json_field "$json" rss_bytes)"
  DATA[$name]="$(json_field "$json" data_bytes)"
  URLS[$name]="$(json_field "$json" urls)"
  OKS[$row.$name]="$(json_field "$json" ok)"
  if [ "${OKS[$row.$name]}" != "true" ] || [ "$status" -ne 0 ]; then
    echo "compare-redis: $row on $name FAILED (exit $status): $(sed -nE 's/.*"reason":"([^"]*)".*/\1/p' <<< "$json")" >&2
    failures=$((failures + 1))
  fi
  printf '  %-22s %-9s %12s %s\n' "$row" "$name" "${RATE[$row.$name]}" "${UNIT[$row]}" >&2
}

ROWS=()
LABEL=()
row() {  # id label servers workload args...
  local id="$1" label="$2" servers="$3" workload="$4"
  shift 4
  ROWS+=("$id")
  LABEL+=("$label")
  local name
  for name in $servers; do run "$id" "$name" "$workload" "$@"; done
}

all="fd always everysec"
polite_args=(--duration "$POLITE_SECONDS")
echo "compare-redis: N=$N CONNS=$CONNS PIPELINE=$PIPELINE SITES=$SITES N_VERB=$N_VERB N_SERIAL=$N_SERIAL" \
  "N_SINGLE=$N_SINGLE PAGES=$PAGES CRAWL_PIPELINE=$CRAWL_PIPELINE; results in $OUT" >&2

row add-pipe "add -c $CONNS -P $PIPELINE -n $N" "$all" add \
  -c "$CONNS" -P "$PIPELINE" -n "$N" --seed 11
run add-pipe polite add -c "$CONNS" -P "$PIPELINE" -n "$N" --seed 11
row pop-pipe "pop-confirm -c $CONNS -P $PIPELINE" "$all" pop-confirm \
  -c "$CONNS" -P "$PIPELINE"
run pop-pipe polite pop-confirm -c "$CONNS" -P "$PIPELINE" --idle-wait 1.5 "${polite_args[@]}"
# Each verb timed alone; the bench loads (and for confirm pops) the URLs
# first, unmeasured, and confirms what it leased, so the queue stays empty.
row pop-only-pipe "pop -c $CONNS -P $PIPELINE -n $N_VERB" "$all" pop \
  -c "$CONNS" -P "$PIPELINE" -n "$N_VERB" --seed 15
row confirm-only-pipe "confirm -c $CONNS -P $PIPELINE -n $N_VERB" "$all" confirm \
  -c "$CONNS" -P "$PIPELINE" -n "$N_VERB" --seed 16
row add-serial "add -c $CONNS -P 1 -n $N_SERIAL" "$all" add -c "$CONNS" -P 1 -n "$N_SERIAL" --seed 12
row pop-serial "pop-confirm -c $CONNS -P 1" "$all" pop-confirm -c "$CONNS" -P 1
row add-single "add -c 1 -P 1 -n $N_SINGLE" "$all" add -c 1 -P 1 -n "$N_SINGLE" --seed 13
row pop-single "pop-confirm -c 1 -P 1" "$all" pop-confirm -c 1 -P 1
row crawl "crawl -c $CONNS -P $CRAWL_PIPELINE -n $PAGES" "$all" crawl \
  -c "$CONNS" -P "$CRAWL_PIPELINE" -n "$PAGES" --seed 14
run crawl polite crawl -c "$CONNS" -P "$CRAWL_PIPELINE" -n "$PAGES" --seed 14 "${polite_args[@]}"

# --- Tables ---
ratio() {  # a b
  awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print "-"; else printf "%.2f", a / b }'
}
num() { awk -v a="$1" 'BEGIN { if (a == "") print "-"; else printf "%.0f", a }'; }
mib() { awk -v a="$1" 'BEGIN { if (a == "" || a < 0) print "-"; else printf "%.1f", a / 1048576 }'; }

echo
echo "Throughput (frontierd: politeness off unless 'polite'; redis: the Lua peer)"
printf '%-34s %-14s %10s %10s %10s %8s %8s %10s %8s\n' "row" "unit" "frontierd" \
  "r-always" "r-everysec" "fd/alw" "fd/evs" "polite" "pol/alw"
for i in "${!ROWS[@]}"; do
  id="${ROWS[$i]}"
  printf '%-34s %-14s %10s %10s %10s %8s %8s %10s %8s\n' "${LABEL[$i]}" "${UNIT[$id]:-}" \
    "$(num "${RATE[$id.fd]:-}")" "$(num "${RATE[$id.always]:-}")" \
    "$(num "${RATE[$id.everysec]:-}")" \
    "$(ratio "${RATE[$id.fd]:-}" "${RATE[$id.always]:-}")" \
    "$(ratio "${RATE[$id.fd]:-}" "${RATE[$id.everysec]:-}")" \
    "$(num "${RATE[$id.polite]:-}")" \
    "$(ratio "${RATE[$id.polite]:-}" "${RATE[$id.always]:-}")"
done

echo
echo "p99 latency of the row's main command, microseconds (ADD, POP, CONFIRM, MADD)"
printf '%-34s %10s %10s %10s %10s\n' "row" "frontierd" "r-always" "r-everysec" "polite"
for i in "${!ROWS[@]}"; do
  id="${ROWS[$i]}"
  printf '%-34s %10s %10s %10s %10s\n' "${LABEL[$i]}" "${P99[$id.fd]:--}" \
    "${P99[$id.always]:--}" "${P99[$id.everysec]:--}" "${P99[$id.polite]:--}"
done

echo
echo "Server at the end (RSS, data on disk, URLs stored)"
printf '%-10s %10s %12s %10s\n' "server" "RSS MiB" "data MiB" "URLs"
for name in fd always everysec polite; do
  printf '%-10s %10s %12s %10s\n' "$name" "$(mib "${RSS[$name]:-}")" \
    "$(mib "${DATA[$name]:-}")" "${URLS[$name]:--}"
done
echo
echo "Bench outputs: $OUT ($(wc -l < "$OUT/results.jsonl") runs in results.jsonl)"

if [ "$failures" -gt 0 ]; then
  echo "compare-redis: $failures run(s) failed their checks" >&2
  exit 1
fi
