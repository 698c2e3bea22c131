#!/usr/bin/env bash
# `make lint` and the lint suite of `make test`: ruff's checks and format, the layering
# contracts of pyproject.toml (import-linter: which package may import which), mypy, then whether
# docs/summary.schema.json is still what the summary's types give.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
.venv/bin/ruff check .
.venv/bin/ruff format --check .
# The gunicorn.conf.py files are skipped (a dot in the module name); they import settings only
# (floor's, floor.bare).
.venv/bin/lint-imports --no-logo --no-cache 2>&1 | grep -v "too many dots in the name"
# The types of common/ and the load suite ([tool.mypy]; its cache under var/ keeps this quick).
.venv/bin/mypy
.venv/bin/python -m locustfiles.suite.tools.summary_schema --check
# make/load-runs.mk: the Makefile's profile targets and exports, as the catalogue gives them.
.venv/bin/python -m locustfiles.suite.core.help --check
