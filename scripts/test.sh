#!/usr/bin/env bash
# Installs every dependency (Debian packages, via apt-get), builds frontierd
# and its tests in build/ with warnings as errors, and runs the whole suite.
# Exits non-zero if anything fails. Works from any directory and without a
# terminal (CI); needs root or sudo for apt-get.
#
#   bash scripts/test.sh
#
# FRONTIERD_JOBS=n overrides the build and test parallelism (default: nproc).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh </dev/null

jobs="${FRONTIERD_JOBS:-$(nproc)}"

# Every option is passed explicitly: build/ is shared with scripts/run.sh,
# and a value cached by one must not leak into the other.
cmake -S . -B build \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DFRONTIERD_WERROR=ON \
  -DFRONTIERD_BUILD_TESTS=ON
cmake --build build -j "$jobs"

# Integration tests start their own frontierd on a free loopback port in a
# temporary directory, so they can run side by side. --no-tests=error: a
# suite that found nothing to run has not passed.
ctest --test-dir build --output-on-failure --no-tests=error \
  -j "$jobs" --timeout 300 </dev/null
