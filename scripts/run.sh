#!/usr/bin/env bash
# `make run`: the stack plus the Locust web UI in the foreground. Ctrl-C (or `make down` from
# another terminal, which stops this Locust first) stops the Locust UI and every part of the
# stack that this command started (a stack already up stays up); so do TERM, to this script, to
# make or to their process group, and HUP, to this script or the group. var/run/locust.pid holds
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

# Refused before anything starts, as a service's port is.
if port_in_use "$LOCUST_PORT"; then
  die "locust: port $LOCUST_PORT is taken by another program; set LOCUST_PORT to a free port"
fi

was_running=()
pid_alive "$MYSQL_DIR/mysqld.pid" mariadbd && was_running+=(mariadb)
pid_alive "$RUN_DIR/lms_stub.pid" && was_running+=(lms_stub)
pid_alive "$RUN_DIR/ecommerce.pid" && was_running+=(ecommerce)
pid_alive "$RUN_DIR/rollup.pid" rollup_counters && was_running+=(rollup)
started_here() { [[ " ${was_running[*]} " != *" $1 "* ]]; }

locust_pid=""
stopping=""
# stop_what_this_started: once, whichever of a signal or the script's end comes first. The
# services run in sessions of their own, so a signal to this group reaches none of them: this
# is what stops them. From its first line on, INT, TERM and HUP are ignored rather than obeyed:
# they come in pairs (TERM to make's group reaches this script, and make passes its own TERM
# on), and a second one must not cut the stop short. So is PIPE, and nothing here stops at an
# error: a terminal or pipe gone (HUP, a `| tee` ended by Ctrl-C) must not stop it either.
stop_what_this_started() {
  [ -z "$stopping" ] || return 0
  stopping=1
  trap '' INT TERM HUP PIPE
  set +e
  say ""
  say "run: stopping what this command started"
  if [ -n "$locust_pid" ] && kill -0 "$locust_pid" 2>/dev/null; then
    kill -TERM "$locust_pid" 2>/dev/null
    wait_exit "$locust_pid" 30 || kill -KILL "$locust_pid" 2>/dev/null
    wait "$locust_pid" 2>/dev/null
    say "locust: stopped (pid $locust_pid)"
  fi
  rm -f "$RUN_DIR/locust.pid"
  # As scripts/stack.sh stops them: the rollup and ecommerce at once, then the LMS, which the
  # orders ecommerce finishes while it stops still call.
  local first=()
  started_here rollup && first+=("$RUN_DIR/rollup.pid" rollup rollup_counters)
  started_here ecommerce && first+=("$RUN_DIR/ecommerce.pid" ecommerce ecommerce)
  [ ${#first[@]} -eq 0 ] || stop_pids "${first[@]}"
  started_here lms_stub && stop_pid "$RUN_DIR/lms_stub.pid" lms_stub lms_stub
  started_here mariadb && "$ROOT/scripts/mysql.sh" down
}
trap stop_what_this_started EXIT
# The shell's own convention for a death by signal: 128 + its number.
trap 'stop_what_this_started; exit 129' HUP
trap 'stop_what_this_started; exit 130' INT
trap 'stop_what_this_started; exit 143' TERM

"$ROOT/scripts/stack.sh" up
printf '  %-19s %-38s %s\n' "Locust web UI" "http://127.0.0.1:$LOCUST_PORT" "locustfile: $LOCUSTFILE"
cat <<INFO
  Its login           $login
  Its reports         each swarm you stop writes $VAR_DIR/runs/<time>-manual-<users>/;
                      a profile picked under Custom parameters, $VAR_DIR/runs/<time>-<profile>/;
                      the machine's latest, whatever ran it: http://127.0.0.1:$LOCUST_PORT/suite/report

Press Ctrl-C to stop.
INFO
cd "$ROOT"
# In a session of its own, as the services are: a signal to make's group reaches this script,
# which stops Locust once; Locust hit by the group's signal as well would stop twice.
PYTHONPATH=$ROOT setsid "$VENV/bin/locust" -f "$LOCUSTFILE" \
  --host "$LMS_URL" --web-host 127.0.0.1 --web-port "$LOCUST_PORT" </dev/null &
locust_pid=$!
printf '%s\nhttp://127.0.0.1:%s\n' "$locust_pid" "$LOCUST_PORT" >"$RUN_DIR/locust.pid"
wait "$locust_pid"
