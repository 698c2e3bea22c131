# The project's entry points. Every target bootstraps what it needs on a fresh Debian machine
# (as root: apt packages, the virtualenv, a private MariaDB under var/).
SHELL := /bin/bash
.DEFAULT_GOAL := help

# The load profiles' targets (PROFILES, the catalogue's: locustfiles/suite/core/catalogue.py)
# and the settings they pass to the suite (LOAD_SETTINGS: docs/configuration.md, "Load runs"),
# written from where they are defined into make/load-runs.mk (`make lint` checks it): a
# profile or a setting added there needs nothing here, and a fresh machine without python3
# reads them too.
include make/load-runs.mk
export $(LOAD_SETTINGS)

.PHONY: help bootstrap up down status run test check fresh-test deploy-test cluster-up cluster-deploy cluster-down cluster-status cluster-test fuzz bench bench-lms floor preload index-audit $(PROFILES) edx2015-original compare lint format freeze clean
# Not exported here: LOCUST_TASK_SET and the other settings of edX's 2015 client (make edx2015),
# which it takes as set, even empty (as edX's did); given on the command line, make passes them.

# A variable given on make's command line that is not a setting (make rpm RMP=100) is refused,
# with the nearest name, before any target runs: ignored, the run would take the default.
GIVEN := $(foreach v,$(.VARIABLES),$(if $(filter command line,$(origin $(v))),$(v)))
ifneq ($(strip $(GIVEN)),)
# (A fresh machine has no python3 before make's first target bootstraps it: no check there.)
ifneq ($(shell cd "$(CURDIR)" && { ! command -v python3 >/dev/null || python3 -m common.environment --refuse-unknown $(GIVEN); } || echo refused),)
$(error nothing was run)
endif
endif

# Every description starts in one column, after the longest name (edx2015-original); the
# profiles' and the variables' lines use the same (tests/unit/test_makefile.py).
help:  ## list the targets
	@grep -hE '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-16s %s\n", $$1, $$2}'
	@echo "Load runs (sizes as make variables, defaults in parentheses; see docs/load-runs.md):"
	@python3 -m locustfiles.suite.core.help
	@echo "Their variables (docs/configuration.md, from the table of common/environment):"
	@python3 -m common.environment --help-lines
	@echo "What each takes (a value outside it is refused before anything starts):"
	@python3 -m locustfiles.suite.core.help --bounds
	@echo "The stack's own settings (ports, workers, ORDER_COUNTER, the database...) are in"
	@echo "docs/configuration.md; any of them is given the same way: make run LOCUST_PORT=8090"

bootstrap:  ## install system packages and the virtualenv (.venv)
	@scripts/bootstrap.sh

up:  ## start MariaDB, lms_stub and ecommerce in the background (idempotent)
	@scripts/stack.sh up

down:  ## stop everything `make up` started, and `make run`'s Locust and any load run first
	@scripts/stack.sh down

status:  ## say what runs: services, MariaDB, Locust (make run, load runs) with pids, and the web UI's URL
	@scripts/stack.sh status

run:  ## `make up` plus the Locust web UI in the foreground; Ctrl-C stops what it started
	@scripts/run.sh

test:  ## every test, on a private MariaDB
	@scripts/test.sh

check:  ## the quick loop: lint and types, the unit tests and the load suite's tests that start no service
	@SUITES="lint unit loadunit" scripts/test.sh

fresh-test:  ## make up, a smoke run, make down and make test on a fresh debootstrap root, timed (as root; not part of make test)
	@scripts/bootstrap.sh && scripts/fresh-test.sh

deploy-test:  ## molecule test of the Ansible deployment on this host (ansible/README.md)
	@scripts/bootstrap.sh && cd ansible && PATH="$(CURDIR)/.venv/bin:$$PATH" molecule test

cluster-up:  ## the m3 pair's seven hosts as namespaces on the bridge osbr0 (as root; docs/deploy.md, "The cluster")
	@scripts/cluster.sh up

cluster-deploy:  ## site.yml onto those hosts (ansible/inventories/cluster)
	@scripts/cluster.sh deploy

cluster-down:  ## tear the cluster down: no namespace, process, mount or listener left
	@scripts/cluster.sh down

cluster-status:  ## the cluster's hosts and what each runs
	@scripts/cluster.sh status

cluster-test:  ## up, deploy, tests/cluster, a second deploy that changes nothing, down (always)
	@scripts/cluster.sh test

FUZZ_EXAMPLES ?= 500
FUZZ_SEED ?=
fuzz:  ## schemathesis against both services, FUZZ_EXAMPLES (500) per operation, FUZZ_SEED (random)
	@FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) FUZZ_SEED=$(FUZZ_SEED) SUITES=schema scripts/test.sh

# CALLGRIND=1: instructions per order under valgrind instead (10 orders: Python runs some fifty
# times slower there, and the count per order hardly moves from one order to the next).
bench:  ## in-process figures of one checkout with fulfilment (ORDERS 300, COURSES 1, PAID=1: a paid seat, CALLGRIND=1: instructions per order); JSON on the last line
	@scripts/stack.sh up >/dev/null
	@.venv/bin/python manage.py bench_order --orders $(or $(ORDERS),$(if $(filter-out 0 false,$(CALLGRIND)),10,300)) --courses $(or $(COURSES),1)$(if $(filter-out 0 false,$(PAID)), --paid)$(if $(filter-out 0 false,$(CALLGRIND)), --callgrind) --json

# The LMS stand-in's side of a free purchase (lms_stub/bench/): its three calls in-process,
# ecommerce answered by a stand-in of the bench's own; CALLGRIND=1 counts instructions instead.
bench-lms:  ## the LMS stand-in's in-process figures of a free purchase's three calls (ORDERS 300, CALLGRIND=1: instructions per purchase and per call); JSON on the last line
	@scripts/stack.sh up >/dev/null
	@.venv/bin/python -m lms_stub.bench --purchases $(or $(ORDERS),$(if $(filter-out 0 false,$(CALLGRIND)),10,300))$(if $(filter-out 0 false,$(CALLGRIND)), --callgrind)

floor:  ## a free purchase's CPU per service against its floor (bare HTTP hops, its SQL replayed); RUN=<run folder>
	@scripts/stack.sh up >/dev/null
	@.venv/bin/python -m floor $(if $(RUN),--run "$(RUN)") --requests $(or $(FLOOR_REQUESTS),1000) --purchases $(or $(ORDERS),100)

preload:  ## fill both databases as ORDERS (4000000) purchases would; resumes, extends
	@scripts/bootstrap.sh && scripts/stack.sh up >/dev/null
	@.venv/bin/python -m locustfiles.suite.tools.preload --orders $(or $(ORDERS),4000000)

index-audit:  ## rows read by every statement of every request path (after make preload)
	@scripts/bootstrap.sh && scripts/stack.sh up >/dev/null
	@.venv/bin/python -m locustfiles.suite.tools.index_audit --out var/index-audit.md

# The load profiles; `make help` takes their descriptions and defaults from the profiles.
# exec: the TERM that make passes on reaches the run itself, which stops its Locust processes.
$(PROFILES):
	@scripts/bootstrap.sh && exec .venv/bin/python -m locustfiles.suite.run $@

edx2015-original:  ## edX's own 2015 client from your checkout (EDX_LOAD_TESTS=<edx/load-tests at 860f6fa>), as make edx2015
	@test -n "$(EDX_LOAD_TESTS)" || { echo "usage: make edx2015-original EDX_LOAD_TESTS=<checkout of edx/load-tests at 860f6fa>"; exit 2; }
	@scripts/bootstrap.sh && exec scripts/edx2015-original.sh "$(EDX_LOAD_TESTS)"

compare:  ## compare two runs: make compare A=var/runs/... B=var/runs/...
	@test -n "$(A)" -a -n "$(B)" || { echo "usage: make compare A=<run folder> B=<run folder>"; exit 2; }
	@.venv/bin/python -m locustfiles.suite.report.compare "$(A)" "$(B)"

lint:  ## ruff check and format check, the import layering (import-linter), mypy, summary.schema.json not stale
	@scripts/bootstrap.sh && scripts/lint.sh

format:  ## ruff format and fixes
	@scripts/bootstrap.sh && .venv/bin/ruff check --fix . && .venv/bin/ruff format .

freeze:  ## re-pin constraints.txt from a fresh virtualenv built from requirements.txt and requirements-deploy.txt
	@rm -rf var/freeze-venv && python3 -m venv var/freeze-venv
	@set -o pipefail; var/freeze-venv/bin/pip install -q -r requirements.txt -r requirements-deploy.txt 2>&1 | { grep -v "is ignored" || true; }
	@{ echo "# Every installed package, pinned: pip install -r requirements.txt -c constraints.txt"; \
	   echo "# (the controller adds -r requirements-deploy.txt; deployed hosts install requirements.txt only)"; \
	   echo "# Generated by 'make freeze'; do not edit by hand."; \
	   var/freeze-venv/bin/pip freeze; } > constraints.txt && rm -rf var/freeze-venv

clean:  ## stop the stack and delete var/ (databases, logs, run folders)
	@scripts/stack.sh down || true
	@rm -rf var
