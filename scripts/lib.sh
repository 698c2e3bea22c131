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
LOG_DIR=$VAR_DIR/log
RUN_DIR=$VAR_DIR/run

say() { printf '%s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# pid_alive FILE [PATTERN]: true when FILE names a running process whose command line
# contains PATTERN (default: the file's base name), so a stale pid file that names some other
# process after a reboot is never trusted, nor that process signalled.
pid_alive() {
  local file=$1 pattern=${2:-$(basename "$1" .pid)} pid
  [ -s "$file" ] || return 1
  pid=$(cat "$file")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$pattern"
}

# stop_pid FILE NAME PATTERN [SECONDS]: SIGTERM the process named in FILE and its process
# group (a gunicorn master and its workers), wait, then SIGKILL the group.
stop_pid() {
  local file=$1 name=$2 pattern=$3 wait=${4:-45} pid i
  if ! pid_alive "$file" "$pattern"; then
    rm -f "$file"
    say "$name: not running"
    return 0
  fi
  pid=$(cat "$file")
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < wait * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
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
