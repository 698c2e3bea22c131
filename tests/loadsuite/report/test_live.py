"""Issue 31, item 2: the web UI's live Suite tabs (report/live.py) show what the report shows.
Rows are built from a synthetic recorder and readings as the keeper holds them mid-run and at
the end, and compared with the summary rows and the report's own table cells made from the
same recorder."""

import json

import pytest
from flask import Flask, Response

from locustfiles.suite import profiles
from locustfiles.suite.core import blocks, thresholds
from locustfiles.suite.core.plan import ArrivalSchedule
from locustfiles.suite.report import live, runs
from locustfiles.suite.report.sections import traffic
from locustfiles.suite.run import webpages
from tests.loadsuite import synthetic

GROUPS = ("ecommerce", "lms_stub", "mariadb", "rollup")
T0 = 1000  # synthetic.recorded's t0


def state(p, recorder, now, readings=None, **kwargs) -> live.Live:
    return live.Live(
        profiles.get(p.profile),
        p,
        recorder,
        synthetic.readings(p, machine_cpu=150.0) if readings is None else readings,
        thresholds.parse("p95<460 errors<0.01"),
        T0,
        now,
        **kwargs,
    )


def by_column(table: dict, row: list[dict]) -> dict[str, str]:
    return {header: live.shown(found) for header, found in zip(table["headers"], row, strict=True)}


def test_once_every_step_ended_the_rows_are_the_summary_s_and_read_as_the_report_does():
    p, recorder, _, log = synthetic.recorded()
    summary = synthetic.summary_for(p, recorder, log=log, machine_cpu=150.0)
    found = live.rows(state(p, recorder, T0 + p.seconds + 0.5))
    assert found[:-1] == summary["steps"]
    assert found[-1] == {**summary["overall"], "label": "all"}

    # The report's step table, cell for cell, in the columns both show.
    table = next(b for b in traffic.steps(summary)["blocks"] if b["kind"] == "table")
    report_lines = [by_column(table, row) for row in table["rows"]]
    shown = [live.step_line(row, GROUPS) for row in found]
    columns = {"step": "step", "users": "users", "rpm": "RPM", "requests": "requests", "failures": "failures"}
    columns.update({"missed": "missed", "p50": "p50", "p95": "p95", "p99": "p99"})
    assert [{ours: line[ours] for ours in columns} for line in shown] == [
        {ours: line[theirs] for ours, theirs in columns.items()} for line in report_lines
    ]
    assert shown[0]["cpu_ecommerce"] == "50" and shown[0]["cpu_machine"] == "150"
    assert shown[0]["cpu_locust"] == "local 40"


def test_an_open_model_run_shows_the_p95_from_the_schedule_as_the_report_does():
    env = {"RPM": "600 1200", "STEP_SECONDS": "10", "WARMUP_SECONDS": "0"}
    p, recorder, _, log = synthetic.recorded("capacity", env, late=0.5)
    summary = synthetic.summary_for(p, recorder, log=log, machine_cpu=150.0)
    found = live.rows(state(p, recorder, T0 + p.seconds + 0.5))
    assert [row["from_schedule"] for row in found] == [
        *(row["from_schedule"] for row in summary["steps"]),
        summary["overall"]["from_schedule"],
    ]
    table = next(b for b in traffic.steps(summary)["blocks"] if b["kind"] == "table")
    report_cells = [by_column(table, row)["p95 from schedule"] for row in table["rows"]]
    assert [live.step_line(row, GROUPS)["p95_from_schedule"] for row in found] == report_cells
    titles = [column["title"] for column in live.step_columns(GROUPS)]
    assert titles[titles.index("p95 ms") + 1] == "p95 from schedule ms"

    closed, recorder, _, _ = synthetic.recorded()
    (first, *_) = live.rows(state(closed, recorder, T0 + closed.seconds + 0.5))
    assert live.step_line(first, GROUPS)["p95_from_schedule"] == blocks.DASH


def test_mid_run_the_steps_so_far_are_shown_the_one_under_way_over_the_seconds_it_ran():
    p, recorder, _, _ = synthetic.recorded(env={"USERS": "1 2 3", "STEP_SECONDS": "10"})
    readings = {0: synthetic.readings(p)[0]}  # only the first step has ended
    found = live.rows(state(p, recorder, T0 + 14.5, readings))
    assert [row["label"] for row in found] == ["1 user", "2 users", "all"]
    current = found[1]
    requests = recorder.steps[1].endpoints[synthetic.BASKET].histogram.total
    assert current["under_way"] and current["seconds"] == 4.5
    assert current["rpm"] == round(requests / 4.5 * 60, 1)
    assert "under_way" not in found[0]
    line = live.step_line(current, GROUPS)
    assert line["step"] == "2 users (under way, 4 s)"
    assert line["cpu_ecommerce"] == blocks.DASH and line["cpu_locust"] == blocks.DASH
    # "all": the two steps so far, the second over its 4.5 s.
    assert found[-1]["requests"] == recorder.steps[0].endpoints[synthetic.BASKET].histogram.total + requests
    assert found[-1]["rpm"] == round(found[-1]["requests"] / 14.5 * 60, 1)


def test_before_the_first_step_and_before_any_run_there_is_no_row():
    p, recorder, _, _ = synthetic.recorded()
    assert live.rows(state(p, recorder, T0 - 0.5)) == []
    none_yet = state(p, recorder, T0 + 5)
    none_yet.t0 = None
    assert live.rows(none_yet) == []
    checks = live.check_lines(none_yet, [], webpages.report_url, webpages.RUNS)
    assert checks[0] == {"check": "run", "value": "none yet", "state": "start one from the form"}
    assert checks[-1]["value"] == "/suite/runs"


def test_thin_percentiles_carry_the_report_s_mark_and_the_note_says_why():
    p, recorder, _, _ = synthetic.recorded(requests=30)  # 10 a step: p95 and p99 rest on too few
    found = live.rows(state(p, recorder, T0 + 12))
    line = live.step_line(found[0], GROUPS)
    assert line["p99"].endswith(" †") and line["p95"].endswith(" †")
    assert not line["p50"].endswith("†")
    notes = live.check_lines(state(p, recorder, T0 + 12), found, webpages.report_url, webpages.RUNS)
    assert {"check": "†", "value": "", "state": traffic.THIN_NOTE} in notes


def test_the_thresholds_are_judged_on_the_steps_so_far_and_the_step_under_way():
    p, recorder, _, _ = synthetic.recorded(seed=5)
    now = state(p, recorder, T0 + 14.5)
    found = live.rows(now)
    checks = {c["check"]: c for c in live.check_lines(now, found, webpages.report_url, webpages.RUNS)}
    p95 = checks["threshold p95<460"]
    assert p95["value"] == blocks.fmt(found[-1]["p95"])
    assert p95["state"] == f"holds (all so far); 2 users: {blocks.fmt(found[-2]['p95'])}"
    errors = checks["threshold errors<0.01"]  # synthetic requests fail 2 % of the time
    assert errors["state"].startswith("broken (all so far)")
    assert checks["orders answered 2xx so far"]["value"] == "0"


def test_mid_run_the_checks_count_the_rows_written_and_state_what_the_ended_steps_say():
    p, recorder, _, _ = synthetic.recorded(seed=5, slow_after=20)  # "3 users" five times slower
    written = {"order_id": 41, "enrollment_id": 40, "notification_id": 2}
    now = state(p, recorder, T0 + 25, written=written)  # "1 user" and "2 users" ended
    found = live.rows(now)
    checks = live.check_lines(now, found, webpages.report_url, webpages.RUNS)
    by_name = {c["check"]: c for c in checks}
    assert by_name["orders written so far"]["value"] == "41"
    assert by_name["enrollments written so far"]["value"] == "40"
    assert by_name["payment notifications received so far"]["value"] == "2"
    # Not read yet (the first count comes 5 s into the run): said, not shown as 0.
    unread = live.check_lines(state(p, recorder, T0 + 2), found, webpages.report_url, webpages.RUNS)
    assert {"check": "orders written so far", "value": blocks.DASH, "state": "not read yet"} in unread

    said = [c["state"] for c in checks if c["check"].startswith("finding so far")]
    # The synthetic requests fail 2 % of the time with 503: a problem, counted over the run so far.
    failures = found[-1]["failures"]
    total = found[-1]["requests"]
    assert any(text.startswith(f"{failures} requests of {total} (every endpoint's) failed") for text in said)
    # p95 step to step, over the steps that ended only: the slow one under way is not in it yet.
    p95 = next(text for text in said if "p95" in text)
    assert "stayed between" in p95 and "across 2 steps" in p95
    assert checks.index(by_name["payment notifications received so far"]) < checks.index(
        next(c for c in checks if c["check"].startswith("finding so far"))
    )


@pytest.mark.parametrize(("percent", "warned"), [(95.0, True), (40.0, False)])
def test_the_load_generator_near_a_full_core_is_marked_as_in_the_report(percent, warned):
    p, recorder, _, _ = synthetic.recorded()
    readings = synthetic.readings(p, locust_cpu=percent)
    now = state(p, recorder, T0 + 25, readings)
    found = live.rows(now)
    assert live.step_line(found[0], GROUPS)["cpu_locust"] == f"local {percent:g}" + (" ⚠" if warned else "")
    checks = {c["check"]: c for c in live.check_lines(now, found, webpages.report_url, webpages.RUNS)}
    generator = checks["load generator CPU %"]
    assert generator["value"] == f"{percent:g}" + (" ⚠" if warned else "")
    assert ("neared a full core" in generator["state"]) is warned


def test_once_written_the_summary_s_rows_verdict_audit_and_report_are_shown():
    p, recorder, _, log = synthetic.recorded()
    summary = synthetic.summary_for(p, recorder, log=log)
    summary["findings"] = [{"level": "info", "text": "The load generator kept headroom."}]
    done = state(p, recorder, T0 + 99, summary=summary, run_name="20261127-100000-ramp")
    done.t0 = None
    found = live.rows(done)
    assert found == [*summary["steps"], {**summary["overall"], "label": "all"}]
    checks = live.check_lines(done, found, webpages.report_url, webpages.RUNS)
    assert checks[0] == {"check": "run", "value": "ramp (20261127-100000-ramp)", "state": "finished"}
    by_name = {c["check"]: c for c in checks}
    assert by_name["verdict"]["value"] == "PASS"
    assert by_name["threshold p95<460"] == {
        "check": "threshold p95<460",
        "value": "300",
        "state": "held",
    }
    assert by_name["audit"]["value"] == "successes 1, orders 1, enrollments 1"
    assert by_name["audit"]["state"] == "lost 0, duplicates 0"
    assert by_name["finding (info)"]["state"] == "The load generator kept headroom."
    assert by_name["report"]["value"] == "/suite/runs/20261127-100000-ramp/report.html"


def test_every_stats_poll_carries_the_tabs_rows_once_and_keeps_others(tmp_path):
    p, recorder, _, _ = synthetic.recorded()

    class WebUI:  # what Locust's WebUI offers the suite: its Flask app and template arguments
        app = Flask(__name__)
        template_args = {"extended_tabs": [{"key": "theirs", "title": "Theirs"}]}

    answer = {"state": "running", "extended_stats": [{"key": "theirs", "data": [{"x": 1}]}]}
    # Locust memoizes its answer for 2 s: the same Response object twice.
    cached = Response(json.dumps(answer), mimetype="application/json")

    @WebUI.app.route(webpages.STATS)
    def stats():
        return cached

    webpages.add_live(WebUI, lambda: state(p, recorder, T0 + 14.5), GROUPS, tmp_path / "runs")
    ours = [live.STEPS, live.CHECKS, runs.TAB["key"]]
    assert [tab["key"] for tab in WebUI.template_args["extended_tabs"]] == ["theirs", *ours]
    structure = WebUI.template_args["extended_tables"][0]["structure"]
    assert [c["key"] for c in structure][-6:] == [*(f"cpu_{g}" for g in GROUPS), "cpu_locust", "cpu_machine"]
    client = WebUI.app.test_client()
    for _ in range(2):  # Locust hands out the same answer for 2 s: what was added is replaced
        got = client.get(webpages.STATS).get_json()
        assert [entry["key"] for entry in got["extended_stats"]] == ["theirs", *ours]
    steps = got["extended_stats"][1]["data"]
    assert [line["step"] for line in steps] == ["1 user", "2 users (under way, 4 s)", "all"]


class Clock:
    """time.perf_counter for the budget's test: it moves when told to, and while rows are made."""

    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_rows_that_cost_much_are_made_again_within_the_budget_and_at_once_when_the_run_stops(monkeypatch):
    p, recorder, _, _ = synthetic.recorded()
    now = state(p, recorder, T0 + 14.5)
    clock, made = Clock(), []
    monkeypatch.setattr(webpages.time, "perf_counter", clock)

    def make(found: live.Live) -> list:
        made.append(found.stopping)
        clock.now += 0.1  # rows that take 100 ms: made once every 10 s at a 1 % budget
        return [len(made)]

    rows = webpages.Budgeted(make, lambda: now)
    assert rows() == [1]
    clock.now += 2  # the next poll
    assert rows() == [1]
    every = 0.1 / webpages.BUDGET  # 100 ms of work: once in that many seconds
    clock.now = every - 0.1
    assert rows() == [1]
    clock.now = every + 0.01
    assert rows() == [2]
    now.stopping = True  # stopped: shown at the next poll, whatever the budget
    clock.now += 2
    assert rows() == [3] and made == [False, False, True]


def test_a_step_that_ended_shows_a_late_purchase_due_in_it_once_answered():
    env = {"RPM": "600 1200", "STEP_SECONDS": "10", "WARMUP_SECONDS": "0"}
    p, recorder, _, _ = synthetic.recorded("capacity", env, late=0.5)
    now = state(p, recorder, T0 + 10.5)
    before = live.rows(now)[0]["from_schedule"]
    # Due in the first step, sent in the second: its row counts no new request, yet changed.
    recorder.request(synthetic.BASKET, T0 + 10.2, 40.0, True, 201, schedule=ArrivalSchedule(T0 + 9.9))
    recorder.fold_local()
    after = live.rows(now)[0]["from_schedule"]
    assert after["samples"] == before["samples"] + 1
