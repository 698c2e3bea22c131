#!/usr/bin/env bash
# The one place that starts and stops the stack: MariaDB, lms_stub and ecommerce under
# gunicorn, all on 127.0.0.1. Used by `make up/down/run`, the tests and the load suite.
#
#   scripts/stack.sh up       bootstrap, MariaDB, migrate, seed, start both services and the
#                             purchase-counter rollup loop (idempotent)
#   scripts/stack.sh restart  stop and start both services and the rollup (MariaDB stays up),
#                             e.g. to apply other ECOMMERCE_* / DB_POOL / MYSQL_DRIVER settings
#   scripts/stack.sh stop     stop both services and the rollup (MariaDB stays up)
#   scripts/stack.sh down     stop both services and MariaDB
#   scripts/stack.sh status   say what runs
#   scripts/stack.sh urls     print the addresses and the dashboard login
set -euo pipefail
source "$(dirname "$0")/lib.sh"

STAFF_USER=${ECOMMERCE_STAFF_USER:-staff}
STAFF_PASSWORD_FILE=$VAR_DIR/staff-password

manage() { "$PYTHON" "$ROOT/manage.py" "$@"; }
manage_lms() { DJANGO_SETTINGS_MODULE=settings.lms_stub "$PYTHON" "$ROOT/manage.py" "$@"; }

# wait_http URL SECONDS: until URL answers 200.
wait_http() {
  "$PYTHON" - "$1" "$2" <<'PY'
import sys, time, urllib.request
url, deadline = sys.argv[1], time.monotonic() + float(sys.argv[2])
while time.monotonic() < deadline:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            if response.status == 200:
                sys.exit(0)
    except Exception:
        pass
    time.sleep(0.2)
sys.exit(1)
PY
}

staff_password() {
  if [ -n "${ECOMMERCE_STAFF_PASSWORD:-}" ]; then
    printf '%s' "$ECOMMERCE_STAFF_PASSWORD"
  else
    if [ ! -s "$STAFF_PASSWORD_FILE" ]; then
      (umask 077 && "$PYTHON" -c "import secrets; print(secrets.token_urlsafe(15), end='')" >"$STAFF_PASSWORD_FILE")
    fi
    cat "$STAFF_PASSWORD_FILE"
  fi
}

prepare() {
  "$ROOT/scripts/bootstrap.sh"
  "$ROOT/scripts/mysql.sh" up
  mkdir -p "$RUN_DIR" "$LOG_DIR"
  say "stack: migrating"
  manage migrate --noinput -v0
  manage_lms migrate --noinput -v0
  manage seed_catalog --courses "$CATALOG_COURSES" --site-domain "127.0.0.1:$ECOMMERCE_PORT"
  manage collectstatic --noinput -v0
  ECOMMERCE_STAFF_PASSWORD=$(staff_password) manage ensure_staff --username "$STAFF_USER"
}

# start_service NAME CONF PORT [CPUS]: start gunicorn in its own session unless it already
# runs; CPUS (a taskset list such as 0 or 0-3) pins it to those cores.
start_service() {
  local name=$1 conf=$2 port=$3 cpus=${4:-} pidfile=$RUN_DIR/$1.pid pin=()
  if pid_alive "$pidfile"; then
    say "$name: already running (pid $(cat "$pidfile"))"
    return 0
  fi
  if port_in_use "$port"; then
    die "$name: port $port is taken by another program; set its *_PORT variable to a free port"
  fi
  rm -f "$pidfile"
  [ -n "$cpus" ] && pin=(taskset -c "$cpus")
  # With a New Relic license key (or config file) the agent wraps gunicorn; each service
  # reports as its own application, "<NEW_RELIC_APP_NAME or orderservice>-<service>".
  local agent=() app_name=${NEW_RELIC_APP_NAME:-orderservice}-$name
  if [ -n "${NEW_RELIC_LICENSE_KEY:-}${NEW_RELIC_CONFIG_FILE:-}" ]; then
    agent=("$VENV/bin/newrelic-admin" run-program)
    say "$name: under the New Relic agent as \"$app_name\""
  fi
  # exec: no shell lingers as the server's parent holding this script's stdout open.
  (cd "$ROOT" && NEW_RELIC_APP_NAME=$app_name exec setsid "${pin[@]}" "${agent[@]}" "$PYTHON" -m gunicorn -c "$conf" \
    </dev/null >>"$LOG_DIR/$name.out" 2>&1) &
  if ! wait_http "http://127.0.0.1:$port/health/" 60; then
    tail -n 30 "$LOG_DIR/$name.log" "$LOG_DIR/$name.out" >&2 2>/dev/null || true
    die "$name did not become healthy on port $port within 60 s; see $LOG_DIR/$name.log"
  fi
  say "$name: running on http://127.0.0.1:$port (pid $(cat "$pidfile"))"
}

# start_rollup: the loop that folds purchase events into Oscar's product records.
start_rollup() {
  local pidfile=$RUN_DIR/rollup.pid
  if pid_alive "$pidfile" rollup_counters; then
    say "rollup: already running (pid $(cat "$pidfile"))"
    return 0
  fi
  (cd "$ROOT" && exec setsid "$PYTHON" manage.py rollup_counters --loop --interval "${ROLLUP_INTERVAL:-1}" \
    </dev/null >>"$LOG_DIR/rollup.log" 2>&1) &
  echo $! >"$pidfile"
  say "rollup: folding purchase counts every ${ROLLUP_INTERVAL:-1} s (pid $!)"
}

# The settings the services run with, for the load suite (it restarts them when they differ
# from the run's, and records them in its report).
SERVICE_SETTINGS=(ECOMMERCE_WORKER_CLASS ECOMMERCE_WORKERS LMS_WORKER_CLASS LMS_WORKERS
  MYSQL_DRIVER ECOMMERCE_MYSQL_DRIVER LMS_MYSQL_DRIVER DB_POOL ECOMMERCE_DB_POOL LMS_DB_POOL
  DB_POOL_SIZE DB_POOL_TIMEOUT ORDER_COUNTER ECOMMERCE_CPUS LMS_ENROLLMENT_TIMEOUT
  LMS_FAULT_LATENCY_MS LMS_FAULT_JITTER_MS LMS_FAULT_ERROR_RATE CATALOG_COURSES ECOMMERCE_LEARNER_RATE)
record_settings() {
  local name
  for name in "${SERVICE_SETTINGS[@]}"; do printf '%s=%s\n' "$name" "${!name:-}"; done >"$RUN_DIR/stack.env"
}

stop_services() {
  stop_pid "$RUN_DIR/rollup.pid" rollup rollup_counters
  stop_pid "$RUN_DIR/ecommerce.pid" ecommerce ecommerce
  stop_pid "$RUN_DIR/lms_stub.pid" lms_stub lms_stub
}

urls() {
  cat <<EOF
  LMS (lms_stub)      $LMS_URL          learner: GET /auto_auth, POST /api/commerce/v0/baskets/
  ecommerce           $ECOMMERCE_URL    API: /api/v2/baskets/, /api/v2/orders/
  Oscar dashboard     $ECOMMERCE_URL/dashboard/   login: $STAFF_USER / $(staff_password)
  MariaDB             127.0.0.1:$MYSQL_PORT  (user $MYSQL_USER; root on $MYSQL_SOCKET)
EOF
}

all_running() {
  "$ROOT/scripts/mysql.sh" status >/dev/null 2>&1 \
    && pid_alive "$RUN_DIR/lms_stub.pid" lms_stub && pid_alive "$RUN_DIR/ecommerce.pid" ecommerce \
    && pid_alive "$RUN_DIR/rollup.pid" rollup_counters
}

case ${1:-} in
  up)
    if all_running; then  # nothing to start, and no migration or seeding to redo
      say "stack: already up"
      urls
      exit 0
    fi
    prepare
    start_service lms_stub lms_stub/gunicorn.conf.py "$LMS_PORT"
    start_service ecommerce ecommerce/gunicorn.conf.py "$ECOMMERCE_PORT" "${ECOMMERCE_CPUS:-}"
    start_rollup
    record_settings
    urls
    ;;
  down)
    stop_services
    "$ROOT/scripts/mysql.sh" down
    ;;
  stop) stop_services ;;
  restart)
    stop_services
    "$ROOT/scripts/mysql.sh" up
    start_service lms_stub lms_stub/gunicorn.conf.py "$LMS_PORT"
    start_service ecommerce ecommerce/gunicorn.conf.py "$ECOMMERCE_PORT" "${ECOMMERCE_CPUS:-}"
    start_rollup
    record_settings
    ;;
  status)
    for name in lms_stub ecommerce rollup; do
      if pid_alive "$RUN_DIR/$name.pid"; then say "$name: running (pid $(cat "$RUN_DIR/$name.pid"))"; else say "$name: stopped"; fi
    done
    "$ROOT/scripts/mysql.sh" status || true
    ;;
  urls) urls ;;
  *) die "usage: scripts/stack.sh up|down|stop|restart|status|urls" ;;
esac
