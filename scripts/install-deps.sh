#!/usr/bin/env bash
# Installs every Debian package frontierd needs to build and run; with
# --test, also what the test suite drives (a browser, promtool, curl, protego,
# podman, Node.js). Idempotent; uses sudo when not run as root.
#
#   bash scripts/install-deps.sh [--test]
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  build-essential cmake pkg-config \
  libevent-dev libdb5.3++-dev libssl-dev liburiparser-dev libpsl-dev \
  libxxhash-dev libjemalloc-dev libhiredis-dev libgtest-dev googletest redis-tools \
  redis-server openssl \
  libidn2-dev libunistring-dev libcurl4-openssl-dev libgumbo-dev libre2-dev \
  >/dev/null
if [ "${1:-}" != "--test" ]; then exit 0; fi
$SUDO apt-get install -y -qq --no-install-recommends \
  clang libclang-rt-14-dev \
  python3 python3-protego python3-redis \
  prometheus chromium curl \
  podman buildah debootstrap runc \
  >/dev/null
# Node.js runs the URL reference (whatwg-url) and the ioredis example; the
# machine image ships it, a bare bookworm gets Debian's.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  $SUDO apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
