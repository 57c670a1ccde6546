# shellcheck shell=bash disable=SC2154
# Functions of docker/check.sh (sourced, not run): the base image, the two
# ways to run the image (podman, or a chroot of its root filesystem), and the
# client checks. They read and set check.sh's globals: work, tag, image,
# runner, and those set here (podman_global, run_flags, port, upid, rootfs,
# image_*).

log() { printf 'docker/check.sh: %s\n' "$*" >&2; }
fail() { log "FAIL: $*"; exit 1; }
skip() { log "SKIP: $*"; exit 77; }

# --- the base image -----------------------------------------------------------

# Prints the URI of the first enabled "deb" source apt has for SUITE, from
# one-line (.list) or deb822 (.sources) files; nothing if there is none.
apt_uri() {
  local suite="$1" f
  {
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
      [ -f "$f" ] || continue
      awk -v s="$suite" '
        $1 == "deb" {
          i = 2
          if ($i ~ /^\[/) { while (i < NF && $i !~ /\]$/) i++; i++ }
          if ($(i + 1) == s) print $i
        }' "$f"
    done
    for f in /etc/apt/sources.list.d/*.sources; do
      [ -f "$f" ] || continue
      awk -v s="$suite" '
        BEGIN { RS = ""; FS = "\n" }
        {
          types = ""; uris = ""; suites = ""; enabled = "yes"
          for (i = 1; i <= NF; i++) {
            if ($i ~ /^#/) continue
            k = tolower($i); sub(/:.*/, "", k)
            v = $i; sub(/^[^:]*:[ \t]*/, "", v)
            if (k == "types") types = v
            else if (k == "uris") uris = v
            else if (k == "suites") suites = v
            else if (k == "enabled") enabled = tolower(v)
          }
          if ((" " types " ") ~ / deb / && (" " suites " ") ~ (" " s " ") &&
              enabled != "no") { split(uris, u, " "); print u[1] }
        }' "$f"
    done
  } | sed -n 1p
}

# Writes a tarball of a minimal bookworm (debootstrap --variant=minbase) to
# OUT, from the mirror apt uses here, with apt pointed at that mirror (and
# its bookworm-updates and bookworm-security, where apt has them). dpkg runs
# with force-unsafe-io, as in Debian's own container images
# (docker-apt-speedup): no fsync per file, which halves debootstrap's time
# here and speeds up every apt-get of the image build.
make_base_tar() {
  local out="$1" mirror root suite uri
  mirror="$(apt_uri bookworm)"
  [ -n "$mirror" ] ||
    fail "apt has no 'bookworm' source in /etc/apt/sources.list*: no mirror to debootstrap from"
  root="$work/base"
  log "debootstrap --variant=minbase bookworm from $mirror"
  if ! timeout 1200 debootstrap --foreign --variant=minbase bookworm "$root" "$mirror" \
      >"$work/debootstrap.log" 2>&1 ||
    ! echo force-unsafe-io >"$root/etc/dpkg/dpkg.cfg.d/docker-apt-speedup" ||
    ! timeout 1200 chroot "$root" /debootstrap/debootstrap --second-stage \
      >>"$work/debootstrap.log" 2>&1; then
    tail -n 30 "$work/debootstrap.log" >&2
    fail "debootstrap failed (log above)"
  fi
  {
    echo "deb $mirror bookworm main"
    for suite in bookworm-updates bookworm-security; do
      uri="$(apt_uri "$suite")"
      [ -z "$uri" ] || echo "deb $uri $suite main"
    done
  } >"$root/etc/apt/sources.list"
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/cache/apt/*.bin \
    "$root"/var/lib/apt/lists/*
  tar --numeric-owner -C "$root" -cf "$out.part" .
  mv "$out.part" "$out"
  remove_tree "$root"
}

# rm -rf DIR, unless something is still mounted under it (a /dev bound
# there must not be emptied): then it is left, with a message.
remove_tree() {
  if grep -qF " $1" /proc/self/mounts; then
    log "still mounted under $1: left in place"
  else
    rm -rf "$1"
  fi
}

# use_storage DRIVER: every later podman command uses the graph root
# $cache/storage-DRIVER.
use_storage() {
  cat >"$work/storage.conf" <<EOF
[storage]
driver = "$1"
graphroot = "$cache/storage-$1"
runroot = "/run/frontierd-docker-check/$1"
EOF
  export CONTAINERS_STORAGE_CONF="$work/storage.conf"
}

# --- what the image says about itself ----------------------------------------

# Sets image_cmd (entrypoint + command), image_env, image_user,
# image_workdir, image_volume (the first VOLUME) and image_health (the
# HEALTHCHECK as a command line) from IMAGE's configuration.
read_image_config() {
  local img="$1"
  # One line per element; inspect adds a blank line at the end.
  inspect() { podman image inspect --format "$1" "$img" | sed '/^$/d'; }
  mapfile -t image_cmd < <(inspect \
    '{{range .Config.Entrypoint}}{{println .}}{{end}}{{range .Config.Cmd}}{{println .}}{{end}}')
  mapfile -t image_env < <(inspect '{{range .Config.Env}}{{println .}}{{end}}')
  mapfile -t image_health < <(inspect \
    '{{if .HealthCheck}}{{range .HealthCheck.Test}}{{println .}}{{end}}{{end}}')
  image_workdir="$(inspect '{{.Config.WorkingDir}}')"
  # shellcheck disable=SC2016
  image_volume="$(inspect '{{range $v, $_ := .Config.Volumes}}{{println $v}}{{end}}' | sed -n 1p)"
  image_user="$(inspect '{{.Config.User}}')"
  [ "${#image_cmd[@]}" -gt 0 ] || fail "the image has no CMD"
  [ -n "$image_volume" ] || fail "the image declares no VOLUME for its data"
  case "${image_health[0]:-}" in
    CMD-SHELL) image_health=(/bin/sh -c "${image_health[1]}") ;;
    CMD) image_health=("${image_health[@]:1}") ;;
    *) fail "the image has no HEALTHCHECK (built without --format docker?)" ;;
  esac
}

# --- running it with podman ---------------------------------------------------

# Finds podman flags with which a container of IMAGE starts here, into
# podman_global and run_flags; returns 1 if none does. Tried in order: the
# defaults; the file and process limits set to what this shell may have
# (podman asks for more, which a runtime without CAP_SYS_RESOURCE cannot
# set); then the same with runc, which also runs on a host whose cgroup v2
# hierarchy holds controllers next to v1 ones, where crun refuses to.
podman_can_run() {
  local runtime limits out
  local nofile
  nofile="$(ulimit -Hn)"
  for runtime in "" runc; do
    if [ -n "$runtime" ] && ! command -v "$runtime" >/dev/null 2>&1; then
      log "podman: $runtime not installed"
      continue
    fi
    for limits in no yes; do
      podman_global=()
      run_flags=()
      [ -z "$runtime" ] || podman_global=(--runtime "$runtime")
      [ "$limits" = no ] ||
        run_flags=(--ulimit "nofile=$nofile:$nofile" --ulimit nproc=4096:4096)
      if out="$(timeout 60 podman "${podman_global[@]}" run --rm \
          "${run_flags[@]}" --entrypoint true "$image" 2>&1)"; then
        return 0
      fi
      log "podman ${podman_global[*]} run ${run_flags[*]}: cannot start: $(echo "$out" | tail -n 1)"
    done
  done
  podman_global=()
  run_flags=()
  return 1
}

# Prints a TCP port free on 127.0.0.1.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# --- running it in a chroot ---------------------------------------------------

# Unpacks the image's root filesystem into rootfs and turns image_user into
# "uid:gid" from the image's own /etc/passwd.
export_rootfs() {
  local ctr entry
  rootfs="$work/rootfs"
  mkdir -p "$rootfs" "$work/data"
  ctr="$(podman create "$image" 2>>"$work/podman-export.log")"
  podman export "$ctr" | tar -C "$rootfs" -x
  podman rm -v "$ctr" >>"$work/podman-export.log" 2>&1
  mkdir -p "$rootfs/proc" "$rootfs/dev" "$rootfs$image_volume"
  if [ -z "$image_user" ]; then
    image_user="0:0"
  elif ! [[ "$image_user" =~ ^[0-9]+(:[0-9]+)?$ ]]; then
    entry="$(awk -F: -v u="${image_user%%:*}" '$1 == u { print $3 ":" $4 }' "$rootfs/etc/passwd")"
    [ -n "$entry" ] || fail "user $image_user is not in the image's /etc/passwd"
    image_user="$entry"
  fi
  # A new named volume takes the owner of the image's directory; so does
  # this one.
  chown --reference="$rootfs$image_volume" "$work/data"
}

# The container's own network (loopback only), mounts and PIDs, as podman
# would give it; the mounts vanish with the namespace.
# shellcheck disable=SC2016
chroot_script='
set -e
rootfs="$1" data="$2" volume="$3" user="$4" workdir="$5" envfile="$6"
shift 6
ip link set lo up
mount --bind "$data" "$rootfs$volume"
mount -t proc proc "$rootfs/proc"
mount --rbind /dev "$rootfs/dev"
mapfile -t env_vars <"$envfile"
exec chroot --userspec="$user" "$rootfs" /usr/bin/env -i "${env_vars[@]}" \
  /bin/sh -c "cd \"\$0\" && exec \"\$@\"" "$workdir" "$@"
'

# Runs COMMAND... as the image's user in the chroot, inside the namespaces
# of the running server (upid); with --alone, in a network of its own
# where nothing listens. 30 s at most.
in_chroot() {
  local enter=(nsenter --target "$upid" --net --mount)
  if [ "$1" = --alone ]; then
    shift
    enter=(unshare --net)
  fi
  timeout 30 "${enter[@]}" chroot --userspec="$image_user" "$rootfs" \
    /usr/bin/env -i "${image_env[@]}" "$@"
}

# The PID of the server: unshare's only child.
chroot_server_pid() {
  awk '{ print $1 }' "/proc/$upid/task/$upid/children" 2>/dev/null
}

# --- the two runners behind one interface ---------------------------------------

# start_server N [ARG...]: starts the image (the Nth time) with its data on
# the same volume as before, its command followed by ARGs, and waits (at
# most 60 s) until it answers PING.
start_server() {
  local n="$1"
  shift
  if [ "$runner" = podman ]; then
    port="$(free_port)"
    podman "${podman_global[@]}" run -d --name "$tag-$n" "${run_flags[@]}" \
      -p "127.0.0.1:$port:7379" -v "$tag-data:$image_volume" \
      "$image" "${image_cmd[@]}" "$@" >"$work/podman-run-$n.log" 2>&1 || {
      cat "$work/podman-run-$n.log" >&2
      fail "podman run failed"
    }
  else
    printf '%s\n' "${image_env[@]}" >"$work/env"
    unshare --net --mount --pid --fork --kill-child \
      bash -c "$chroot_script" chroot-run "$rootfs" "$work/data" "$image_volume" \
      "$image_user" "${image_workdir:-/}" "$work/env" "${image_cmd[@]}" "$@" \
      >"$work/server-$n.log" 2>&1 &
    upid=$!
  fi
  for _ in $(seq 1 120); do
    [ "$(cli PING 2>/dev/null)" != PONG ] || return 0
    if ! server_alive "$n"; then
      server_log "$n"
      fail "the server of start $n exited"
    fi
    sleep 0.5
  done
  server_log "$n"
  fail "no PONG within 60 s of start $n"
}

server_alive() {
  if [ "$runner" = podman ]; then
    [ "$(podman inspect -f "{{.State.Running}}" "$tag-$1" 2>/dev/null)" = true ]
  else
    kill -0 "$upid" 2>/dev/null
  fi
}

server_log() {
  if [ "$runner" = podman ]; then
    podman logs "$tag-$1" 2>&1 | tail -n 30 >&2
  else
    tail -n 30 "$work/server-$1.log" >&2
  fi
}

# Stops the server of start N with SIGTERM, as `docker stop` does, and
# fails unless it exits with status 0 within 30 s (a clean checkpoint).
stop_server() {
  local n="$1" status _ pid
  if [ "$runner" = podman ]; then
    timeout 60 podman "${podman_global[@]}" stop -t 30 "$tag-$n" \
      >>"$work/podman-run-$n.log" 2>&1
    status="$(podman inspect -f '{{.State.ExitCode}}' "$tag-$n")"
    podman rm -v "$tag-$n" >>"$work/podman-run-$n.log" 2>&1
  else
    pid="$(chroot_server_pid)"
    [ -n "$pid" ] && kill -TERM "$pid"
    for _ in $(seq 1 60); do
      kill -0 "$upid" 2>/dev/null || break
      sleep 0.5
    done
    if kill -0 "$upid" 2>/dev/null; then
      kill -KILL "$upid"
    fi
    status=0
    wait "$upid" || status=$?
    upid=""
  fi
  if [ "$status" != 0 ]; then
    server_log "$n"
    fail "start $n: exit status $status after SIGTERM, want 0"
  fi
}

# redis-cli against the running server (10 s at most), authenticated with
# $password when it is set.
cli() {
  if [ -n "${password:-}" ]; then
    export REDISCLI_AUTH="$password"
  else
    unset REDISCLI_AUTH
  fi
  if [ "$runner" = podman ]; then
    timeout 10 redis-cli -h 127.0.0.1 -p "$port" "$@"
  else
    timeout 10 nsenter --target "$upid" --net redis-cli -p 7379 "$@"
  fi
}

# expect WANT COMMAND...: the reply of COMMAND must be WANT.
expect() {
  local want="$1" got
  shift
  got="$(cli "$@" 2>&1)" || true
  [ "$got" = "$want" ] || fail "$*: got '$got', want '$want'"
}

# expect_field WANT URL FIELD: URLINFO URL has FIELD = WANT.
expect_field() {
  local want="$1" url="$2" field="$3" got
  got="$(cli URLINFO "$url" | awk -v f="$field" 'prev == f { print; exit } { prev = $0 }')"
  [ "$got" = "$want" ] || fail "URLINFO $url: $field is '$got', want '$want'"
}

# check_healthcheck N: the image's HEALTHCHECK passes against the server of
# start N.
check_healthcheck() {
  if [ "$runner" = podman ]; then
    timeout 60 podman "${podman_global[@]}" healthcheck run "$tag-$1" \
      >>"$work/podman-run-$1.log" 2>&1 ||
      fail "podman healthcheck run: unhealthy with a running server (start $1)"
  else
    in_chroot "${image_health[@]}" >/dev/null ||
      fail "health check '${image_health[*]}': fails with a running server (start $1)"
  fi
}

# The image's HEALTHCHECK fails where no server answers (it tests something).
check_healthcheck_fails_alone() {
  local status=0
  if [ "$runner" = podman ]; then
    timeout 60 podman "${podman_global[@]}" run --rm "${run_flags[@]}" \
      --entrypoint "${image_health[0]}" "$image" "${image_health[@]:1}" \
      >/dev/null 2>&1 || status=$?
  else
    in_chroot --alone "${image_health[@]}" >/dev/null 2>&1 || status=$?
  fi
  [ "$status" != 0 ] || fail "the health check passes with no server running"
}

# Removes what this run made (containers, volume, namespaces, temporary
# files); the base and built images stay as the cache of the next run.
cleanup() {
  local rc=$? n
  if [ "${runner:-}" = podman ]; then
    for n in 1 2; do
      podman "${podman_global[@]}" rm -f -v -t 0 "$tag-$n" >/dev/null 2>&1 || true
    done
    podman volume rm -f "$tag-data" >/dev/null 2>&1 || true
  fi
  if [ -n "${upid:-}" ] && kill -0 "$upid" 2>/dev/null; then
    kill -KILL "$upid" 2>/dev/null || true
    wait "$upid" 2>/dev/null || true
  fi
  remove_tree "$work"
  exit "$rc"
}
