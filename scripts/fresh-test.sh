#!/usr/bin/env bash
# `make fresh-test`: the README's commands, as a new user runs them, on a Debian bookworm root
# nothing was installed on: a clean clone of HEAD, then `make up`, a smoke run, `make down` and
# `make test` as root, each phase timed. What the machine it runs on has installed cannot help.
#
# The base root is a pristine `debootstrap --variant=minbase --include=make` (make: what a user
# types first), cached under FRESH_DIR/base and rebuilt when missing. Each run works on a fresh
# copy of it (FRESH_DIR/root), so nothing from one run reaches the next; the copy is kept until
# the next run for a look after a failure (FRESH_DIR/log has each phase's output).
#
# The run happens in namespaces of its own (unshare --mount --pid): the root's /proc, /dev,
# /dev/shm and /sys are mounted there, its /tmp is its own, and every mount and process dies
# with the namespace, also on a failure, Ctrl-C or kill. The host's network is shared, so the
# stack listens on FRESH_*_PORT (not a running stack's ports); `make test` picks free ports.
#
#   scripts/fresh-test.sh            build the base if missing, then run every phase
#   scripts/fresh-test.sh base       build the base if missing
#   scripts/fresh-test.sh programs   the programs of the base (tests/unit/data/base-programs.txt)
set -euo pipefail
source "$(dirname "$0")/lib.sh"

BASE=$FRESH_DIR/base
RUN_ROOT=$FRESH_DIR/root
FRESH_LOG=$FRESH_DIR/log
PROJECT=/root/project
PHASES="up smoke down test"

# debian_mirror: the Debian mirror this machine's apt uses (its first bookworm source).
debian_mirror() {
  local uri
  uri=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '
    /^URIs:/ { uris = $2 } /^Suites:/ && / bookworm( |$)/ && uris != "" { print uris; exit }')
  [ -n "$uri" ] || uri=$(awk '$1 == "deb" && / bookworm / { print ($2 ~ /^\[/ ? $3 : $2); exit }' \
    /etc/apt/sources.list 2>/dev/null)
  echo "${uri:-http://deb.debian.org/debian}"
}

# build_base: the cached pristine root; a half-built one (no stamp) is built again.
build_base() {
  [ -f "$BASE/.fresh-test-base" ] && return 0
  local mirror=${FRESH_MIRROR:-$(debian_mirror)} started=$SECONDS
  say "fresh-test: building the base root (debootstrap bookworm minbase from $mirror)"
  rm -rf "$BASE" "$BASE.partial"
  mkdir -p "$FRESH_DIR"
  debootstrap --variant=minbase --include=make bookworm "$BASE.partial" "$mirror" \
    >"$FRESH_DIR/debootstrap.log" 2>&1 || die "debootstrap failed; see $FRESH_DIR/debootstrap.log"
  echo "debootstrap --variant=minbase --include=make bookworm $mirror" >"$BASE.partial/.fresh-test-base"
  mv "$BASE.partial" "$BASE"
  say "fresh-test: base root built in $((SECONDS - started)) s"
}

# base_programs: every program on the base root's PATH, one a line, sorted.
base_programs() {
  local dir
  for dir in usr/local/sbin usr/local/bin usr/sbin usr/bin sbin bin; do
    [ -d "$BASE/$dir" ] && find "$BASE/$dir/" -maxdepth 1 \( -type f -o -type l \) -printf '%f\n'
  done | LC_ALL=C sort -u
}

# fresh_root: a new copy of the base, the host's name resolution, a clean clone of HEAD.
fresh_root() {
  local commit
  commit=$(git -C "$ROOT" rev-parse HEAD)
  git -C "$ROOT" diff --quiet HEAD 2>/dev/null || say "fresh-test: uncommitted changes are not tested (HEAD is $commit)"
  rm -rf "$RUN_ROOT" "$FRESH_LOG"
  mkdir -p "$FRESH_LOG"
  cp -a "$BASE" "$RUN_ROOT"
  network_settings
  git clone -q --no-hardlinks "$ROOT" "$RUN_ROOT$PROJECT"
  git -C "$RUN_ROOT$PROJECT" checkout -q --detach "$commit"
  say "fresh-test: $commit in $RUN_ROOT$PROJECT"
}

# network_settings: what a new machine of this kind has before anything is installed to reach
# the registries: name resolution, the site's own certificate authorities (the ca-certificates
# package, which bootstrap installs, adds them to the system store) and pip's settings.
network_settings() {
  local file
  for file in /etc/resolv.conf /etc/hosts /etc/pip.conf /usr/local/share/ca-certificates/*.crt; do
    [ -f "$file" ] && install -D -m 644 "$file" "$RUN_ROOT$file"
  done
  return 0
}

# mount_root: inside the namespace, the root's own /proc, /sys (read-only), /dev and /dev/shm.
mount_root() {
  local node
  mount -t proc proc "$RUN_ROOT/proc"
  mount -t sysfs -o ro sysfs "$RUN_ROOT/sys"
  mount -t tmpfs -o mode=755,nosuid dev "$RUN_ROOT/dev"
  for node in null zero full random urandom tty; do
    touch "$RUN_ROOT/dev/$node"
    mount --bind "/dev/$node" "$RUN_ROOT/dev/$node"
  done
  mkdir -p "$RUN_ROOT/dev/pts" "$RUN_ROOT/dev/shm"
  mount -t devpts -o newinstance,ptmxmode=0666 devpts "$RUN_ROOT/dev/pts"
  ln -s pts/ptmx "$RUN_ROOT/dev/ptmx"
  mount -t tmpfs -o mode=1777,nosuid,nodev shm "$RUN_ROOT/dev/shm"
  ln -s /proc/self/fd "$RUN_ROOT/dev/fd"
}

# in_root CMD...: CMD in the root's project folder, as root, with a new user's environment.
in_root() {
  chroot "$RUN_ROOT" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 TERM="${TERM:-dumb}" LMS_PORT="$FRESH_LMS_PORT" ECOMMERCE_PORT="$FRESH_ECOMMERCE_PORT" \
    LOCUST_PORT="$FRESH_LOCUST_PORT" MYSQL_PORT="$FRESH_MYSQL_PORT" \
    /bin/bash -c 'cd "$0" && exec "$@"' "$PROJECT" "$@"
}

# system_services: the packages' own daemons (bootstrap keeps them from starting), if any run.
system_services() {
  local comm pid name
  for comm in "$RUN_ROOT"/proc/[0-9]*/comm; do
    grep -sxE 'supervisord|haproxy|mariadbd|mysqld' "$comm" | while read -r name; do
      pid=${comm%/comm}
      tr '\0' ' ' <"$pid/cmdline" | grep -qv "$PROJECT" && echo "$name (pid ${pid##*/})"
    done
  done
  return 0
}

# phase NAME CMD...: CMD in the root, its output in FRESH_LOG/NAME.log and here, its time noted.
phase() {
  local name=$1 started=$SECONDS status=0
  shift
  say ""
  say "=== fresh-test: $name: $*"
  in_root "$@" 2>&1 | tee "$FRESH_LOG/$name.log" || status=$?
  printf '%s %s %s\n' "$name" "$((SECONDS - started))" "$status" >>"$FRESH_LOG/times"
  return "$status"
}

# inside: pid 1 of the namespaces. Every phase runs (`make down` and `make test` also after a
# failed `make up`); a system daemon left running by an install fails the run.
inside() {
  mount --make-rprivate /
  mount_root
  phase up make up || true
  phase smoke make smoke USERS=2 STEP_SECONDS=5 || true
  no_system_daemons
  phase down make down || true
  phase test make test || true
  no_system_daemons
}

# no_system_daemons: notes a failed "daemons" phase when a package's own daemon runs.
no_system_daemons() {
  local daemons
  daemons=$(system_services)
  [ -z "$daemons" ] && return 0
  say "fresh-test: system daemons running (an install started them): $daemons"
  echo "daemons 0 1" >>"$FRESH_LOG/times"
}

# report: each phase's time and result; false if any failed or did not run.
report() {
  local name seconds status ok=0
  say ""
  say "fresh-test: phase times (this machine: $(nproc) cores)"
  for name in $PHASES daemons; do
    read -r _ seconds status < <(grep "^$name " "$FRESH_LOG/times" 2>/dev/null) || { seconds=- status=missing; }
    [ "$name" = daemons ] && [ "$status" = missing ] && continue
    [ "$status" = 0 ] || ok=1
    say "$(printf '  %-6s %6s s  %s' "$name" "$seconds" "$([ "$status" = 0 ] && echo passed || echo "FAILED ($status)")")"
  done
  return "$ok"
}

# leftovers: mounts under the root or processes whose root is it, seen from the host.
leftovers() {
  local found=0 link
  if grep -q " $RUN_ROOT[/ ]" /proc/mounts; then
    say "fresh-test: mounts left: $(grep " $RUN_ROOT[/ ]" /proc/mounts | cut -d' ' -f2 | tr '\n' ' ')"
    found=1
  fi
  for link in /proc/[0-9]*/root; do
    if [ "$(readlink "$link" 2>/dev/null)" = "$RUN_ROOT" ]; then
      say "fresh-test: process left: ${link//[^0-9]/}"
      found=1
    fi
  done
  return "$found"
}

run_all() {
  [ "$(id -u)" -eq 0 ] || die "fresh-test needs root (debootstrap, chroot, mounts)"
  command -v debootstrap >/dev/null || die "debootstrap not found (scripts/bootstrap.sh installs it)"
  local started=$SECONDS child status=0
  build_base
  fresh_root
  # unshare dies with this script, even killed (setpriv's SIGKILL on its parent's death), and
  # takes the namespace's first process with it (--kill-child), so every process in the
  # namespace, and with the last of them its mounts. unshare ignores SIGINT and SIGTERM (its
  # child would handle them): a stop is SIGKILL.
  setpriv --pdeathsig KILL unshare --mount --pid --fork --kill-child -- "$ROOT/scripts/fresh-test.sh" inside &
  child=$!
  trap 'say "fresh-test: stopping"; kill -KILL "$child" 2>/dev/null; wait "$child"; leftovers; exit 130' INT TERM
  wait "$child" || status=$?
  trap - INT TERM
  leftovers || status=1
  report || status=1
  say "fresh-test: $([ "$status" = 0 ] && echo passed || echo FAILED) in $((SECONDS - started)) s; logs in $FRESH_LOG"
  return "$status"
}

case "${1:-run}" in
  run) run_all ;;
  base) build_base ;;
  programs) build_base && base_programs ;;
  inside) inside ;;
  *) die "usage: scripts/fresh-test.sh [run|base|programs]" ;;
esac
