"""run/summary.py: the summary from what a run recorded, read and audited, without a stack:
synthetic requests through the real Recorder, readings as the sampler gives them."""

from common import calibration
from locustfiles.suite import profiles
from locustfiles.suite.core import thresholds
from locustfiles.suite.core.summary import SCHEMA_VERSION
from locustfiles.suite.run import summary as summaries
from tests.loadsuite import synthetic
from tests.support.summaries import assert_valid

LOAD = {
    "host": "http://127.0.0.1:18000",
    "spawn_rate": 3,
    "locust_workers": 2,
    "locust_hosts": {"master": "h", "worker-0": "h", "worker-1": "h"},
    "locust_workers_expected": 2,
}
PASSED_AUDIT = {"passed": True, "successes": 9, "orders": 9, "enrollments": 9, "lost": 0, "duplicates": 0}


def read(**changes) -> summaries.Read:
    given = {
        "config": {"order_counter": "events"},
        "started_from": "headless",
        "load": LOAD,
        "weights": {"buy": 50, "pay": 1},
        "settled": {},
        "audit": PASSED_AUDIT,
        "sql": {"slow_query_seconds": 1.0},
    }
    return summaries.Read(**{**given, **changes})


def summarise(profile="ramp", env=None, finished=None, audited=PASSED_AUDIT, rules="p95<99999"):
    plan, recorder, _, _ = synthetic.recorded(profile, env)
    recorded = summaries.Recorded(
        plan, recorder, synthetic.readings(plan), 990.0, 1000.0, finished or 1000.0 + plan.seconds
    )
    behaviour = profiles.get(profile)
    summary = summaries.measured(behaviour, recorded, read(audit=audited))
    return summaries.judged(summary, behaviour, thresholds.parse(rules), synthetic.provenance())


def test_a_ramps_summary_is_valid_and_says_its_schema():
    summary = assert_valid(summarise())
    assert summary["schema_version"] == SCHEMA_VERSION
    assert [row["label"] for row in summary["steps"]] == ["1 user", "2 users", "3 users"]
    assert summary["overall"]["label"] == "all"
    assert summary["seconds"] == 40.0  # from when the run began, not from its first step
    assert summary["load"] == {"users": 3, **LOAD}
    assert summary["config"] == {"order_counter": "events", "locust_workers": 2}
    assert summary["verdict"]["passed"] and summary["verdict"]["failures"] == []
    assert summary["verdict"]["thresholds_at"] == "run"


def test_the_database_totals_are_the_steps_deltas_summed():
    db = summarise()["db"]
    assert db == {"commits": 30, "row_lock_waits": 0, "connections_opened": 0, "slow_queries": 0}


def test_steps_that_had_not_begun_when_the_run_finished_are_left_out():
    summary = summarise(finished=1015.0)  # 10-second steps: the third began at 1020
    assert [row["index"] for row in summary["steps"]] == [0, 1]
    assert summary["timeline"]["step_starts"] == [0, 10]


def test_a_warm_up_is_reported_apart():
    env = {"RPM": "600", "DURATION": "10", "WARMUP_SECONDS": "5"}
    summary = assert_valid(summarise("rpm", env))
    assert summary["warm_up"]["index"] == 0 and [row["index"] for row in summary["steps"]] == [1]
    assert summary["endpoints"]["steps"][0]["index"] == 1


def test_an_audit_that_could_not_run_fails_the_verdict():
    audited = {"passed": False, "error": "no watermarks before the run", "successes": 9}
    verdict = assert_valid(summarise(audited=audited))["verdict"]
    assert not verdict["passed"]
    assert verdict["failures"] == [
        {"kind": "audit", "about": None, "text": "audit failed: no watermarks before the run"}
    ]


def test_a_broken_threshold_fails_the_verdict():
    verdict = summarise(rules="p95<1")["verdict"]
    assert not verdict["passed"]
    assert verdict["failures"] == [{"kind": "thresholds", "about": None, "text": "thresholds failed: p95<1"}]


def test_a_capacity_run_says_its_thresholds_were_judged_at_the_step_that_broke():
    summary = assert_valid(summarise("capacity", {"RPM": "600 1200", "STEP_SECONDS": "10"}, rules="p95<1"))
    assert summary["verdict"]["thresholds_at"] == "broke_step"
    assert summary["verdict"]["failures"] == [
        {"kind": "capacity", "about": None, "text": "no step held the thresholds"}
    ]


def test_who_made_the_load_is_written_once():
    """The profile, where the run started and Locust's load are the summary's own keys; the plan
    and the provenance do not repeat them (they did: the profile was written three times)."""
    summary = summarise("rpm", {"RPM": "600", "DURATION": "10"})

    def places(value, key, path="") -> list[str]:
        if isinstance(value, dict):
            here = [path + "." + key] if key in value else []
            return here + [p for k, v in value.items() for p in places(v, key, f"{path}.{k}")]
        return []

    for key in ("profile", "started_from", "spawn_rate", "locust_workers"):
        found = [p for p in places(summary, key) if not p.startswith(".config")]
        assert len(found) == 1, (key, found)
    assert summary["profile"] == "rpm" and "profile" not in summary["plan"]


def test_a_calibrated_runs_summary_carries_its_calibration_and_its_cpu_in_cal():
    plan, recorder, _, _ = synthetic.recorded()
    recorded = summaries.Recorded(
        plan, recorder, synthetic.readings(plan), 990.0, 1000.0, 1000.0 + plan.seconds
    )
    sitting = calibration.sitting(synthetic.calibration_of(4.0), synthetic.calibration_of(4.4))
    summary = summaries.measured(profiles.get("ramp"), recorded, read(calibration=sitting))
    summary = assert_valid(summaries.judged(summary, profiles.get("ramp"), thresholds.parse("p95<99999"), {}))
    assert summary["calibration"] == sitting and sitting["ms"] == 4.2
    for key, ms in summary["cpu_ms_per_purchase"].items():
        assert summary["cpu_cal_per_purchase"][key] == (None if ms is None else round(ms / 4.2, 3))
    assert summary["cpu_cal_per_purchase"]["services"] is not None
    # A run whose Read holds none (a summary made without the keeper) has neither key.
    assert "calibration" not in summarise() and "cpu_cal_per_purchase" not in summarise()
