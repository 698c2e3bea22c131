"""Findings written from planted data: each test plants one fact in a synthetic summary and
checks the sentence that reports it (and that a run without the fact gets no such sentence)."""

from locustfiles.suite.core import text
from locustfiles.suite.verdict import findings
from tests.loadsuite import synthetic


def summary(**kwargs):
    p, recorder, _, log = synthetic.recorded(
        seed=kwargs.pop("seed", 3), slow_after=kwargs.pop("slow_after", None), reads=kwargs.pop("reads", 0)
    )
    return synthetic.summary_for(p, recorder, log=log, **kwargs)


def texts(found, level=None):
    return [f["text"] for f in found if level is None or f["level"] == level]


def test_a_rising_p95_is_reported_with_where_and_how_much():
    planted = summary(slow_after=20)  # the third step (3 users) five times slower
    first, second, third = planted["steps"]
    (rise,) = [t for t in texts(findings.findings(planted), "warning") if "p95" in t and "went from" in t]
    assert f"from {first['p95']} ms at 1 user to {third['p95']} ms at 3 users" in rise
    assert (
        f"the largest rise was from 2 users to 3 users: {second['p95']} ms to {third['p95']} ms "
        f"(+{third['p95'] - second['p95']} ms" in rise
    )

    steady = findings.findings(summary())
    assert not any("went from" in t for t in texts(steady))
    assert any("p95 stayed between" in t and "within the noise floor" in t for t in texts(steady, "info"))


def test_a_soak_reports_p95_from_the_first_to_the_last_bucket():
    planted = summary(
        extra={"trend": {"buckets": 6, "p95_first": 100, "p95_last": 150, "p95_ms_per_bucket": 10.0}}
    )
    (text,) = [t for t in texts(findings.findings(planted), "warning") if "bucket" in t]
    assert text == (
        "Over 6 buckets the order endpoint's p95 rose from 100 ms to 150 ms (+50 %); "
        "the fitted trend is +10 ms per bucket."
    )


def test_a_saturated_client_is_a_problem_and_an_idle_one_is_not():
    saturated = findings.findings(summary(locust_cpu=97.0))
    (text,) = [t for t in texts(saturated, "problem") if "load generator" in t]
    assert "saturated" in text and "'local' used 97 % of one core" in text

    idle = findings.findings(summary(locust_cpu=30.0))
    assert not any("load generator" in t for t in texts(idle, "problem"))
    assert any("kept headroom" in t and "30 % of one core" in t for t in texts(idle, "info"))


def test_a_missing_measurement_is_said_to_be_missing():
    planted = summary()
    del planted["load_generator"]
    planted["sql"] = {}
    found = texts(findings.findings(planted), "warning")
    assert "The load generator's CPU was not measured in this run." in found
    assert "The statement digests were not read, so missing indexes were not checked." in found


def test_a_statement_without_an_index_is_named():
    planted = summary()
    statement = "SELECT `order_order` . `id` FROM `order_order` WHERE `order_order` . `user_id` = ?"
    planted["sql"]["no_index"] = [synthetic.statement(statement, count=120, no_index=120)]
    (text,) = [t for t in texts(findings.findings(planted), "warning") if "index" in t]
    assert text == (
        "1 statement of the requests ran without a (good) index; the most frequent, 120 calls, 250 rows "
        "read a call: " + statement
    )
    assert "Every statement the requests ran used an index." in texts(findings.findings(summary()))


def test_a_statement_reading_a_few_rows_of_lookup_tables_without_an_index_is_no_warning():
    planted = summary()
    lookup = synthetic.statement("SELECT `c` . `name` FROM `catalogue_productclass` `c`", count=8, no_index=8)
    planted["sql"]["no_index"] = [{**lookup, "rows_examined_per_call": 10.0}]
    assert not [t for t in texts(findings.findings(planted), "warning") if "index" in t]
    assert (
        "1 statement of the requests ran without a (good) index, reading at most 100 rows a call (small "
        "lookup tables, which no index would make cheaper)." in texts(findings.findings(planted), "info")
    )
    growing = synthetic.statement("SELECT `o` . `id` FROM `order_order` `o`", count=50, no_index=50)
    planted["sql"]["no_index"].append(growing)
    (text,) = [t for t in texts(findings.findings(planted), "warning") if "index" in t]
    assert text.startswith(
        "1 statement of the requests ran without a (good) index (1 more read at most 100 rows a call)"
    )


def test_a_broken_threshold_names_the_step_that_broke_it():
    planted = summary(slow_after=20)
    third = planted["steps"][2]
    planted["verdict"] = {
        "thresholds": [
            {"threshold": "p95<1000", "value": planted["overall"]["p95"], "ok": False},
            {"threshold": "errors<0.5", "value": 0.02, "ok": True},
        ],
        "thresholds_at": "run",
        "passed": False,
        "failures": [
            {"kind": "thresholds", "about": None, "text": "thresholds failed: p95<1000"},
            {"kind": "audit", "about": None, "text": "audit failed: lost 1, duplicates 0"},
        ],
    }
    problems = texts(findings.findings(planted), "problem")
    assert (
        f"The threshold p95<1000 failed: p95 was {planted['overall']['p95']} ms; 1 step broke it, "
        f"first 3 users (p95 {third['p95']} ms)." in problems
    )
    assert "The run failed: audit failed: lost 1, duplicates 0." in problems
    assert not any("errors<0.5" in t for t in problems)


def test_errors_are_counted_by_endpoint_and_status_and_problems_come_first():
    found = findings.findings(summary(reads=60))
    errors = [t for t in texts(found, "problem") if "failed:" in t]
    assert len(errors) == 1 and "/api/commerce/v0/baskets/ answered 503 ×" in errors[0]
    assert [f["level"] for f in found] == sorted((f["level"] for f in found), key=findings.LEVELS.index)


def test_thin_percentiles_and_the_busiest_process_are_reported():
    p, recorder, _, log = synthetic.recorded(requests=60)  # about 20 a step: p90 and up rest on < 5
    planted = synthetic.summary_for(p, recorder, log=log)
    found = findings.findings(planted)
    (thin,) = [t for t in texts(found, "warning") if "fewer than 5 samples" in t]
    first, second, third = planted["steps"]
    assert {"p90", "p95", "p98", "p99"} <= set(first["thin"]) and "p100" not in first["thin"]
    keys = sorted({k for r in planted["steps"] for k in r["thin"]}, key=lambda k: int(k[1:]))
    assert thin.startswith(
        f"{'/'.join(keys)} of the order endpoint rest on fewer than 5 samples above them in 3 steps: "
        f"1 user ({first['requests']} order requests), 2 users ({second['requests']} order requests), "
        f"3 users ({third['requests']} order requests)"
    )
    busiest = [t for t in texts(found) if t.startswith("The busiest server process")]
    assert busiest == [
        "The busiest server process was ecommerce: 70 % of one core at 3 users; "
        "the whole stack with Locust used 70 % of the host's 2 cores, so 30 % of the host's CPU was to spare."
    ]


def test_capacity_reached_is_reported():
    planted = summary(extra={"capacity_rpm": 1200})
    planted["steps"][-1]["held"] = False
    assert "Capacity: 1200 RPM was the highest target that held every threshold; 3 users did not." in texts(
        findings.findings(planted), "info"
    )


def test_plurals_and_shortened_sql():
    assert text.plural(1, "user") == "1 user" and text.plural(3, "user") == "3 users"
    statement = "SELECT `a_long_identifier` FROM `some_table` WHERE `another_identifier` = ?"
    assert text.shorten(statement, 30) == "SELECT `a_long_identifier` …"
    assert text.shorten(statement, 200) == statement


def test_orders_left_in_fulfillment_error_are_explained_beside_nothing_lost():
    audit = {
        "successes": 100,
        "orders": 100,
        "enrollments": 97,
        "lost": 0,
        "duplicates": 0,
        "orders_by_status": {"Complete": 97, "Fulfillment Error": 3},
        "statuses": {"fulfillment_error": "Fulfillment Error"},
    }
    found = findings.audit_findings({"audit": audit})
    assert texts(found, "info") == [
        "Nothing lost over the whole run (the step tables count its measured steps only): "
        "100 answered orders, 100 committed, 97 enrollments."
    ]
    (warning,) = texts(found, "warning")
    assert warning.startswith("3 orders of 100 ended in Fulfillment Error: the order was kept and answered")
    assert "retry_fulfillment --all" in warning

    audit["orders_by_status"] = {"Complete": 100}
    assert texts(findings.audit_findings({"audit": audit}), "warning") == []


def test_a_warm_up_is_reported_apart_and_says_what_it_would_have_broken():
    planted = summary()
    planted["verdict"]["thresholds"] = [{"threshold": "p95<460", "value": 80, "ok": True}]
    cold = {"label": "warm-up", "seconds": 60, "target_rpm": 1200.0, "requests": 1200, "failures": 0}
    planted["warm_up"] = {**cold, "missed": 3, "p50": 41, "p95": 1895}
    (said,) = [t for t in texts(findings.findings(planted), "info") if "warm-up" in t]
    assert said == (
        "The run began with a 60 s warm-up at 1200 RPM, reported apart from the steps and not judged: "
        "p50 41 ms, p95 1895 ms, 0 failures, 3 missed. It would have broken p95<460: a cold start, the "
        "reason it is not a step. Its orders are in the audit's counts."
    )
    planted["warm_up"]["p95"] = 90
    (said,) = [t for t in texts(findings.findings(planted), "info") if "warm-up" in t]
    assert "would have broken" not in said
    del planted["warm_up"]
    assert not any("warm-up" in t for t in texts(findings.findings(planted)))


def test_purchases_sent_later_than_their_arrivals_were_due_are_named_by_step():
    planted = summary()
    first, second, third = planted["steps"]
    first["from_schedule"] = {"p50": 1, "p95": first["p95"] + 4, "p99": 1, "samples": 900}  # within noise
    second["from_schedule"] = {"p50": 1, "p95": second["p95"] + 200, "p99": 1, "samples": 900}
    third["from_schedule"] = {"p50": 1, "p95": third["p95"], "p99": 1, "samples": 900}
    (late,) = [t for t in texts(findings.findings(planted), "warning") if "due times" in t]
    assert late.startswith("In 1 step the purchases' p95 measured from their arrivals' due times exceeded")
    assert f"2 users {second['p95'] + 200} ms against {second['p95']} ms (+200 ms)" in late
    assert "1 user " not in late and "3 users" not in late
    assert "waited for a free user or a busy Locust process" in late

    for row in planted["steps"]:
        row["from_schedule"]["p95"] = row["p95"] + 3
    assert not any("due times" in t for t in texts(findings.findings(planted)))
    assert not any("due times" in t for t in texts(findings.findings(summary())))  # closed model


def shed_figure(**kwargs):
    figure = {
        "resolution_seconds": 1,
        "cores": 2,
        "spare_pct": 10,
        "busy_limit_cpu_percent": 180.0,
        "shed": 40,
        "unmeasured": 0,
        "with_cpu_to_spare": 0,
        "seconds_with_cpu_to_spare": 0,
        "first_with_cpu_to_spare": None,
        "least_busy_cpu_percent": 184.5,
    }
    return {**figure, **kwargs}


def test_shed_requests_with_cpu_to_spare_are_a_warning_and_on_a_full_machine_are_not():
    spare = shed_figure(
        with_cpu_to_spare=12,
        seconds_with_cpu_to_spare=3,
        first_with_cpu_to_spare={"t": 35, "shed": 5, "machine_cpu_percent": 150.2},
        least_busy_cpu_percent=150.2,
    )
    assert texts(findings.findings(summary(extra={"shed_by_machine": spare})), "warning")[-1] == (
        "12 of 40 shed requests came in a second when the machine had more than 10 % of its CPU to "
        "spare (under 180 % of 200 %; 3 seconds in all, the first 35 s into the run at 150.2 %): the "
        "services refused work the machine could still have done."
    )
    full = findings.findings(summary(extra={"shed_by_machine": shed_figure(unmeasured=2)}))
    assert (
        "Every shed request (38) came in a second when the machine's 2 cores were at least 90 % busy "
        "(the least busy such second: 184.5 % of 200 %); 2 shed requests came when the machine was "
        "not read." in texts(full, "info")
    )
    assert not [t for t in texts(full) if "to spare (under" in t]
    nothing = findings.findings(summary(extra={"shed_by_machine": shed_figure(shed=0)}))
    assert not [t for t in texts(nothing) if "shed request" in t]
