#!/usr/bin/env bash
# Builds docker/Dockerfile and runs the image on this machine without any
# container registry, then checks what a user of the image relies on:
#
#   1. a Debian bookworm base image made with debootstrap (minbase) from the
#      mirror apt already uses here, cached as a tarball in
#      ${FRONTIERD_DOCKER_CACHE:-${XDG_CACHE_HOME:-/var/cache}/frontierd-docker}
#      and imported as localhost/frontierd-bookworm-base into a podman
#      storage of the script's own in the same directory;
#   2. `podman build` of docker/Dockerfile on it (DEBIAN_IMAGE build
#      argument; layers cached in that storage between runs);
#   3. the image started with `podman run` (port published on 127.0.0.1
#      only) or, where no container runtime can start, its exported root
#      filesystem run in a chroot, in private network, mount and PID
#      namespaces, with the image's command, user and working directory;
#   4. PING, ADD, POP, the image's HEALTHCHECK command (and that it fails
#      with no server), a stop with SIGTERM that exits 0, and a second
#      start on the same data, with --requirepass, that still knows the
#      URLs and the lease.
#
#   bash docker/check.sh [--mode auto|podman|chroot] [--fresh]
#
# --fresh rebuilds the base image and builds without the layer cache (a cold
# run). Exit status: 0 passed, 1 failed, 77 skipped (not root, or podman,
# debootstrap or redis-cli missing: scripts/install-deps.sh --test). Timings
# are in docs/operations.md#docker. Every wait is bounded; containers,
# volumes and temporary directories are removed on exit.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source docker/check-lib.sh

mode=auto
fresh=0
while [ $# -gt 0 ]; do
  case "$1" in
    --mode) mode="${2:-}"; shift; [ $# -eq 0 ] || shift ;;
    --fresh) fresh=1; shift ;;
    -h | --help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "usage: $0 [--mode auto|podman|chroot] [--fresh]" >&2; exit 2 ;;
  esac
done
case "$mode" in auto | podman | chroot) ;; *) fail "--mode: auto, podman or chroot" ;; esac

[ "$(id -u)" -eq 0 ] || skip "needs root (debootstrap, rootful podman, chroot)"
for tool in debootstrap podman redis-cli python3 timeout flock; do
  command -v "$tool" >/dev/null 2>&1 ||
    skip "$tool not found (bash scripts/install-deps.sh --test)"
done

cache="${FRONTIERD_DOCKER_CACHE:-${XDG_CACHE_HOME:-/var/cache}/frontierd-docker}"
base_tar="$cache/bookworm-minbase.tar"
base_image=localhost/frontierd-bookworm-base:latest
image=localhost/frontierd-check:latest
tag="frontierd-check-$$"
work="$(mktemp -d "${TMPDIR:-/tmp}/frontierd-docker-check.XXXXXX")"
trap cleanup EXIT
mkdir -p "$cache"
started=$SECONDS
# One run at a time per cache: they share the storage and the image names.
exec 9>"$cache/lock"
flock -w 1800 9 || fail "another docker/check.sh held $cache/lock for 30 minutes"

# --- 1. the base image ------------------------------------------------------
# A podman storage of its own under the cache (its layers are the warm
# cache; --fresh empties it), so the machine's other images are never
# touched: overlay where the kernel allows it, else vfs.
if [ "$fresh" = 1 ]; then
  rm -f "$base_tar"
  for driver in overlay vfs; do
    use_storage "$driver"
    podman rmi -a -f >/dev/null 2>&1 || true
    remove_tree "$cache/storage-$driver"
  done
fi
use_storage overlay
if ! podman info >"$work/podman-info.log" 2>&1; then
  log "podman: overlay storage unavailable ($(tail -n 1 "$work/podman-info.log")): using vfs"
  use_storage vfs
  podman info >/dev/null || fail "podman cannot open its storage"
fi

phase=$SECONDS
if [ ! -f "$base_tar" ]; then
  make_base_tar "$base_tar"
  podman rmi -f "$base_image" >/dev/null 2>&1 || true
fi
if ! podman image exists "$base_image"; then
  podman import --change 'CMD ["bash"]' "$base_tar" "$base_image" \
    >"$work/import.log" 2>&1 || { cat "$work/import.log" >&2; fail "podman import failed"; }
fi
log "base image: $((SECONDS - phase)) s"

# --- 2. the image -------------------------------------------------------------
# --format docker: the OCI image format has no HEALTHCHECK, podman would drop
# it. --isolation chroot: RUN steps need no OCI runtime (none may start).
phase=$SECONDS
# --jobs 2: the runtime stage's apt-get runs while the build stage compiles.
build_flags=(--format docker --isolation chroot --pull=never --layers --jobs 2)
[ "$fresh" = 1 ] && build_flags+=(--no-cache)
if ! timeout 1800 podman build "${build_flags[@]}" \
    --build-arg DEBIAN_IMAGE="$base_image" \
    -f docker/Dockerfile -t "$image" . 2>&1 |
    while IFS= read -r line; do printf '%4d %s\n' "$((SECONDS - phase))" "$line"; done \
      >"$work/build.log"; then
  tail -n 40 "$work/build.log" >&2
  fail "podman build failed (log above)"
fi
cp "$work/build.log" "$cache/last-build.log"
log "image build: $((SECONDS - phase)) s ($(podman image inspect -f '{{.Size}}' "$image") bytes)"

# --- 3 and 4. run it and check it -------------------------------------------
read_image_config "$image"
phase=$SECONDS
if [ "$mode" != chroot ] && podman_can_run; then
  runner=podman
elif [ "$mode" = podman ]; then
  fail "no container runtime starts here (--mode podman)"
else
  for tool in unshare nsenter ip chroot; do
    command -v "$tool" >/dev/null 2>&1 ||
      skip "no container runtime starts here, and $tool (for the chroot) is missing"
  done
  runner=chroot
  export_rootfs
fi
how="chroot (unshare --net --mount --pid)"
[ "$runner" = chroot ] || how="podman ${podman_global[*]} run ${run_flags[*]}"
log "running the image with: $how"

start_server 1
expect PONG PING
expect 1 ADD https://example.com/ PRIORITY 10
expect 1 ADD https://example.org/ PRIORITY 20
expect https://example.com/ POP
check_healthcheck 1
check_healthcheck_fails_alone
stop_server 1

# Again on the same data, with a password as README.md#docker shows: the
# URLs and the lease are still there, and the health check (PING needs no
# password) still passes.
start_server 2 --requirepass check-secret
expect "NOAUTH Authentication required." ADD https://example.net/
password=check-secret
expect 0 ADD https://example.com/
expect_field leased https://example.com/ state
expect https://example.org/ POP
expect "" POP
check_healthcheck 2
stop_server 2

log "PASS ($how): PING, ADD, POP, health check, restart on the same data;" \
  "checks $((SECONDS - phase)) s, total $((SECONDS - started)) s"
