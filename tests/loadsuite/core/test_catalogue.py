"""The profiles as classes (their defaults, labels and help), the live plan of a hand-made run,
the timeline, the small-sample rule and the terminal's lines (make help itself:
integration/test_make_help.py)."""

import pytest

from locustfiles.suite import profiles
from locustfiles.suite.core.plan import LivePlan, Step
from locustfiles.suite.figures import results
from locustfiles.suite.record.recorder import EndpointStats, Timeline
from locustfiles.suite.report import terminal


def test_a_profile_reads_its_variables_and_falls_back_to_its_defaults():
    ramp = profiles.get("ramp")
    assert ramp.settings({"USERS": "4 8"}) == {"USERS": "4 8", "STEP_SECONDS": "60"}
    assert [s.users for s in ramp.plan({}).steps] == list(range(1, 11))
    assert profiles.get("soak").plan({"HOURS": "1"}).steps[0].target_rpm == 1038


@pytest.mark.parametrize(
    "name, step, label",
    [
        ("ramp", Step(0, 0, 10, users=1), "1 user"),
        ("ramp", Step(1, 10, 10, users=3), "3 users"),
        ("rpm", Step(0, 0, 10, target_rpm=78.0), "78 RPM"),
        ("soak", Step(1, 60, 60, target_rpm=1038.0), "bucket 2"),
        ("soak", Step(2, 60, 60, target_rpm=1038.0, label="bucket 2"), "bucket 2"),
        ("capacity", Step(0, 0, 60, target_rpm=600.0, label="warm-up", warm_up=True), "warm-up"),
        ("chaos", Step(0, 0, 30, target_rpm=300.0, fault="lms_down"), "lms_down"),
    ],
)
def test_each_profile_labels_its_steps(name, step, label):
    assert profiles.get(name).label(step) == label


def test_unknown_profiles_are_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="one of smoke, ramp, rpm"):
        profiles.get("marathon")


def test_report_sections_come_from_the_profile():
    assert profiles.get("capacity").sections == ("capacity",)
    assert profiles.get("ramp").sections == ()


def test_a_live_plan_starts_a_step_at_each_change_of_the_user_count():
    plan = LivePlan()
    plan.begin(3, begun=0.4)
    plan.change(3, 2.0)  # no change
    plan.change(1, 6.3)
    plan.stop(10.5)
    assert [(s.users, s.start, s.seconds) for s in plan.steps] == [(3, 0, 6.6), (1, 7, 3.5)]
    assert [plan.step_index(t) for t in (-0.1, 0.2, 6.9, 7.0, 10.4, 10.9, 11.0)] == [
        None,
        0,
        0,
        1,
        1,
        1,
        None,
    ]
    plan.change(5, 12)  # after the stop: ignored
    assert len(plan.steps) == 2 and plan.seconds == 10.5


def test_the_timeline_keeps_its_totals_when_it_coarsens():
    timeline = Timeline("/buy", limit=10)
    for second in range(35):
        stats = EndpointStats()
        stats.record(10 + second, ok=second % 7 != 0, status=201)
        timeline.add(second, "/buy", stats)
        timeline.add(second, "/login", stats)
        timeline.users(second, 1 + second // 10)
    points = timeline.points()
    assert timeline.bucket_seconds == 4 and len(points) <= 10
    assert sum(p["requests"] for p in points) == 70
    assert sum(p["failures"] for p in points) == 10
    assert sum(p["order_requests"] for p in points) == 35
    assert points[-1]["users"] == 4 and points[0]["p99"] == 13


@pytest.mark.parametrize(
    "requests, thin",
    [
        (0, ["p50", "p66", "p75", "p80", "p90", "p95", "p98", "p99", "p100"]),
        (4, ["p50", "p66", "p75", "p80", "p90", "p95", "p98", "p99"]),
        (100, ["p98", "p99"]),
        (500, []),
    ],
)
def test_a_percentile_needs_five_samples_in_its_tail(requests, thin):
    assert results.thin(requests) == thin


def test_the_terminal_ends_with_verdict_table_and_audit():
    row = {"label": "2 users", "users": 2, "rpm": 30.0, "requests": 4, "failures": 1, "p50": 20}
    row.update({"p95": 70, "p99": 70, "thin": ["p95", "p99"]})
    summary = {
        "verdict": {
            "passed": False,
            "failures": [{"kind": "thresholds", "about": None, "text": "thresholds failed: errors<0.01"}],
            "thresholds": [{"threshold": "errors<0.01", "value": 0.25, "ok": False}],
            "thresholds_at": "run",
        },
        "steps": [row],
        "overall": dict(row),
        "audit": {"successes": 3, "orders": 3, "enrollments": 3, "lost": 0, "duplicates": 0, "partial": 0},
    }
    lines = terminal.lines(summary)
    assert lines[0] == "verdict: FAIL"
    assert "  broken threshold: errors<0.01 (measured 0.25)" in lines
    header = next(i for i, line in enumerate(lines) if line.startswith("step"))
    assert lines[header + 1].split() == ["2", "users", "2", "–", "30", "4", "1", "20", "70†", "70†"]
    assert lines[-1].startswith("audit: 3 answered 2xx, 3 orders committed, 3 enrollments; lost 0")


def test_chaos_wants_every_order_complete_as_the_service_names_it():
    summary = {
        "overall": {"requests": 10, "failures": 0, "errors": 0.0},
        "reliability": [],
        "audit": {
            "statuses": {"open": "New", "complete": "Done", "fulfillment_error": "Stuck"},
            "orders_by_status": {"Done": 9, "Stuck": 1},
        },
    }
    _, failures = profiles.get("chaos").judge(summary, [])
    assert failures == [
        {
            "kind": "retry",
            "about": None,
            "text": "orders not Done after retry_fulfillment --all: {'Stuck': 1}",
        }
    ]
    summary["audit"]["orders_by_status"] = {"Done": 10}
    assert profiles.get("chaos").judge(summary, [])[1] == []


def test_the_terminal_names_the_capacity_and_the_step_that_broke_it():
    steps = [
        {"label": "300 RPM", "target_rpm": 300.0, "rpm": 300.0, "requests": 300, "failures": 0, "p95": 60},
        {"label": "600 RPM", "target_rpm": 600.0, "rpm": 600.0, "requests": 600, "failures": 0, "p95": 900},
    ]
    summary = {
        "capacity_rpm": 300.0,
        "verdict": {
            "passed": True,
            "failures": [],
            "thresholds": [{"threshold": "p95<460", "value": 900, "ok": False}],
            "thresholds_at": "broke_step",
        },
        "steps": steps,
        "overall": {"requests": 900},
        "audit": {"error": "no watermarks before the run"},
    }
    lines = terminal.lines(summary)
    assert lines[:3] == [
        "verdict: PASS",
        "capacity: 300 RPM held every threshold",
        "  600 RPM broke p95<460 (measured 900)",
    ]
    assert not any("broken threshold" in line for line in lines)
    assert lines[-1] == "audit: could not run (no watermarks before the run)"


def test_a_capacity_runs_break_is_its_measurement_not_a_problem():
    from locustfiles.suite.report import sections
    from locustfiles.suite.verdict import findings

    summary = {
        "profile": "capacity",
        "started": "a",
        "finished": "b",
        "seconds": 1.0,
        "capacity_rpm": 300.0,
        "verdict": {
            "passed": True,
            "failures": [],
            "thresholds": [{"threshold": "p95<460", "value": 900, "ok": False}],
            "thresholds_at": "broke_step",
        },
        "steps": [
            {"label": "300 RPM", "requests": 300, "p95": 60},
            {"label": "600 RPM", "requests": 600, "p95": 900},
        ],
    }
    assert sections.header(summary)["reasons"] == [
        "600 RPM broke p95<460 (measured 900): capacity is below it"
    ]
    assert [f["level"] for f in findings.verdict_findings(summary)] == ["warning"]
    summary["verdict"]["thresholds_at"] = "run"  # capacity's figures alone say nothing of the verdict
    assert sections.header(summary)["reasons"] == ["threshold p95<460 (measured 900) broken"]
    assert [f["level"] for f in findings.verdict_findings(summary)] == ["problem"]


def test_the_terminal_shows_the_warm_up_apart_from_the_table():
    warm = {"label": "warm-up", "target_rpm": 300.0, "seconds": 60, "requests": 301, "failures": 2}
    summary = {
        "verdict": {"passed": True, "failures": [], "thresholds": [], "thresholds_at": "run"},
        "warm_up": {**warm, "missed": 1, "p95": 1895},
        "steps": [{"label": "300 RPM", "target_rpm": 300.0, "requests": 300, "failures": 0, "p95": 60}],
        "overall": {"requests": 300},
        "audit": {"error": "no watermarks before the run"},
    }
    lines = terminal.lines(summary)
    assert lines[1] == (
        "warm-up (not judged, not in the table): 60 s at 300 RPM, 301 requests, 2 failed, 1 missed, "
        "p95 1895 ms"
    )
    assert not any(line.startswith("warm-up ") for line in lines[2:])
    del summary["warm_up"]
    assert not any("warm-up" in line for line in terminal.lines(summary))
