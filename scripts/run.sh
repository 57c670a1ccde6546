#!/usr/bin/env bash
# Installs every dependency (Debian packages, via apt-get), builds frontierd
# (Release) in build/ and starts it in the foreground. With no arguments it
# runs on its embedded defaults: data in ./data, port 7379, 127.0.0.1 only,
# plus the HTTP port at 7380 (the dashboard at http://127.0.0.1:7380/,
# Prometheus metrics at /metrics). Arguments go to frontierd after that
# (a config file first), so they override it:
#
#   bash scripts/run.sh
#   bash scripts/run.sh conf/frontierd.conf --port 7380 --loglevel verbose
#
# Needs root or sudo for apt-get. Stop it with Ctrl-C (SIGINT): it
# checkpoints and exits cleanly.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh </dev/null

# Every option is passed explicitly: build/ is shared with scripts/test.sh.
cmake -S . -B build \
  -DCMAKE_BUILD_TYPE=Release \
  -DFRONTIERD_WERROR=OFF \
  -DFRONTIERD_BUILD_TESTS=OFF
cmake --build build -j "$(nproc)" --target frontierd frontier-worker

# --http-port 7380 goes after the config file, if one is given first, and
# before the other arguments, so that either may set another value.
if [[ $# -gt 0 && "$1" != --* ]]; then
  exec ./build/frontierd "$1" --http-port 7380 "${@:2}"
fi
exec ./build/frontierd --http-port 7380 "$@"
