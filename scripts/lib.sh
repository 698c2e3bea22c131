# What every shell entry point shares: the environment's names and defaults, and helpers.
# Sourced, never run.

# What the scripts and the processes they start write (logs, pid files, databases, run folders)
# is the owner's, readable by its group, never by every user of the machine: a log may hold
# what a request carried.
umask 027

# A message that cannot be written (its terminal or pipe gone) never stops the work it reports on.
say() { printf '%s\n' "$*" >&2 || true; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export ROOT
# Every variable the scripts use, with its default unless the environment sets it: the table of
# common/environment in its shell form (`export NAME=${NAME:-default}` lines; docs/configuration.md).
# The system python3 runs it (python3 -m, from the checkout), before the virtualenv exists.
# A bare Debian may lack python3: as root, install it here (scripts/bootstrap.sh would anyway).
if ! command -v python3 >/dev/null; then
  [ "$(id -u)" -eq 0 ] || die "python3 not found; install it first: sudo apt-get install python3"
  say "installing python3 (it reads common/environment)"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 >/dev/null ||
    die "apt-get install python3 failed"
fi
_environment=$(cd "$ROOT" && python3 -m common.environment --shell) || die "python3 -m common.environment --shell failed"
eval "$_environment"
unset _environment

LOG_DIR=$VAR_DIR/log
RUN_DIR=$VAR_DIR/run

# pid_of FILE: the pid on a pid file's first line (Locust's pid files have its URL after it).
pid_of() { head -n 1 "$1" 2>/dev/null; }

# pid_matches PID PATTERN: true when PID is a running process whose command line contains
# PATTERN.
pid_matches() {
  [[ $1 =~ ^[0-9]+$ ]] || return 1
  kill -0 "$1" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -q -- "$2"
}

# pid_alive FILE [PATTERN]: true when FILE names a running process whose command line
# contains PATTERN (default: the file's base name), so a stale pid file that names some other
# process after a reboot is never trusted, nor that process signalled.
pid_alive() {
  [ -s "$1" ] && pid_matches "$(pid_of "$1")" "${2:-$(basename "$1" .pid)}"
}

# wait_exit PID SECONDS: wait until PID has exited; false if it still runs after SECONDS.
wait_exit() {
  local i
  for ((i = 0; i < $2 * 10; i++)); do
    kill -0 "$1" 2>/dev/null || return 0
    sleep 0.1
  done
  ! kill -0 "$1" 2>/dev/null
}

# stop_pid FILE NAME PATTERN [SECONDS]: SIGTERM the process named in FILE and its process
# group (a gunicorn master and its workers), wait, then SIGKILL the group.
stop_pid() {
  local file=$1 name=$2 pattern=$3 wait=${4:-45} pid
  if ! pid_alive "$file" "$pattern"; then
    rm -f "$file"
    say "$name: not running"
    return 0
  fi
  pid=$(pid_of "$file")
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  await_stop "$file" "$name" "$pid" "$wait"
}

# stop_pids FILE NAME PATTERN [FILE NAME PATTERN ...]: stop_pid for each (45 s), every one
# signalled first and then awaited, so that their graceful stops overlap.
stop_pids() {
  local entries=() file name pattern pid
  while [ $# -ge 3 ]; do
    file=$1 name=$2 pattern=$3
    shift 3
    if ! pid_alive "$file" "$pattern"; then
      rm -f "$file"
      say "$name: not running"
      continue
    fi
    pid=$(pid_of "$file")
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    entries+=("$file" "$name" "$pid")
  done
  while [ ${#entries[@]} -gt 0 ]; do
    await_stop "${entries[0]}" "${entries[1]}" "${entries[2]}" 45
    entries=("${entries[@]:3}")
  done
}

# await_stop FILE NAME PID SECONDS: wait for a signalled PID, SIGKILL its group after SECONDS.
await_stop() {
  local file=$1 name=$2 pid=$3 wait=$4
  if ! wait_exit "$pid" "$wait"; then
    say "$name: still running after ${wait}s, sending SIGKILL"
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$file"
  say "$name: stopped (pid $pid)"
}

# port_in_use PORT: true when something listens on 127.0.0.1:PORT.
port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}
