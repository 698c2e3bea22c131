"""core/summary.py's types, through the schema generated from them: what a valid summary is,
and what the schema refuses (a key no type names, a key missing, a value of another type)."""

import copy
import typing

import pytest

from locustfiles.suite.core import summary
from locustfiles.suite.core.histogram import PERCENTILES
from tests.support.summaries import schema_errors


def row(**extra) -> dict:
    percentiles = {f"p{p}": None for p in PERCENTILES}
    return {
        **dict.fromkeys(("requests", "failures", "arrivals", "missed", "shed", "unshed_failures"), 0),
        **dict.fromkeys(("errors", "rps", "rpm", "mean"), None),
        "missed_rate": 0.0,
        **percentiles,
        "thin": ["p50"],
        "statuses": {},
        "refusals": {},
        "accepted": {"p50": None},
        "server_timing": {},
        **extra,
    }


def minimal() -> dict:
    """The least a run writes: one step without a reading, an audit that could not run."""
    step = row(label="1 users", endpoints={}, unshed=None, index=0, start=0, users=1)
    step.update(target_rpm=None, fault=None, seconds=5)
    return {
        "schema_version": summary.SCHEMA_VERSION,
        "profile": "ramp",
        "started_from": "headless",
        "t0": 1.0,
        "started": "2026-01-01T00:00:00",
        "finished": "2026-01-01T00:00:05",
        "seconds": 5.0,
        "config": {},
        "plan": {"profile": "ramp", "steps": [], "open_model": False, "users": 1, "seconds": 5},
        "warm_up": None,
        "steps": [step],
        "overall": row(label="all", endpoints={"/x": row()}, unshed=None),
        "endpoints": {"steps": [{"index": 0, "label": "1 users", "endpoints": {}}], "overall": {}},
        "timeline": {"bucket_seconds": 1, "points": [], "step_starts": [0], "step_labels": ["1 users"]},
        "outside_plan_requests": {},
        "error_examples": {},
        "load": {
            "host": None,
            "users": 1,
            "spawn_rate": None,
            "locust_workers": 0,
            "locust_hosts": {"local": "h"},
            "locust_workers_expected": None,
        },
        "load_generator": {
            "peak_cpu_percent": None,
            "process": None,
            "saturated": False,
            "threshold_percent": 90,
        },
        "profile_sections": [],
        "cpu_accounting": {"cpu_ms": {}, "cpu_ms_per_purchase": {}, "mix": {}, "purchases": 0, "seconds": 5},
        "cpu_ms_per_purchase": {"ecommerce": None},
        "audit": {"passed": False, "error": "no watermarks before the run", "successes": 0},
        "db": {"commits": 0, "row_lock_waits": 0, "connections_opened": 0, "slow_queries": 0},
        "sql": {"slow_query_seconds": None},
        "verdict": {
            "thresholds": [],
            "thresholds_at": "run",
            "passed": False,
            "failures": [
                {"kind": "audit", "about": None, "text": "audit failed: no watermarks before the run"}
            ],
        },
        "provenance": {},
        "findings": [{"level": "problem", "text": "audit failed"}],
    }


def test_a_minimal_summary_is_valid():
    assert schema_errors(minimal()) == []


def test_the_rows_percentile_keys_are_the_histograms():
    keys = [key for key in typing.get_type_hints(summary.Row) if key[1:].isdigit()]
    assert keys == [f"p{p}" for p in PERCENTILES]


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda s: s.update(new_key=1), "$"),  # a key no type names
        (lambda s: s["db"].update(locks=1), "$.db"),
        (lambda s: s.pop("schema_version"), "$"),
        (lambda s: s["steps"][0].pop("p95"), "$.steps[0]"),
        (lambda s: s["steps"][0].update(p95="fast"), "$.steps[0].p95"),
        (lambda s: s["verdict"].update(passed="yes"), "$.verdict.passed"),
        (lambda s: s["verdict"].update(reasons=["audit failed"]), "$.verdict"),  # failures since 8
        (lambda s: s["verdict"]["failures"][0].update(kind="slow"), "$.verdict.failures[0].kind"),
        (lambda s: s["verdict"].update(thresholds_at="step"), "$.verdict.thresholds_at"),
        (lambda s: s.update(capacity_rpm="many"), "$.capacity_rpm"),
    ],
)
def test_the_schema_refuses(change, where):
    broken = copy.deepcopy(minimal())
    change(broken)
    errors = schema_errors(broken)
    assert errors and all(error.startswith(where + ":") for error in errors), errors


def test_a_profiles_keys_are_allowed_where_they_are_typed():
    with_capacity = {**minimal(), "capacity_rpm": None, "capacity_steps_held": 0, "scalability": {}}
    assert schema_errors(with_capacity) == []
    assert schema_errors({**minimal(), "retry_fulfillment": {"exit_code": 0, "summary": "ok"}}) == []
