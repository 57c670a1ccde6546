#!/usr/bin/env bash
# The SiteScheduler alone, this tree's against another commit's, side by
# side (tests/bench/site_scheduler_bench.cc; docs/performance.md, "The
# compact scheduler"):
#
#   scripts/bench-scheduler.sh [BASE] [RUNS] [-- bench flags]
#
# BASE (default: main) is a commit whose storage/, policy/ and partition/
# headers the same bench is compiled against; each binary is built with the
# Release flags (-O3 -DNDEBUG) and glibc's malloc, and the two run one after
# the other RUNS times (default 3) for 1M and 5M sites, so the medians of
# each line can be compared.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
base=${1:-main}
runs=${2:-3}
shift $(( $# >= 2 ? 2 : $# ))
[[ ${1:-} == -- ]] && shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/base"
git -C "$root" archive "$base" storage policy partition | tar -x -C "$work/base"
build() {  # build <source tree> <output>
  ${CXX:-g++} -std=c++20 -O3 -DNDEBUG -I"$1" \
    "$root/tests/bench/site_scheduler_bench.cc" "$1/storage/site_scheduler.cc" \
    -o "$2"
}
build "$work/base" "$work/base_bench"
build "$root" "$work/this_bench"

for sites in 1000000 5000000; do
  for run in $(seq 1 "$runs"); do
    echo "run $run, base ($base):"
    "$work/base_bench" --sites "$sites" "$@"
    echo "run $run, this tree:"
    "$work/this_bench" --sites "$sites" "$@"
  done
done
