"""Past capacity: refusals told apart from failures (refusals.py), the ``unshed`` threshold, the
overload profile's plan and judgement, and how the report names shed requests. The real thing,
seconds long against the suite's stack, is at the end."""

import json

import pytest

from locustfiles.suite import profiles, report
from locustfiles.suite.core import names, refusals, thresholds
from locustfiles.suite.figures import results
from locustfiles.suite.record.recorder import Recorder
from locustfiles.suite.users import paid_journey
from locustfiles.suite.verdict import findings
from tests.loadsuite import synthetic

BASKET = names.ORDER_ENDPOINT
AUTO_AUTH = "/auto_auth"
OVERLOADED = json.dumps({"error": "overloaded", "message": "The service is at capacity."})
PASSED_ON = json.dumps(
    {
        "error": "ecommerce_unavailable",
        "message": "...",
        "ecommerce": {"error": "overloaded", "message": "..."},
    }
)


@pytest.mark.parametrize(
    "status, text, code",
    [
        (503, OVERLOADED, "overloaded"),
        (503, PASSED_ON, "ecommerce_unavailable: overloaded"),
        (503, json.dumps({"error": "pool_exhausted", "message": "busy"}), "pool_exhausted"),
        (429, json.dumps({"error": "too_many_purchases", "message": "later"}), "too_many_purchases"),
        (503, "<html><body>Service Unavailable</body></html>", None),  # not the services' shape
        (503, json.dumps(["overloaded"]), None),
        (503, "", None),
        (502, json.dumps({"error": "ecommerce_error", "message": "..."}), None),  # a 502 is no refusal
        (500, OVERLOADED, None),
    ],
)
def test_a_refusal_is_a_json_503_or_429_named_by_its_code(status, text, code):
    assert refusals.code(status, text) == code


def test_refusals_whose_code_says_overloaded_are_shed():
    assert refusals.is_shed("503 overloaded") and refusals.is_shed("503 ecommerce_unavailable: overloaded")
    assert not refusals.is_shed("503 pool_exhausted") and not refusals.is_shed("429 too_many_purchases")
    assert (
        refusals.label("503 ecommerce_unavailable: overloaded")
        == "503 shed (ecommerce_unavailable: overloaded)"
    )
    assert refusals.label("503 pool_exhausted") == "503 refused (pool_exhausted)"


def overloaded_run(
    accepted=60, shed=30, passed_on=5, html_502=0, slow_accepted_ms=300, env=None, workers=1
) -> tuple:
    """An overload plan and the rows of a run with ``accepted`` 201s, order requests refused
    by the LMS (``shed``) and passed on from ecommerce (``passed_on``), logins refused too, and
    ``html_502`` answers that are no refusal; recorded by ``workers`` processes as Locust's would."""
    p = profiles.get("overload").plan(env or {"RPM": "300", "DURATION": "10", "WARMUP_SECONDS": "0"})
    master = Recorder(p)
    master.t0 = 1000
    sources = [Recorder(p) for _ in range(workers)]
    calls = (
        [(BASKET, slow_accepted_ms, True, 201, None)] * accepted
        + [(BASKET, 2, False, 503, refusals.code(503, OVERLOADED))] * shed
        + [(BASKET, 9, False, 503, refusals.code(503, PASSED_ON))] * passed_on
        + [(AUTO_AUTH, 1, False, 503, refusals.code(503, OVERLOADED))] * shed
        + [(AUTO_AUTH, 15, True, 201, None)] * (accepted + passed_on + html_502)
        + [(BASKET, 40, False, 502, refusals.code(502, "<html>Bad Gateway</html>"))] * html_502
    )
    for i, (name, ms, ok, status, refusal) in enumerate(calls):
        sources[i % workers].request(name, 1000.5 + (i % 9), ms, ok, status, None, refusal)
    for source in sources:
        master.absorb(source.drain())
    return p, master


def test_shed_answers_cross_from_workers_and_land_in_the_rows():
    p, recorder = overloaded_run(workers=3)
    overall = results.overall_row(p, recorder.steps)
    order = overall["endpoints"][BASKET]
    assert order["refusals"] == {"503 ecommerce_unavailable: overloaded": 5, "503 overloaded": 30}
    assert order["shed"] == 35 and order["unshed_failures"] == 0
    assert overall["endpoints"][AUTO_AUTH]["shed"] == 30
    assert overall["unshed"] == 0.0
    # Percentiles of the 2xx answers alone, which fast refusals cannot pull down.
    assert overall["accepted"] == {"p50": 300, "p95": 300, "p99": 300}


def test_unshed_counts_failures_of_any_endpoint_that_were_not_refusals():
    p, recorder = overloaded_run(html_502=4)
    overall = results.overall_row(p, recorder.steps)
    requests = sum(e["requests"] for e in overall["endpoints"].values())
    assert overall["unshed"] == round(4 / requests, 4)
    assert thresholds.parse("unshed<0.01")[0].check(overall) == (False, overall["unshed"])
    assert thresholds.judge(thresholds.parse("unshed<0.5"), overall)["passed"]


@pytest.mark.parametrize(
    "env, target, warm",
    [
        ({"RPM": "3150", "WARMUP_SECONDS": "30"}, 3150, 2100),
        ({"CAPACITY_RPM": "2100", "WARMUP_SECONDS": "30"}, 3150, 2100),
        ({"RPM": "3000", "CAPACITY_RPM": "2400", "WARMUP_SECONDS": "30"}, 3000, 2400),
    ],
)
def test_overload_runs_at_rpm_or_one_and_a_half_times_capacity_after_a_warm_up_at_capacity(env, target, warm):
    p = profiles.get("overload").plan(env)
    warm_up, step = p.steps
    assert warm_up.warm_up and warm_up.target_rpm == warm and warm_up.seconds == 30
    assert step.target_rpm == target and step.seconds == 120
    assert p.open_model and p.users >= target / 60 * 5


def test_overload_needs_a_rate():
    with pytest.raises(ValueError, match="RPM, or CAPACITY_RPM"):
        profiles.get("overload").plan({})


def judged(p, recorder, audit=None) -> tuple[dict, list[dict], list[dict]]:
    overload = profiles.get("overload")
    summary = synthetic.summary_for(p, recorder, {"profile_sections": list(overload.sections)})
    summary["audit"] = {**summary["audit"], **(audit or {})}
    rules = thresholds.parse(overload.thresholds)
    summary.update(overload.figures(summary, rules))
    checks, failures = overload.judge(summary, rules)
    summary["verdict"] = {
        "thresholds": checks,
        "thresholds_at": "run",
        "passed": not failures,
        "failures": failures,
    }
    return summary, checks, failures


def test_an_overload_answered_with_refusals_only_passes():
    summary, checks, failures = judged(*overloaded_run())
    assert failures == []
    assert [(c["threshold"], c.get("scope")) for c in checks] == [
        ("p95<2000", None),
        ("unshed<0.01", None),
        ("p95<2000", "accepted purchases"),
    ]
    figures = summary["overload"]
    assert figures["accepted"] == 60 and figures["purchases"] == 95
    assert figures["shed"] == {AUTO_AUTH: 30, BASKET: 35}
    assert figures["orders_left_by_refusals"] == 0


def test_failures_that_are_not_refusals_fail_an_overload_run():
    _, _, failures = judged(*overloaded_run(html_502=4))
    assert failures == [{"kind": "thresholds", "about": None, "text": "thresholds failed: unshed<0.01"}]


def test_slow_accepted_purchases_fail_it_even_when_fast_refusals_keep_p95_down():
    # Under 5 % of the order answers are slow accepted ones: p95 of every answer stays low...
    _, checks, failures = judged(*overloaded_run(accepted=9, shed=171, passed_on=10, slow_accepted_ms=2500))
    every, accepted = (
        [c for c in checks if c["threshold"] == "p95<2000" and c.get("scope") == s]
        for s in (None, "accepted purchases")
    )
    assert every[0]["ok"] and every[0]["value"] < 2000
    # ...but not that of the purchases it took.
    assert not accepted[0]["ok"] and accepted[0]["value"] == 2500
    assert failures == [
        {
            "kind": "thresholds",
            "about": "accepted purchases",
            "text": "thresholds failed: p95<2000 (accepted purchases)",
        }
    ]
    summary = synthetic.summary_for(
        *overloaded_run(accepted=9, shed=171, passed_on=10, slow_accepted_ms=2500)
    )
    summary["verdict"] = {"thresholds": checks, "thresholds_at": "run", "passed": False, "failures": failures}
    (problem,) = [f["text"] for f in findings.verdict_findings(summary)]
    assert problem.startswith("The threshold p95<2000 failed for the accepted purchases: p95 was 2500 ms")


def test_an_order_a_refused_purchase_left_behind_fails_it():
    p, recorder = overloaded_run()
    _, _, failures = judged(p, recorder, {"unanswered": 2})
    assert failures == [
        {
            "kind": "overload",
            "about": None,
            "text": "2 orders committed for purchases that were not answered 2xx",
        }
    ]


def test_paid_journeys_that_failed_after_their_payment_account_for_unanswered_orders():
    p, recorder = overloaded_run()
    recorder.request(paid_journey.ORDER_READ, 1003.0, 2, False, 503, refusal="overloaded")
    recorder.fold_local()
    summary, _, failures = judged(p, recorder, {"unanswered": 1})
    assert failures == [] and summary["overload"]["failed_after_payment"] == 1


def test_a_paid_journey_that_failed_after_its_payment_in_the_warm_up_accounts_for_its_order():
    """The audit counts the warm-up's orders too (a 1.5 x capacity run at 8550 RPM failed on the
    one paid order whose read was refused during its warm-up)."""
    p, recorder = overloaded_run(env={"RPM": "300", "DURATION": "10", "WARMUP_SECONDS": "5"})
    recorder.request(paid_journey.ORDER_READ, 1001.0, 2, False, 503, refusal="overloaded")
    recorder.fold_local()
    summary, _, failures = judged(p, recorder, {"unanswered": 1})
    assert summary["warm_up"]["endpoints"][paid_journey.ORDER_READ]["failures"] == 1
    assert paid_journey.ORDER_READ not in summary["overall"]["endpoints"]
    assert failures == [] and summary["overload"]["failed_after_payment"] == 1


def test_the_report_names_shed_requests_apart_from_failures(tmp_path):
    summary, _, _ = judged(*overloaded_run(html_502=2))
    report.write(summary, tmp_path)
    text = (tmp_path / "report.md").read_text()
    assert "503 shed (overloaded)" in text and "503 shed (ecommerce_unavailable: overloaded)" in text
    assert "Past capacity" in text and "orders left by refused purchases (must be 0)" in text
    assert findings.findings(summary)  # every finding reads the overload's checks
    found = findings.error_findings(summary)
    assert [f["level"] for f in found] == ["problem", "warning"]
    assert "2 requests of" in found[0]["text"] and "failed otherwise" in found[0]["text"]
    assert "/api/commerce/v0/baskets/ answered 502 ×2" in found[0]["text"]
    assert "65 requests of" in found[1]["text"] and "were shed" in found[1]["text"]


def test_a_run_with_only_refusals_has_no_problem_finding():
    summary, _, _ = judged(*overloaded_run())
    assert [f["level"] for f in findings.error_findings(summary)] == ["warning"]


def test_the_terminal_says_what_was_shed():
    from locustfiles.suite.report import terminal

    summary, _, _ = judged(*overloaded_run())
    lines = terminal.overload_lines(summary["overload"])
    assert lines[0].startswith("overload: 60 of 95 purchases accepted")
    assert "shed (503 overloaded): /api/commerce/v0/baskets/ 35, /auto_auth 30;" in lines[1]
