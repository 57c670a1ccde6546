#!/usr/bin/env bash
# Installs every Debian package frontierd needs to build, run and test.
# Idempotent; uses sudo when not run as root.
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
  clang libclang-rt-14-dev \
  >/dev/null
