#!/usr/bin/env bash
# Installs the Debian packages frontierd needs if any is missing
# (scripts/install-deps.sh: apt-get only then), builds frontierd and
# frontier-worker (Release) in build/ where anything changed, and starts
# frontierd in the foreground. With no arguments it runs on its embedded
# defaults: data in ./data, port 7379, 127.0.0.1 only, plus the HTTP port
# at 7380 (the dashboard at http://127.0.0.1:7380/, Prometheus metrics at
# /metrics). Arguments go to frontierd after that (a config file first), so
# they override it:
#
#   bash scripts/run.sh
#   bash scripts/run.sh conf/frontierd.conf --port 7479 --loglevel verbose
#
# Needs root or sudo only on a machine that lacks a package. Once built,
# `./build/frontierd --http-port 7380` starts the same server without
# looking at packages or sources. Stop it with Ctrl-C (SIGINT): it
# checkpoints and exits cleanly.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh </dev/null

# Configured only when build/ has not this configuration yet (a first run,
# or after scripts/test.sh, which shares build/ with other options); then
# `cmake --build` rebuilds only what changed (and re-runs CMake itself when
# a CMakeLists.txt changed).
want=(CMAKE_BUILD_TYPE:STRING=Release FRONTIERD_WERROR:BOOL=OFF
      FRONTIERD_BUILD_TESTS:BOOL=OFF)
configured=1
for line in "${want[@]}"; do
  grep -qx "$line" build/CMakeCache.txt 2>/dev/null || configured=0
done
if [ "$configured" = 0 ]; then
  cmake -S . -B build \
    -DCMAKE_BUILD_TYPE=Release \
    -DFRONTIERD_WERROR=OFF \
    -DFRONTIERD_BUILD_TESTS=OFF
fi
cmake --build build -j "$(nproc)" --target frontierd frontier-worker

# --http-port 7380 goes after the config file, if one is given first, and
# before the other arguments, so that either may set another value.
if [[ $# -gt 0 && "$1" != --* ]]; then
  exec ./build/frontierd "$1" --http-port 7380 "${@:2}"
fi
exec ./build/frontierd --http-port 7380 "$@"
