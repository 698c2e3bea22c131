"""A run's summary.json as every test reads it: checked against the published schema
(docs/summary.schema.json) first, so a key written without a type, or of another type than
its type says, fails the test that produced it."""

import json
from pathlib import Path

from jsonschema import Draft202012Validator

from locustfiles.suite.core import run_folders

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "docs" / "summary.schema.json"
VALIDATOR = Draft202012Validator(json.loads(SCHEMA_FILE.read_text()))


def schema_errors(summary: dict) -> list[str]:
    """Where ``summary`` breaks the schema, one line each ("$.steps[0].p95: ..."), or []."""
    errors = sorted(VALIDATOR.iter_errors(summary), key=lambda error: error.json_path)
    return [f"{error.json_path}: {error.message[:300]}" for error in errors]


def assert_valid(summary: dict) -> dict:
    errors = schema_errors(summary)
    assert not errors, "summary.json breaks docs/summary.schema.json:\n" + "\n".join(errors)
    return summary


def read_summary(folder: Path) -> dict:
    """The run folder's summary.json, valid against the schema."""
    return assert_valid(json.loads((Path(folder) / "summary.json").read_text()))


def reported_runs(var_dir: str | Path) -> set[str]:
    """The names of the run folders under ``var_dir``/runs that have a report. A session's tests
    share one stack and so one runs folder, and /suite/report serves the newest of them,
    whichever test made it: a test waits for a name this set did not have before it started."""
    return {path.parent.name for path in run_folders.runs(var_dir).glob("*/report.html")}
