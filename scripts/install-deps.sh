#!/usr/bin/env bash
# Installs every Debian package frontierd needs to build and run; with
# --test, also what the test suite drives (a browser, promtool, curl, protego,
# podman, Node.js, grpcio). Idempotent: asks dpkg first and runs apt-get (as root,
# with sudo when not root) only for packages that are not installed, so a
# machine that has them all needs neither root nor the dpkg lock.
#
#   bash scripts/install-deps.sh [--test]
set -euo pipefail

BUILD_PACKAGES=(
  build-essential cmake pkg-config
  libevent-dev libdb5.3++-dev libssl-dev liburiparser-dev libpsl-dev
  libxxhash-dev libjemalloc-dev libhiredis-dev libgtest-dev googletest redis-tools
  redis-server openssl
  libidn2-dev libunistring-dev libcurl4-openssl-dev libgumbo-dev libre2-dev
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
)
TEST_PACKAGES=(
  clang libclang-rt-14-dev
  python3 python3-protego python3-redis python3-scrapy python3-venv
  python3-yaml
  python3-grpcio python3-protobuf
  etcd-server etcd-client
  prometheus chromium curl
  podman buildah debootstrap runc
)

# Prints the packages of "$@" that dpkg does not have installed (all of
# them where there is no dpkg-query).
missing() {
  local p
  for p in "$@"; do
    if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
        grep -q "^install ok installed$"; then
      echo "$p"
    fi
  done
}

# Installs "$@" with apt-get, updating the package lists first.
apt_install() {
  [ $# -gt 0 ] || return 0
  echo "install-deps.sh: installing $*" >&2
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  if [ -z "${updated:-}" ]; then
    "${sudo[@]}" apt-get update -qq
    updated=1
  fi
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

mapfile -t todo < <(missing "${BUILD_PACKAGES[@]}")
apt_install "${todo[@]}"
if [ "${1:-}" != "--test" ]; then exit 0; fi
mapfile -t todo < <(missing "${TEST_PACKAGES[@]}")
apt_install "${todo[@]}"
# Debian's etcd-server starts a service on the default ports where systemd
# runs; the tests start their own etcd, so once it is installed here the
# service is stopped and disabled (a machine that had it is left alone).
if printf '%s\n' "${todo[@]}" | grep -qx etcd-server &&
    command -v systemctl >/dev/null 2>&1; then
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
  "${sudo[@]}" systemctl disable --now etcd >/dev/null 2>&1 || true
fi
# Node.js runs the URL reference (whatwg-url) and the ioredis example; the
# machine image ships it, a bare bookworm gets Debian's.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  apt_install nodejs npm
fi
