#!/usr/bin/env bash
# `make test`: bootstrap, a private MariaDB, lint, then every suite with its service's settings.
# Extra arguments go to every pytest run (e.g. scripts/test.sh -x -k idempotency).
# SUITES picks some of them by key: lint ansible unit lms_stub integration schema loadunit load
# browser (e.g. SUITES=schema scripts/test.sh, which `make fuzz` runs; `make check` is lint, unit
# and loadunit, the load suite's tests that start no service, which load includes), or by the
# folder names ecommerce and loadsuite; an unknown name is refused with the list, before
# anything is installed.
# Its MariaDB is its own (var/test/mysql, a free port); a running `make up` is left alone.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
# A fresh machine has no PYTHONUNBUFFERED; this one's shell sets it, which hid a command whose
# first line reached a pipe only at exit (the rollup loop's). The tests run as on a fresh one.
unset PYTHONUNBUFFERED

ALL_SUITES="lint ansible unit lms_stub integration schema loadunit load browser"
# The folder names work too: tests/ecommerce runs with unit, tests/loadsuite is load.
declare -A ALIASES=([ecommerce]=unit [loadsuite]=load)
SUITES=${SUITES:-$ALL_SUITES}
wanted=()
for name in ${SUITES//,/ }; do
  name=${ALIASES[$name]:-$name}
  if [[ " $ALL_SUITES " != *" $name "* ]]; then
    say "make test: unknown suite '$name' in SUITES; valid: $ALL_SUITES (or the folder names ecommerce, loadsuite)"
    exit 2
  fi
  wanted+=("$name")
  [ "$name" = load ] && wanted+=(loadunit)  # the load suite, whole: with and without services
done
if [ ${#wanted[@]} -eq 0 ]; then
  say "make test: SUITES names no suite; valid: $ALL_SUITES"
  exit 2
fi
SUITES=" ${wanted[*]} "

started=$(date +%s)
"$ROOT/scripts/bootstrap.sh" || exit 1

# The tests' own MariaDB: a datadir under var/test/mysql on a free port (TEST_MYSQL_PORT picks
# one), so a stack that `make up` or `make run` keeps running, its MariaDB included, is never
# touched; the chaos test restarts this one. Its templates stay between runs; it is stopped at
# the end, and one a crashed run left behind is stopped first (it may listen on another port).
export MYSQL_DIR=$TEST_MYSQL_DIR
test_db() { VAR_DIR="$(dirname "$MYSQL_DIR")" "$ROOT/scripts/mysql.sh" "$@"; }
test_db down >/dev/null 2>&1 || true
export MYSQL_PORT=${TEST_MYSQL_PORT:-$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
test_db up || exit 1
trap 'test_db down' EXIT
set_up_seconds=$(($(date +%s) - started))

cd "$ROOT"
export PYTHONPATH=$ROOT
# Tests start their own servers on free ports with their own databases (test_*), never
# touching a stack started by `make up`.
unset ECOMMERCE_PORT LMS_PORT
# Each suite ends with its slowest tests: where make test's time goes, in CI's output too.
export PYTEST_ADDOPTS="--durations=8 ${PYTEST_ADDOPTS:-}"

failed=()
# pytest with the suite's arguments and the extra ones; a suite of which the extra arguments
# select no test (pytest's exit 5, e.g. -k naming a test of another suite) is not a failure.
extra=$#
tests() {
  "$PYTHON" -m pytest "$@"
  local code=$?
  if [ "$code" -eq 5 ] && [ "$extra" -gt 0 ]; then
    say "(the arguments select no test of this suite)"
    return 0
  fi
  return "$code"
}
# Each suite's time, printed at the end: "name|seconds|how".
times=("set-up|$set_up_seconds|bootstrap and the tests' MariaDB")
run() {
  local key=$1 name=$2 began
  shift 2
  [[ " $SUITES " == *" $key "* ]] || return 0
  say ""
  say "=== $name"
  began=$(date +%s)
  "$@" || failed+=("$name")
  times+=("$name|$(($(date +%s) - began))|")
}

# start_beside KEY NAME CMD...: a check that reads files only (no database, port or service),
# run while the unit suite runs; finish_beside prints its output under its name, in order.
beside=()
alongside=""
[[ " $SUITES " == *" unit "* ]] && alongside="alongside the unit suite"
start_beside() {
  local key=$1 name=$2
  shift 2
  [[ " $SUITES " == *" $key "* ]] || return 0
  local out
  out=$(mktemp)
  # Its own end time beside its output: it may end long before it is waited for.
  (began=$(date +%s); "$@" >"$out" 2>&1; code=$?; echo "$(($(date +%s) - began))" >"$out.seconds"; exit "$code") &
  beside+=("$!|$name|$out")
}
finish_beside() {
  local entry pid name out
  for entry in "${beside[@]}"; do
    IFS='|' read -r pid name out <<<"$entry"
    say ""
    say "=== $name"
    wait "$pid" || failed+=("$name")
    cat "$out"
    times+=("$name|$(cat "$out.seconds" 2>/dev/null || echo "?")|${alongside:-}")
    rm -f "$out" "$out.seconds"
  done
  beside=()
}

start_beside lint "lint" "$ROOT/scripts/lint.sh"
# The deployment: ansible-lint's production profile, and site.yml parsed with every inventory
# (the molecule scenario that converges it is `make deploy-test`).
start_beside ansible "ansible lint and syntax" "$ROOT/scripts/ansible-check.sh"
# The load suite imports Locust, which monkey-patches the process for gevent: its own runs,
# without the plugins that import ssl before Locust can patch it (schemathesis, anyio). Its
# tests that start no service (everything outside integration/) read and write temporary
# files only, so they run beside the unit suite, which leaves one core mostly idle.
LOAD_PYTEST=(-p no:django -p no:schemathesis -p no:anyio)
start_beside loadunit "load suite without services" tests tests/loadsuite --ignore=tests/loadsuite/integration \
  "${LOAD_PYTEST[@]}" "$@"
run unit "unit and ecommerce" tests tests/unit tests/ecommerce --ds=settings.test "$@"
finish_beside
run lms_stub "lms_stub" tests tests/lms_stub --ds=settings.lms_stub "$@"
run integration "integration" tests tests/integration --ds=settings.test "$@"
# Both services under schemathesis and hand-written bad input (FUZZ_EXAMPLES per operation).
run schema "schema and bad input" tests tests/schema --ds=settings.test "$@"
run load "load suite with services" tests tests/loadsuite/integration "${LOAD_PYTEST[@]}" "$@"
# Debian's chromium through playwright against a stack and a Locust web UI of their own;
# screenshots in var/artifacts/browser/ (BROWSER_ARTIFACTS). No Django in this process.
run browser "browser" tests tests/browser -p no:django "$@"

elapsed=$(($(date +%s) - started))
say ""
say "make test: each suite's time (this machine: $(nproc) cores)"
for entry in "${times[@]}"; do
  IFS='|' read -r name seconds how <<<"$entry"
  say "$(printf '  %-30s %5s s  %s' "$name" "$seconds" "$how")"
done
if [ ${#failed[@]} -gt 0 ]; then
  say "make test: FAILED (${failed[*]}) in ${elapsed}s"
  exit 1
fi
say "make test: all suites passed in ${elapsed}s"
