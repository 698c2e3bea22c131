"""What a profile reads after the audit becomes its figures without any further reading
(Behaviour.read, then Behaviour.figures): edX's client's run, py-spy's recordings, and chaos's
steps with the audit's per-step counts, or with those counts unknown when they could not be
read."""

from locustfiles.suite import profiles
from tests.loadsuite import synthetic

READING = {
    "locustfile": "locustfiles/edx2015/locustfile.py",
    "task_set": "",
    "requests": 120,
    "failures": 2,
    "task_exceptions": 0,
    "exception_examples": [],
    "free_purchases": 40,
    "paid_purchases": 1,
    "receipts": 1,
}


def test_edx2015s_client_figures_are_its_reading_with_users_time_and_the_audit():
    summary = {
        "load": {"users": 5},
        "seconds": 30.0,
        "audit": {"orders": 41, "orders_by_status": {"Complete": 41}},
    }
    client = profiles.get("edx2015").figures(summary, [], {"client": READING})["client"]
    assert list(client)[:4] == ["locustfile", "task_set", "users", "seconds"]
    assert (client["users"], client["seconds"], client["requests"], client["failures"]) == (5, 30.0, 120, 2)
    assert (client["free_purchases"], client["orders"], client["payments"]) == (40, 41, None)


def test_the_profile_run_shows_what_py_spy_gave():
    taken = {"profiling": {"taken": True, "groups": {}}}
    assert profiles.get("profile").figures({}, [], taken) == taken


def test_chaos_judges_each_step_with_the_audits_counts_or_says_they_are_unknown():
    p, recorder, *_ = synthetic.recorded("chaos", {"FAULTS": "lms_down", "PHASE_SECONDS": "10", "RPM": "120"})
    summary = synthetic.summary_for(p, recorder, {"profile_sections": ["chaos"]})
    chaos = profiles.get("chaos")
    counted = {row["index"]: {"lost": 0, "duplicates": 0, "partial": 0} for row in summary["steps"]}
    rows = chaos.figures(summary, [], {"per_step": counted, "events": {}, "t0": 0.0})["reliability"]
    assert [row["lost"] for row in rows] == [0] * len(summary["steps"])
    unknown = chaos.figures(summary, [], {"per_step": None, "events": {}, "t0": 0.0})["reliability"]
    assert [row["lost"] for row in unknown] == [None] * len(summary["steps"])
