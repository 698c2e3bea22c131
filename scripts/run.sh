#!/usr/bin/env bash
# `make run`: the stack plus the Locust web UI in the foreground. Ctrl-C (or `make down` from
# another terminal, which stops this Locust first) stops the Locust UI and every part of the
# stack that this command started (a stack already up stays up). var/run/locust.pid holds
# Locust's pid and URL for `make status` and `make down`.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

# WEB_LOGIN=true: Locust asks for a login (locustfiles/suite/run/control.py makes the password
# once, the owner's alone); said here by its file, never its value. The system python3 reads
# the table, as scripts/lib.sh does: the virtualenv may not exist yet.
web_login=$(cd "$ROOT" && python3 -c '
from common.environment import BadSetting, env_bool
try:
    print("on" if env_bool("WEB_LOGIN") else "off")
except BadSetting as exc:
    raise SystemExit(f"error: {exc}")
') || exit 2
if [ "$web_login" = on ]; then
  login="user operator, the password in $WEB_LOGIN_PASSWORD_FILE"
else
  login="none (WEB_LOGIN=true asks for one); pages of other origins are refused"
fi

was_running=()
pid_alive "$MYSQL_DIR/mysqld.pid" mariadbd && was_running+=(mariadb)
pid_alive "$RUN_DIR/lms_stub.pid" && was_running+=(lms_stub)
pid_alive "$RUN_DIR/ecommerce.pid" && was_running+=(ecommerce)
pid_alive "$RUN_DIR/rollup.pid" rollup_counters && was_running+=(rollup)

locust_pid=""
cleanup() {
  trap - INT TERM EXIT
  say ""
  say "run: stopping what this command started"
  if [ -n "$locust_pid" ] && kill -0 "$locust_pid" 2>/dev/null; then
    kill -TERM "$locust_pid" 2>/dev/null || true
    wait "$locust_pid" 2>/dev/null || true
    say "locust: stopped (pid $locust_pid)"
  fi
  rm -f "$RUN_DIR/locust.pid"
  [[ " ${was_running[*]} " == *" rollup "* ]] || stop_pid "$RUN_DIR/rollup.pid" rollup rollup_counters
  [[ " ${was_running[*]} " == *" ecommerce "* ]] || stop_pid "$RUN_DIR/ecommerce.pid" ecommerce ecommerce
  [[ " ${was_running[*]} " == *" lms_stub "* ]] || stop_pid "$RUN_DIR/lms_stub.pid" lms_stub lms_stub
  [[ " ${was_running[*]} " == *" mariadb "* ]] || "$ROOT/scripts/mysql.sh" down
}
trap cleanup INT TERM EXIT

"$ROOT/scripts/stack.sh" up
cat <<INFO
  Locust web UI       http://127.0.0.1:$LOCUST_PORT   (locustfile: $LOCUSTFILE)
  Its login           $login
  Its reports         each swarm you stop writes $VAR_DIR/runs/<time>-manual-<users>/;
                      a profile picked under Custom parameters, $VAR_DIR/runs/<time>-<profile>/;
                      the machine's latest, whatever ran it: http://127.0.0.1:$LOCUST_PORT/suite/report

Press Ctrl-C to stop.
INFO
cd "$ROOT"
PYTHONPATH=$ROOT "$VENV/bin/locust" -f "$LOCUSTFILE" \
  --host "$LMS_URL" --web-host 127.0.0.1 --web-port "$LOCUST_PORT" &
locust_pid=$!
printf '%s\nhttp://127.0.0.1:%s\n' "$locust_pid" "$LOCUST_PORT" >"$RUN_DIR/locust.pid"
wait "$locust_pid"
