#!/usr/bin/env bash
# The project's private MariaDB under var/mysql: stack/mysql.py (its docstring says what each
# command does), run by the system python3 that scripts/lib.sh makes sure of.
#
#   scripts/mysql.sh up|down|status|shell|reset
set -euo pipefail
source "$(dirname "$0")/lib.sh"
PYTHONPATH=$ROOT${PYTHONPATH:+:$PYTHONPATH} exec python3 -P -m stack.mysql "$@"
