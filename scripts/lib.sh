# Shared defaults for the shell entry points. Sourced, never run.
# Every value can be overridden from the environment; the names are the ones in README.md.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export ROOT
export VAR_DIR=${VAR_DIR:-$ROOT/var}
export VENV=${VENV:-$ROOT/.venv}
export PYTHON=${PYTHON:-$VENV/bin/python}

export MYSQL_HOST=${MYSQL_HOST:-127.0.0.1}
export MYSQL_PORT=${MYSQL_PORT:-13306}
export MYSQL_USER=${MYSQL_USER:-orders}
export MYSQL_PASSWORD=${MYSQL_PASSWORD:-orders-local-password}
export ECOMMERCE_DB_NAME=${ECOMMERCE_DB_NAME:-ecommerce}
export LMS_DB_NAME=${LMS_DB_NAME:-lms}

export LMS_PORT=${LMS_PORT:-18000}
export ECOMMERCE_PORT=${ECOMMERCE_PORT:-18130}
export LOCUST_PORT=${LOCUST_PORT:-8089}
export LMS_URL=${LMS_URL:-http://127.0.0.1:$LMS_PORT}
export ECOMMERCE_URL=${ECOMMERCE_URL:-http://127.0.0.1:$ECOMMERCE_PORT}
export CATALOG_COURSES=${CATALOG_COURSES:-100}

# A second stack (the tests', say) may share this checkout's MariaDB by setting MYSQL_DIR.
MYSQL_DIR=${MYSQL_DIR:-$VAR_DIR/mysql}
MYSQL_SOCKET=$MYSQL_DIR/mysqld.sock
# Static files come from the installed packages only: stacks of one checkout may share them.
export STATIC_DIR=${STATIC_DIR:-$VAR_DIR/static}
LOG_DIR=$VAR_DIR/log
RUN_DIR=$VAR_DIR/run

say() { printf '%s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

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
  if ! wait_exit "$pid" "$wait"; then
    say "$name: still running after ${wait}s, sending SIGKILL"
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$file"
  say "$name: stopped (pid $pid)"
}

# sql_string VALUE: VALUE as a single-quoted SQL string literal (quotes and backslashes escaped).
sql_string() {
  local value=${1//\\/\\\\}
  printf "'%s'" "${value//\'/\'\'}"
}

# require_identifier NAME VALUE: VALUE must be a plain SQL identifier (letters, digits, _).
require_identifier() {
  [[ $2 =~ ^[A-Za-z0-9_]+$ ]] || die "$1 must contain only letters, digits and _ (got '$2')"
}

# port_in_use PORT: true when something listens on 127.0.0.1:PORT.
port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}
