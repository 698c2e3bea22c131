#!/usr/bin/env bash
# The one place that starts and stops the stack (MariaDB, lms_stub and ecommerce under gunicorn,
# the purchase-counter rollup, all on 127.0.0.1), used by `make up/down/status/run`, the tests
# and the load suite: stack/commands.py (its docstring says what each command does), run by the
# system python3 that scripts/lib.sh makes sure of, before the virtualenv may exist.
#
#   scripts/stack.sh up|down|stop|restart|status|settings|urls|staff-password|staff-jwt-secret
set -euo pipefail
source "$(dirname "$0")/lib.sh"
PYTHONPATH=$ROOT${PYTHONPATH:+:$PYTHONPATH} exec python3 -P -m stack "$@"
