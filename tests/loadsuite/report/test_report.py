"""Rows, verdict inputs, report files and comparisons, from synthetic runs (no Locust)."""

import json
from pathlib import Path

import pytest

from locustfiles.suite import profiles, report
from locustfiles.suite.core import blocks, names
from locustfiles.suite.core.histogram import nearest_rank
from locustfiles.suite.figures import results, time_split
from locustfiles.suite.record.recorder import Recorder
from locustfiles.suite.report import compare, terminal
from locustfiles.suite.report.sections import traffic
from locustfiles.suite.stack import hosts
from locustfiles.suite.users import paid_journey
from locustfiles.suite.verdict import findings
from tests.loadsuite import synthetic

BASKET = names.ORDER_ENDPOINT


def recorded(profile="ramp", env=None, seed=3, slow_after=None):
    p, recorder, raw, _ = synthetic.recorded(profile, env, seed, slow_after)
    return p, recorder, raw


def test_step_rows_hold_exact_percentiles_and_rates():
    p, recorder, raw = recorded()
    rows = results.step_rows(p, recorder.steps, {})
    for row in rows:
        values = sorted(raw[row["index"]])
        assert row["requests"] == len(values)
        assert row["p95"] == nearest_rank(values, 95)
        assert row["p100"] == max(values)
        assert row["rps"] == pytest.approx(len(values) / 10, abs=0.01)
        assert row["rpm"] == pytest.approx(len(values) * 6, abs=0.1)
        assert row["failures"] == row["statuses"].get("503", 0)
    overall = results.overall_row(p, recorder.steps)
    assert overall["requests"] == 3000
    assert overall["p50"] == nearest_rank(sorted(v for vs in raw.values() for v in vs), 50)


def test_successes_count_2xx_answers_inside_and_outside_the_steps():
    p, recorder, _ = recorded()
    recorder.request(BASKET, 5000.0, 10, True, 201)  # after the plan
    recorder.fold_local()
    inside = sum(r["statuses"].get("201", 0) for r in results.step_rows(p, recorder.steps, {}))
    assert results.successes(recorder.steps, recorder.outside_plan) == inside + 1


def test_a_paid_purchase_succeeds_when_its_order_is_read_back():
    """The paid journey reads its order only once ecommerce took the notification: each 200
    of that read is an answered purchase, the checkout's 201 (no order yet) is not."""
    p, recorder, _ = recorded()
    before = results.successes(recorder.steps, recorder.outside_plan)
    start = recorder.t0 + 1
    recorder.request(paid_journey.BASKET, start, 10, True, 201)
    recorder.request(paid_journey.BASKET, start, 10, True, 201)
    recorder.request(paid_journey.ORDER_READ, start, 10, True, 200)
    recorder.request(paid_journey.ORDER_READ, start, 10, False, 404)
    recorder.request(paid_journey.ORDER_READ, 5000.0, 10, True, 200)  # after the plan
    recorder.fold_local()
    assert results.successes(recorder.steps, recorder.outside_plan) == before + 2


def test_soak_trend_is_the_least_squares_slope():
    rows = [{"index": i, "p95": 100 + 10 * i} for i in range(6)]
    trend = results.soak_trend(rows)
    assert trend["p95_ms_per_bucket"] == 10
    assert (trend["p95_first"], trend["p95_last"], trend["p95_change_pct"]) == (100, 150, 50.0)
    assert results.soak_trend(rows[:1])["p95_ms_per_bucket"] is None


def test_soak_memory_growth_is_measured_after_the_warm_up_bucket():
    # The first bucket fills caches and pools (+80 MB); then ecommerce grows 0.5 MB a bucket
    # and lms_stub not at all.
    rows = [
        {
            "index": i,
            "p95": 40,
            "rss_mb": {"ecommerce": (300 if i == 0 else 380 + 0.5 * i), "lms_stub": 200.0},
        }
        for i in range(6)
    ]
    growth = results.soak_trend(rows)["rss_after_warm_up"]
    assert growth["ecommerce"] == {"mb_per_bucket": 0.5, "first_mb": 380.5, "last_mb": 382.5}
    assert growth["lms_stub"]["mb_per_bucket"] == 0
    # After a warm-up phase every bucket counts, and a flat line is 0, never "-0".
    rows[0]["rss_mb"]["ecommerce"] = 380.0
    rows[-1]["rss_mb"]["lms_stub"] = 199.999
    after_warm_up = results.soak_trend(rows, warm_up_buckets=0)["rss_after_warm_up"]
    assert after_warm_up["ecommerce"]["first_mb"] == 380.0
    assert str(after_warm_up["lms_stub"]["mb_per_bucket"]) == "0.0"


def test_the_soak_report_says_from_which_bucket_memory_is_read(tmp_path):
    p, recorder, _ = recorded("soak", {"HOURS": "0.01", "BUCKET_SECONDS": "12", "WARMUP_SECONDS": "5"})
    summary = summary_for(p, recorder, {"profile_sections": ["soak"]})
    summary.update(profiles.get("soak").figures(summary, []))
    text, _ = written(tmp_path / "warm", summary)
    assert "Peak RSS of every bucket after the 5 s warm-up." in text
    summary["warm_up"] = None
    summary.update(profiles.get("soak").figures(summary, []))
    text, _ = written(tmp_path / "cold", summary)
    assert "Peak RSS from bucket 2 on (bucket 1 filled pools and caches; no warm-up ran)." in text


def summary_for(p, recorder, profile_extra=None):
    return synthetic.summary_for(p, recorder, profile_extra)


def test_the_run_folder_has_summary_reports_and_plots(tmp_path):
    p, recorder, _ = recorded()
    summary = summary_for(p, recorder)
    report.write(summary, tmp_path)
    for name in ("summary.json", "report.md", "report.html", "percentiles.png", "resources.png"):
        assert (tmp_path / name).stat().st_size > 0, name
    text = (tmp_path / "report.md").read_text()
    assert "| 2 users | 2 |" in text and "pool_exhausted" in text
    assert f"| {summary['steps'][1]['p95']} |" in text
    html = (tmp_path / "report.html").read_text()
    assert "data:image/png;base64," in html and "<table>" in html
    assert (
        json.loads((tmp_path / "summary.json").read_text())["steps"][0]["p95"] == summary["steps"][0]["p95"]
    )


def test_an_open_model_step_table_shows_the_p95_from_the_schedule_beside_p95(tmp_path):
    env = {"RPM": "600", "DURATION": "20", "WARMUP_SECONDS": "0"}
    p, recorder, _, _ = synthetic.recorded("rpm", env, late=0.5)
    summary = summary_for(p, recorder)
    (row,) = summary["steps"]
    assert row["from_schedule"]["samples"] == row["requests"] == 3000
    assert row["from_schedule"]["p95"] > row["p95"]
    table = next(b for b in traffic.steps(summary)["blocks"] if b["kind"] == "table")
    at = table["headers"].index("p95")
    assert table["headers"][at + 1] == "p95 from schedule"
    cells = [[c["text"] for c in line] for line in table["rows"]]
    # One step: it is the whole run, with no "all" row repeating it.
    assert [line[at : at + 2] for line in cells] == [[str(row["p95"]), str(row["from_schedule"]["p95"])]]
    assert traffic.FROM_SCHEDULE_NOTE in table["notes"]
    report.write(summary, tmp_path)
    assert f"| {row['p95']} | {row['from_schedule']['p95']} |" in (tmp_path / "report.md").read_text()

    # The terminal's table too, after p95, with a line saying what it is.
    printed = terminal.lines(summary)
    header = next(line for line in printed if line.startswith("step"))
    assert header.split()[-4:] == ["p95", "p95", "sched", "p99"]
    (only,) = [line for line in printed[printed.index(header) + 1 :] if line.startswith(row["label"])]
    assert only.split()[-3:] == [str(row["p95"]), str(row["from_schedule"]["p95"]), str(row["p99"])]
    assert not any(line.startswith("all ") for line in printed)
    assert any(line.startswith("(p95 sched: from each purchase's due time") for line in printed)

    closed, recorder, _ = recorded()
    closed_summary = summary_for(closed, recorder)
    table = next(b for b in traffic.steps(closed_summary)["blocks"] if b["kind"] == "table")
    assert "p95 from schedule" not in table["headers"] and traffic.FROM_SCHEDULE_NOTE not in table["notes"]
    assert not any("sched" in line for line in terminal.lines(closed_summary))


def test_the_report_splits_the_order_time_from_the_services_server_timing(tmp_path):
    p = profiles.get("ramp").plan({"USERS": "1 2", "STEP_SECONDS": "10"})
    recorder = Recorder(p)
    recorder.t0 = 1000
    chain = {
        "app": 2.0,
        "db": 1.0,
        "ecommerce": 40.0,
        "total": 43.0,
        "ecommerce-app": 15.0,
        "ecommerce-db": 12.0,
        "ecommerce-lms": 8.0,
        "ecommerce-total": 35.0,
    }
    recorder.request(BASKET, 1001.0, 50.0, True, 201, chain)
    recorder.request(BASKET, 1012.0, 50.0, True, 201, None)  # step 2: no service timed anything
    recorder.fold_local()
    summary = summary_for(p, recorder)

    first, second = summary["steps"]
    assert time_split.time_split(first) == {
        "LMS app": 2.0,
        "LMS db": 1.0,
        "ecommerce app": 15.0,
        "ecommerce db": 12.0,
        "enrollment call": 8.0,
        # 50 seen by the client - 43 inside the LMS, + 40 the LMS waited - 35 inside ecommerce
        "network and queues": 12.0,
    }
    assert time_split.time_split(second) is None
    report.write(summary, tmp_path)
    assert (tmp_path / "time_split.png").stat().st_size > 0
    text = (tmp_path / "report.md").read_text()
    assert "| 1 user | 50 | 2 | 1 | 15 | 12 | 8 | 12 |" in text
    assert "| 2 users | 50 | – | – | – | – | – | – |" in text


def test_a_report_without_server_timings_has_no_split(tmp_path):
    p, recorder, _ = recorded()
    report.write(summary_for(p, recorder), tmp_path)
    assert not (tmp_path / "time_split.png").exists()
    assert "Where the order request's time went" not in (tmp_path / "report.md").read_text()


def test_capacity_and_soak_reports_get_their_plots(tmp_path):
    p, recorder, _ = recorded("capacity", {"RPM": "600 1200 1800", "STEP_SECONDS": "10"})
    capacity = {"capacity_rpm": 1200, "profile_sections": ["capacity"]}
    report.write(summary_for(p, recorder, capacity), tmp_path / "capacity")
    assert (tmp_path / "capacity" / "capacity.png").exists()
    text = (tmp_path / "capacity" / "report.md").read_text()
    assert "Capacity: 1200 RPM, the highest target" in text
    # The profile's warm-up has a table of its own, before the steps, and a line in the title.
    assert text.splitlines()[0].endswith(
        ": 600 RPM, 1200 RPM, 1800 RPM, 1800 RPM (not judged), after a 60 s warm-up"
    )
    assert text.index("Warm-up, before the steps: 60 s at 600 RPM") < text.index("| 600 RPM |")
    assert text.count("| warm-up |") == 1
    html = (tmp_path / "capacity" / "report.html").read_text()
    assert "Warm-up, before the steps: 60 s at 600 RPM" in html and html.count(">warm-up<") == 1
    p, recorder, _ = recorded("soak", {"HOURS": "0.01", "BUCKET_SECONDS": "12", "WARMUP_SECONDS": "0"})
    rows_trend = {
        "trend": results.soak_trend(results.step_rows(p, recorder.steps, {})),
        "profile_sections": ["soak"],
    }
    report.write(summary_for(p, recorder, rows_trend), tmp_path / "soak")
    assert (tmp_path / "soak" / "soak.png").exists()


def test_compare_marks_only_differences_beyond_the_noise_floor():
    p, recorder, _ = recorded(seed=3)
    a = summary_for(p, recorder)
    p, recorder, _ = recorded(seed=3, slow_after=20)  # the last step five times slower
    b = summary_for(p, recorder, {"config": {"order_counter": "oscar"}})
    result = compare.compare(a, b, noise_pct=10, noise_ms=5)
    first, last = result["steps"][0], result["steps"][-1]
    assert not any(first[k]["significant"] for k in compare.KEYS)
    assert last["p95"]["significant"] and last["p95"]["pct"] > 100
    assert last["p95"]["ms"] == last["p95"]["b"] - last["p95"]["a"]


def test_compare_sets_a_step_without_requests_beside_one_with_them():
    p, recorder, _ = recorded()
    a, b = summary_for(p, recorder), summary_for(p, recorder)
    a["steps"][0]["rps"] = 0.0  # a run whose first step got no request (a web UI run's first user)
    text = compare.markdown(compare.compare(a, b), "a", "b")
    assert f"| 1 user | 0 → {b['steps'][0]['rps']:g} (–) |" in text


def test_compare_cli_writes_its_folder(tmp_path, monkeypatch, capsys):
    p, recorder, _ = recorded()
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "summary.json").write_text(json.dumps(summary_for(p, recorder)))
    monkeypatch.setenv("VAR_DIR", str(tmp_path))
    assert compare.main([str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    folder = Path(capsys.readouterr().out.strip().splitlines()[-1])
    assert {f.name for f in folder.iterdir()} == {"compare.json", "compare.md", "compare.html"}
    assert "0 cells are" in (folder / "compare.md").read_text()
    assert compare.main([str(tmp_path / "a"), str(tmp_path / "missing")]) == 2


def test_host_profiles_size_and_pin_ecommerce():
    env, medium = hosts.environment("m3.medium", cores=2)
    assert env["ECOMMERCE_WORKERS"] == "3" and env["ECOMMERCE_CPUS"] == "0"
    env, xlarge = hosts.environment("m3.xlarge", cores=2)
    assert env["ECOMMERCE_WORKERS"] == "9" and "ECOMMERCE_CPUS" not in env
    assert xlarge["note"] == "not pinned: this machine has 2 cores, the profile 4"
    assert hosts.environment("", cores=2) == ({}, {"name": None})
    with pytest.raises(ValueError):
        hosts.environment("t2.micro")


def test_a_reading_counts_the_server_processes_that_went_away(tmp_path):
    from locustfiles.suite.record.sampler import COUNTERS, GAUGES, ServerSampler

    status = {name: 0 for name in (*COUNTERS, *GAUGES)}
    before = {"time": 0.0, "cpu": {"ecommerce": {1: 1.0, 2: 1.0, 3: 1.0}}, "rss": {}, "status": status}
    # worker 2 was recycled (4 replaced it); 1 and 3 kept running
    after = {"time": 10.0, "cpu": {"ecommerce": {1: 2.0, 3: 1.5, 4: 0.5}}, "rss": {}, "status": status}
    reading = ServerSampler(tmp_path, ("x",)).reading(before, after)
    assert reading["processes_replaced"] == {"ecommerce": 1}
    rows = [{"index": i, "p95": 40, "processes_replaced": {"ecommerce": i % 2}} for i in range(4)]
    assert results.soak_trend(rows)["processes_replaced"] == 2


def written(tmp_path, summary):
    report.write(summary, tmp_path)
    return (tmp_path / "report.md").read_text(), (tmp_path / "report.html").read_text()


def test_a_failures_kind_not_its_words_decides_where_the_report_shows_it(tmp_path):
    """Under the badge and among the findings, a broken threshold is told from its check; any
    other failure in its own words, though they read like a threshold's."""
    p, recorder, _ = recorded()
    summary = summary_for(p, recorder)
    summary["verdict"] = {
        "thresholds": [{"threshold": "p95<100", "value": 380, "ok": False}],
        "thresholds_at": "run",
        "passed": False,
        "failures": [
            {"kind": "thresholds", "about": None, "text": "p95 too slow, in other words"},
            {"kind": "client", "about": None, "text": "thresholds failed: the client's own words"},
        ],
    }
    text, html = written(tmp_path, summary)
    header = text[: text.index("## Findings")]
    assert "- threshold p95<100 (measured 380) broken" in header
    assert "- thresholds failed: the client's own words" in header
    assert "in other words" not in text
    assert "<li>thresholds failed: the client&#39;s own words</li>" in html
    problems = [f["text"] for f in findings.findings(summary) if f["level"] == "problem"]
    assert "The run failed: thresholds failed: the client's own words." in problems
    assert not any("in other words" in problem for problem in problems)


def test_the_report_opens_with_the_verdict_then_findings_then_provenance(tmp_path):
    p, recorder, _ = recorded()
    summary = summary_for(p, recorder)
    summary["verdict"] = {
        "thresholds": [{"threshold": "p95<100", "value": 380, "ok": False}],
        "thresholds_at": "run",
        "passed": False,
        "failures": [{"kind": "thresholds", "about": None, "text": "thresholds failed: p95<100"}],
    }
    summary["findings"] = [{"level": "problem", "text": "A planted finding."}]
    text, html = written(tmp_path, summary)
    assert text.index("**verdict: FAIL**") < text.index("- threshold p95<100 (measured 380) broken")
    assert (
        text.index("## Findings")
        < text.index("- **problem**: A planted finding.")
        < text.index("## Test setup")
    )
    assert '<span class="badge fail">verdict: FAIL</span>' in html
    assert html.index("badge fail") < html.index("A planted finding.") < html.index("0123456789abcdef")
    for fact in ("| memory | 7.8 GB |", "| mariadb | 11.8.3-MariaDB |", "| think time | 3–5 s |"):
        assert fact in text
    assert "| workers | 5 | 5 |" in text and "| uncommitted changes | no |" in text


def test_every_endpoint_per_step_is_in_both_renderings(tmp_path):
    p, recorder, _, log = synthetic.recorded(reads=600)
    summary = synthetic.summary_for(p, recorder, log=log)
    text, html = written(tmp_path, summary)
    for row in summary["steps"]:
        for name, found in row["endpoints"].items():
            cells = [name, row["label"], found["requests"], found["failures"], found["mean"], found["p50"]]
            assert "| " + " | ".join(blocks.fmt(c) for c in cells) + " |" in text
            assert (
                f'<td class="code">{name}</td><td class="text">{row["label"]}</td>'
                f'<td class="num">{found["requests"]}</td>' in html
            )
    endpoints = text.split("## Every endpoint")[1].split("\n## ")[0]
    assert endpoints.count(f"| {synthetic.READ} |") == 4  # three steps and the whole run


def test_thin_percentiles_are_marked_and_others_are_not(tmp_path):
    p, recorder, _, log = synthetic.recorded(requests=60)
    summary = synthetic.summary_for(p, recorder, log=log)
    first = summary["steps"][0]
    assert "p99" in first["thin"] and "p50" not in first["thin"]
    text, html = written(tmp_path, summary)
    row = next(line for line in text.splitlines() if line.startswith("| 1 user | 1 |"))
    assert f"| {first['p50']} |" in row and f"| {first['p99']} † |" in row and f"| {first['p100']} |" in row
    assert "† the percentile rests on fewer than 5 samples" in text
    assert (
        f'<td class="num thin" title="fewer than 5 samples above this percentile">{first["p99"]}<sup>†</sup>'
        in html
    )

    p, recorder, _, log = synthetic.recorded()
    text, _ = written(tmp_path, synthetic.summary_for(p, recorder, log=log))
    assert "†" not in text.split("## Every endpoint")[0]


def test_profile_sections_come_from_the_summary_not_the_profile_name(tmp_path):
    p, recorder, _ = recorded()
    text, _ = written(
        tmp_path / "a", summary_for(p, recorder, {"capacity_rpm": 0, "profile_sections": ["capacity"]})
    )
    assert "## Capacity" in text and (tmp_path / "a" / "capacity.png").exists()
    p, recorder, _ = recorded("capacity", {"RPM": "600 1200", "STEP_SECONDS": "10"})
    text, _ = written(
        tmp_path / "b", summary_for(p, recorder, {"capacity_rpm": 1200, "profile_sections": []})
    )
    assert "## Capacity" not in text and not (tmp_path / "b" / "capacity.png").exists()


def test_database_deltas_levels_size_and_sql_are_apart_and_labelled(tmp_path):
    p, recorder, _ = recorded()
    summary = summary_for(p, recorder)
    long_statement = (
        "SELECT "
        + ", ".join(f"`order_order` . `column_number_{i}`" for i in range(20))
        + " FROM `order_order`"
    )
    summary["sql"] = {
        "top": [synthetic.statement(long_statement)],
        "no_index": [],
        "background": [synthetic.statement("UPDATE `counter_total` SET `value` = `value` + ?", 30)],
        "slow_query_seconds": 0.5,
    }
    text, html = written(tmp_path, summary)
    database = text.split("## Database")[1].split("## SQL")[0]
    assert database.index("Counters: the change during each step") < database.index(
        "| step | Com_commit | Connections | Questions |"
    )
    assert "Levels: the value at the end of each step" in database
    assert (
        "| step | Threads_connected | database size MB |" in database and "| 2 users | 12 | 21 |" in database
    )
    assert "long_query_time, 0.5 s" in database
    sql = text.split("## SQL statements")[1]
    assert (
        sql.index("The requests' costliest")
        < sql.index("The background job's statements")
        < sql.index("UPDATE `counter_total`")
    )
    shown = next(line for line in sql.splitlines() if "`column_number_0`" in line).split(" | ")[1]
    assert shown.endswith(" …") and long_statement.startswith(shown.removesuffix(" …"))
    assert long_statement[len(shown) - 2] == " "  # cut between words, not inside an identifier
    assert "td.code{" in html and "text-align:left" in html


def test_the_load_generator_table_warns_near_a_full_core(tmp_path):
    p, recorder, _ = recorded()
    text, html = written(tmp_path, synthetic.summary_for(p, recorder, locust_cpu=96.0))
    assert "| 1 user | 96 ⚠ | 80 |" in text and "at or above 90 % of one core" in text
    assert '<td class="num warn">96 ⚠</td>' in html
    text, _ = written(tmp_path, synthetic.summary_for(p, recorder, locust_cpu=40.0))
    assert "| 1 user | 40 | 80 |" in text and "⚠ at or above" not in text


def test_the_timeline_is_plotted_with_the_step_boundaries(tmp_path):
    p, recorder, _, log = synthetic.recorded()
    summary = synthetic.summary_for(p, recorder, log=log)
    assert summary["timeline"]["step_starts"] == [0, 10, 20]
    text, _ = written(tmp_path, summary)
    assert "![Timeline of the run](timeline.png)" in text and (tmp_path / "timeline.png").stat().st_size > 0
    summary.pop("timeline")
    (tmp_path / "timeline.png").unlink()
    text, _ = written(tmp_path, summary)
    assert "No timeline was recorded for this run." in text and not (tmp_path / "timeline.png").exists()


def test_a_checkout_changed_during_the_run_is_said_in_the_test_setup(tmp_path):
    p, recorder, _ = recorded()
    summary = summary_for(p, recorder)
    text, _ = written(tmp_path / "same", summary)
    assert "changed during the run" not in text
    summary["provenance"]["git"]["changed_during_run"] = {"commit": "f" * 40, "dirty": True}
    text, html = written(tmp_path / "changed", summary)
    assert "| commit | 0123456789abcdef0123456789abcdef01234567 |" in text
    assert f"| changed during the run | at the end: {'f' * 40} (with uncommitted changes) |" in text
    assert "changed during the run" in html
