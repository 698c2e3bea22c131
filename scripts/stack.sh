#!/usr/bin/env bash
# The one place that starts and stops the stack: MariaDB, lms_stub and ecommerce under
# gunicorn, all on 127.0.0.1. Used by `make up/down/run`, the tests and the load suite.
#
#   scripts/stack.sh up       bootstrap, MariaDB, migrate, seed, start both services and the
#                             purchase-counter rollup loop (idempotent)
#   scripts/stack.sh restart  stop and start both services and the rollup (MariaDB stays up),
#                             e.g. to apply other ECOMMERCE_* / DB_POOL / MYSQL_DRIVER settings
#   scripts/stack.sh stop     stop both services and the rollup (MariaDB stays up)
#   scripts/stack.sh down     stop `make run` (its Locust), both services and MariaDB
#   scripts/stack.sh status   say what runs: services, MariaDB, Locust web UIs and load runs
#   scripts/stack.sh settings print the settings the services would run with in this
#                             environment (NAME=value); var/run/stack.env holds the running ones
#   scripts/stack.sh urls     print the addresses, the dashboard's user and where its password is
#   scripts/stack.sh staff-password / staff-jwt-secret   print the staff login's password, or
#                             the key that signs staff tokens (generated once into var/)
set -euo pipefail
source "$(dirname "$0")/lib.sh"

STAFF_USER=$ECOMMERCE_STAFF_USER
STAFF_PASSWORD_FILE=$VAR_DIR/staff-password
STAFF_JWT_SECRET_FILE=$VAR_DIR/staff-jwt-secret

manage() { "$PYTHON" "$ROOT/manage.py" "$@"; }
manage_lms() { DJANGO_SETTINGS_MODULE=settings.lms_stub "$PYTHON" "$ROOT/manage.py" "$@"; }
# as_owner COMMAND...: a management command that makes or fills tables connects as the owner
# account; the services and the rollup keep their own (docs/configuration.md, "Database accounts").
as_owner() { DB_ACCOUNT=owner "$@"; }

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

# staff_password: ECOMMERCE_STAFF_PASSWORD if set, else one generated once into var/ (0600).
# Only `scripts/stack.sh staff-password` prints it; the stack's output names where it is.
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

# staff_password_source: where the staff password is, never the password itself.
staff_password_source() {
  if [ -n "${ECOMMERCE_STAFF_PASSWORD:-}" ]; then
    printf 'ECOMMERCE_STAFF_PASSWORD'
  else
    printf '%s' "$STAFF_PASSWORD_FILE"
  fi
}

# staff_jwt_secret: STAFF_JWT_SECRET_KEY if set, else one generated once into var/ (0600).
# Only ecommerce is given it (launch_service) and the index audit reads it here: the load
# suite's processes never hold a key that reaches staff.
staff_jwt_secret() {
  if [ -n "${STAFF_JWT_SECRET_KEY:-}" ]; then
    printf '%s' "$STAFF_JWT_SECRET_KEY"
  else
    if [ ! -s "$STAFF_JWT_SECRET_FILE" ]; then
      (umask 077 && "$PYTHON" -c "import secrets; print(secrets.token_urlsafe(48), end='')" >"$STAFF_JWT_SECRET_FILE")
    fi
    cat "$STAFF_JWT_SECRET_FILE"
  fi
}

# seed_catalog: the courses lms_stub sells (CATALOG_COURSES) exist in ecommerce's catalogue.
seed_catalog() {
  as_owner manage seed_catalog --courses "$CATALOG_COURSES" --site-domain "127.0.0.1:$ECOMMERCE_PORT"
}

# collectstatic compresses every file each time (about 13 s); the files come only from the
# installed packages, so collect again only when the virtualenv's requirements changed.
collect_static() {
  local stamp="$STATIC_DIR/.collected-for" wanted
  wanted=$(cat "$ROOT/.venv/.requirements.sha" 2>/dev/null || true)
  if [ -n "$wanted" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then
    return 0
  fi
  manage collectstatic --noinput -v0
  if [ -n "$wanted" ]; then printf '%s' "$wanted" >"$stamp"; fi
}

prepare() {
  "$ROOT/scripts/bootstrap.sh"
  "$ROOT/scripts/mysql.sh" up
  mkdir -p "$RUN_DIR" "$LOG_DIR"
  chmod -R o-rwx "$LOG_DIR"  # logs an older checkout made world-readable
  say "stack: migrating"
  # The LMS's database alongside ecommerce's steps: separate databases, separate processes.
  as_owner manage_lms migrate --noinput -v0 &
  local lms_migrate=$!
  as_owner manage migrate --noinput -v0
  seed_catalog
  collect_static
  ECOMMERCE_STAFF_PASSWORD=$(staff_password) as_owner manage ensure_staff --username "$STAFF_USER"
  wait "$lms_migrate" || die "lms_stub: migrate failed"
}

# launch_service NAME CONF PORT [CPUS]: start gunicorn in its own session unless it already
# runs; CPUS (a taskset list such as 0 or 0-3) pins it to those cores. await_service waits
# until it answers; both services are launched before either is awaited, so that their
# workers' start-up (mostly importing Django and Oscar) overlaps.
launch_service() {
  local name=$1 conf=$2 port=$3 cpus=${4:-} pidfile=$RUN_DIR/$1.pid pin=() staff_key=
  if pid_alive "$pidfile"; then
    say "$name: already running (pid $(cat "$pidfile"))"
    return 0
  fi
  if port_in_use "$port"; then
    local variable=ECOMMERCE_PORT
    [ "$name" = lms_stub ] && variable=LMS_PORT
    die "$name: port $port is taken by another program; set $variable to a free port"
  fi
  rm -f "$pidfile"
  [ -n "$cpus" ] && pin=(taskset -c "$cpus")
  # The key that signs staff tokens reaches ecommerce alone (its environment, not its argv).
  if [ "$name" = ecommerce ]; then staff_key=$(staff_jwt_secret); fi
  # With a New Relic license key (or config file) the agent wraps gunicorn; each service
  # reports as its own application, "<NEW_RELIC_APP_NAME or orderservice>-<service>".
  # The agent's settings are the product's (settings/newrelic.ini, as deployed) unless
  # NEW_RELIC_CONFIG_FILE names a file of one's own; settings/effective.py says the same.
  local agent=() app_name=$NEW_RELIC_APP_NAME-$name agent_config=${NEW_RELIC_CONFIG_FILE:-}
  if [ -n "${NEW_RELIC_LICENSE_KEY:-}${NEW_RELIC_CONFIG_FILE:-}" ]; then
    agent=("$VENV/bin/newrelic-admin" run-program)
    agent_config=${agent_config:-$ROOT/settings/newrelic.ini}
    say "$name: under the New Relic agent as \"$app_name\" ($agent_config)"
  fi
  # exec: no shell lingers as the server's parent holding this script's stdout open.
  (cd "$ROOT" && export STAFF_JWT_SECRET_KEY=$staff_key && export NEW_RELIC_CONFIG_FILE=$agent_config &&
    NEW_RELIC_APP_NAME=$app_name exec setsid "${pin[@]}" "${agent[@]}" "$PYTHON" -m gunicorn -c "$conf" \
    </dev/null >>"$LOG_DIR/$name.out" 2>&1) &
}

# await_service NAME PORT: until the service answers /health/ (60 s at most).
await_service() {
  local name=$1 port=$2
  if ! wait_http "http://127.0.0.1:$port/health/" 60; then
    tail -n 30 "$LOG_DIR/$name.log" "$LOG_DIR/$name.out" >&2 2>/dev/null || true
    die "$name did not become healthy on port $port within 60 s; see $LOG_DIR/$name.log"
  fi
  say "$name: running on http://127.0.0.1:$port (pid $(cat "$RUN_DIR/$name.pid"))"
}

# start_rollup: the loop that folds purchase events into Oscar's product records.
start_rollup() {
  local pidfile=$RUN_DIR/rollup.pid
  if pid_alive "$pidfile" rollup_counters; then
    say "rollup: already running (pid $(cat "$pidfile"))"
    return 0
  fi
  (cd "$ROOT" && exec setsid "$PYTHON" manage.py rollup_counters --loop --interval "$ROLLUP_INTERVAL" \
    </dev/null >>"$LOG_DIR/rollup.log" 2>&1) &
  echo $! >"$pidfile"
  say "rollup: folding purchase counts every $ROLLUP_INTERVAL s (pid $!)"
}

# settings: NAME=value of every setting that reaches the services, as they resolve it (their
# own defaults applied). The load suite restarts the services when these differ from the
# ones recorded at their start.
settings() { (cd "$ROOT" && "$PYTHON" -m settings.effective); }
record_settings() { settings >"$RUN_DIR/stack.env"; }

# stop_services: the rollup and ecommerce at once (neither waits on the other), then the LMS,
# so that the orders ecommerce finishes while it stops can still make their enrollment calls.
stop_services() {
  stop_pids "$RUN_DIR/rollup.pid" rollup rollup_counters "$RUN_DIR/ecommerce.pid" ecommerce ecommerce
  stop_pid "$RUN_DIR/lms_stub.pid" lms_stub lms_stub
}

# The Locust processes of this checkout: `make run`'s web UI (var/run/locust.pid: its pid, then
# its URL; scripts/run.sh writes it) and load-suite runs (var/run/suite-<pid>.pid: the pid of
# `python -m locustfiles.suite.run`, then what runs; locustfiles/suite/stack/services.py writes it).
MAKE_RUN_LOCUST=$RUN_DIR/locust.pid
SUITE_RUN=locustfiles.suite.run

# suite_runs: the pid files of the load-suite runs that still run (stale ones are removed).
suite_runs() {
  local file
  for file in "$RUN_DIR"/suite-*.pid; do
    [ -e "$file" ] || continue
    if pid_alive "$file" "$SUITE_RUN"; then printf '%s\n' "$file"; else rm -f "$file"; fi
  done
}

locust_status() {
  local file pid child args
  if pid_alive "$MAKE_RUN_LOCUST" bin/locust; then
    say "locust (make run): web UI $(sed -n 2p "$MAKE_RUN_LOCUST") (pid $(pid_of "$MAKE_RUN_LOCUST"))"
  else
    say "locust (make run): not running"
  fi
  for file in $(suite_runs); do
    pid=$(pid_of "$file")
    say "load run: $(sed -n 2p "$file") (pid $pid)"
    while read -r child args; do
      case $args in
        *bin/locust*--worker*) say "  locust worker: pid $child" ;;
        *bin/locust*--master*) say "  locust master: pid $child" ;;
        *bin/locust*) say "  locust: pid $child" ;;
      esac
    done < <(ps -o pid=,args= --ppid "$pid")
  done
}

# stop_locusts: every Locust of this checkout stops before the services do, as Ctrl-C in its
# terminal would stop it: `make run`'s (scripts/run.sh then stops what it started, and is
# waited for so that nothing is stopped twice at once) and the load-suite runs (each still
# writes the report of what ran).
stop_locusts() {
  local pid parent file
  if pid_alive "$MAKE_RUN_LOCUST" bin/locust; then
    pid=$(pid_of "$MAKE_RUN_LOCUST")
    parent=$(ps -o ppid= -p "$pid" | tr -d ' ')
    stop_pid "$MAKE_RUN_LOCUST" "locust (make run)" bin/locust 30
    if pid_matches "$parent" scripts/run.sh && ! wait_exit "$parent" 120; then
      say "make run: still stopping after 120 s (pid $parent)"
    fi
  fi
  rm -f "$MAKE_RUN_LOCUST"
  for file in $(suite_runs); do
    pid=$(pid_of "$file")
    say "load run: stopping $(sed -n 2p "$file") (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true  # the suite takes it as Ctrl-C
    if wait_exit "$pid" 120; then say "load run: stopped (pid $pid)"; else say "load run: still running after 120 s (pid $pid)"; fi
  done
}

# Three columns whatever the ports and addresses: what, where, and what to do there.
urls() {
  local line='  %-19s %-38s %s\n'
  # shellcheck disable=SC2059  # the format is the line above
  {
    printf "$line" "LMS (lms_stub)" "$LMS_URL" "learner: GET /auto_auth, POST /api/commerce/v0/baskets/"
    printf "$line" "ecommerce" "$ECOMMERCE_URL" "API: /api/v2/baskets/, /api/v2/orders/"
    printf "$line" "Oscar dashboard" "$ECOMMERCE_URL/dashboard/" "user $STAFF_USER, password in $(staff_password_source)"
    printf "$line" "MariaDB" "127.0.0.1:$MYSQL_PORT" \
      "accounts $MYSQL_OWNER_USER, $ECOMMERCE_DB_USER, $LMS_DB_USER, $MYSQL_MONITOR_USER; root on $MYSQL_SOCKET"
  }
}

# start_all: prepare, start both services and the rollup, record their settings.
start_all() {
  prepare
  launch_service lms_stub lms_stub/gunicorn.conf.py "$LMS_PORT"
  launch_service ecommerce ecommerce/gunicorn.conf.py "$ECOMMERCE_PORT" "${ECOMMERCE_CPUS:-}"
  await_service lms_stub "$LMS_PORT"
  await_service ecommerce "$ECOMMERCE_PORT"
  start_rollup
  record_settings
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
    start_all
    urls
    ;;
  down)
    stop_locusts
    stop_services
    "$ROOT/scripts/mysql.sh" down
    ;;
  stop) stop_services ;;
  restart)
    stop_services
    start_all  # prepare again: a changed CATALOG_COURSES needs its courses seeded
    ;;
  status)
    for name in lms_stub ecommerce rollup; do
      if pid_alive "$RUN_DIR/$name.pid"; then say "$name: running (pid $(cat "$RUN_DIR/$name.pid"))"; else say "$name: stopped"; fi
    done
    "$ROOT/scripts/mysql.sh" status || true
    locust_status
    ;;
  urls) urls ;;
  settings) settings ;;
  staff-password) staff_password && echo ;;
  staff-jwt-secret) staff_jwt_secret && echo ;;
  *) die "usage: scripts/stack.sh up|down|stop|restart|status|settings|urls|staff-password|staff-jwt-secret" ;;
esac
