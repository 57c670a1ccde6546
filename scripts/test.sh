#!/usr/bin/env bash
# Installs the dependencies that are missing (Debian packages, via apt-get:
# scripts/install-deps.sh --test; a fresh machine gets them all), builds frontierd
# and its tests in build/ with warnings as errors, and runs the whole suite;
# then builds it again in build-asan/ under AddressSanitizer and
# UndefinedBehaviorSanitizer (with clang, plus the libFuzzer targets) and
# runs the suite there too. Exits non-zero if anything fails. Works from any
# directory and without a terminal (CI); needs root or sudo where a
# package is missing.
#
#   bash scripts/test.sh
#
# FRONTIERD_JOBS=n overrides the build and test parallelism (default: nproc).
# FRONTIERD_SANITIZE_BUILD=0 skips the sanitizer build and its run.
# FRONTIERD_DOCKER_CHECK=0 skips building and running the container image
# (docker/check.sh, docs/operations.md#docker: 3 to 6 minutes from cold).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh --test </dev/null
# npm packages the tests run, each pinned in its package.json (no lock
# file): whatwg-url, the oracle of the url_reference test, ioredis, for
# the Node.js example worker, and @grpc/grpc-js, for the URL Frontier smoke
# test.
for dir in tests/url_reference clients/examples/node tests/urlfrontier_node; do
  npm install --no-audit --no-fund --no-package-lock --silent \
    --prefix "$dir" </dev/null
done

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

# The container image, built and run without a registry (as root: sudo
# where it needs no password). Status 77: it cannot run here (not root, no
# podman or debootstrap); it said why.
if [ "${FRONTIERD_DOCKER_CHECK:-1}" != "0" ]; then
  as_root=()
  if [ "$(id -u)" -ne 0 ] && sudo -n true 2>/dev/null; then as_root=(sudo -n); fi
  docker_status=0
  "${as_root[@]}" bash docker/check.sh </dev/null || docker_status=$?
  if [ "$docker_status" = 77 ]; then
    echo "test.sh: docker/check.sh skipped (reason above)" >&2
  elif [ "$docker_status" != 0 ]; then
    exit "$docker_status"
  fi
fi

# The same suite again under AddressSanitizer and UndefinedBehaviorSanitizer
# (leaks included), in build-asan/. It is built with clang so that the
# libFuzzer targets build there too; they run as tests for a fixed number of
# inputs (docs/fuzzing.md). -O1 keeps the sanitized suite fast. Without
# clang the sanitizer build uses the default compiler and has no fuzzers.
# FRONTIERD_SANITIZE_BUILD=0 skips this part (a quick local run).
if [ "${FRONTIERD_SANITIZE_BUILD:-1}" != "0" ]; then
  asan_cxx="clang++"
  fuzz=ON
  if ! command -v clang++ >/dev/null 2>&1; then
    echo "test.sh: clang++ not found: sanitizer build without fuzz targets" >&2
    asan_cxx="${CXX:-c++}"
    fuzz=OFF
  fi
  CXX="$asan_cxx" cmake -S . -B build-asan \
    -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
    -DFRONTIERD_SANITIZE=address,undefined \
    -DFRONTIERD_FUZZ="$fuzz" \
    -DFRONTIERD_WERROR=ON \
    -DFRONTIERD_BUILD_TESTS=ON
  cmake --build build-asan -j "$jobs"
  # Every report stops the process with a non-zero status; frontierd's own
  # reports also fail the test that started it (tests/support).
  ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:print_stacktrace=1:strict_string_checks=1:check_initialization_order=1" \
  UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
  ctest --test-dir build-asan --output-on-failure --no-tests=error \
    -j "$jobs" --timeout 600 </dev/null
fi
