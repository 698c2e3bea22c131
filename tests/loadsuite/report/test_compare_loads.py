"""Issue 43, item 5: a comparison that cannot mislead. Runs of different loads are compared
under a banner saying how they differ; steps are matched by their load, never by position or
label; a change is significant only where both runs have samples enough for that percentile
(never p100); the configuration that differs is a table (setting, A, B) of text; the services'
CPU is drawn on a scale of its own."""

import matplotlib.pyplot as plt
from markupsafe import escape

from locustfiles.suite.figures.results import thin
from locustfiles.suite.report import compare, loads, versus
from tests.loadsuite import synthetic
from tests.loadsuite.report.test_compare import Page

RPM_ENV = {"RPM": "250", "DURATION": "60", "WARMUP_SECONDS": "0"}
SMOKE_ENV = {"USERS": "2", "STEP_SECONDS": "5"}


def run(profile: str, env: dict, requests: int = 3000, seed: int = 3, slow_after=None) -> dict:
    """A synthetic run of ``profile`` from ``env``, with the settings such a run records."""
    p, recorder, _, log = synthetic.recorded(
        profile, env, seed=seed, requests=requests, slow_after=slow_after
    )
    summary = synthetic.summary_for(p, recorder, log=log, machine_cpu=150.0)
    return synthetic.with_settings(summary, env)


def rpm_and_smoke() -> tuple[dict, dict]:
    """The new user's trial: an rpm run, then a smoke run of a handful of purchases."""
    return run("rpm", RPM_ENV, requests=250), run("smoke", SMOKE_ENV, requests=4, seed=5)


def percentile_rows(html: str) -> list[list[tuple[str, str]]]:
    (table,) = Page(html).sections["percentiles"]["tables"]
    return table[1:]


def test_an_rpm_run_against_a_smoke_run_says_first_how_their_loads_differ():
    result = compare.compare(*rpm_and_smoke())
    html = compare.html(result, "runs/a", "runs/b")
    page = Page(html)
    assert list(page.sections)[:2] == ["loads-differ", "runs"]
    assert page.sections["loads-differ"]["title"] == "The loads differ: these runs are not like for like"
    assert result["loads"]["differences"] == [
        "Profile: A is rpm, B is smoke.",
        f"Load model: A {loads.MODELS[True]}; B {loads.MODELS[False]}.",
        "Steps: A 250 RPM; B 2 users.",
    ]
    for sentence in result["loads"]["differences"]:
        assert str(escape(sentence)) in html
    text = compare.markdown(result, "a", "b")
    assert text.index("## The loads differ") < text.index("## The runs") < text.index("| step | RPS |")
    assert "* Steps: A 250 RPM; B 2 users." in text


def test_smokes_users_step_is_never_labelled_with_a_rate():
    result = compare.compare(*rpm_and_smoke())
    assert [row["step"] for row in result["steps"]] == ["250 RPM (A only)", "2 users (B only)"]
    rows = percentile_rows(compare.html(result, "a", "b"))
    assert [row[0][0] for row in rows] == ["250 RPM (A only)", "2 users (B only)", "all"]
    smoke = rows[1]
    assert "RPM" not in smoke[0][0]
    # B's own figures, not A's, and no change computed across the two loads.
    b = rpm_and_smoke()[1]["steps"][0]
    assert smoke[2][0] == f"– → {b['p50']:g}" and smoke[-1][0] == f"– → {b['p100']:g}"


def test_no_mark_on_p100_or_on_a_percentile_thin_in_either_run():
    a, b = rpm_and_smoke()
    b["overall"] = {**a["overall"], **{k: v * 3 for k, v in a["overall"].items() if k in compare.KEYS}}
    b["overall"]["requests"] = 4  # three times slower, on four requests
    result = compare.compare(a, b)
    assert result["significant"] == 0
    for row in percentile_rows(compare.html(result, "a", "b")):
        assert not any("significant" in kind.split() or text.endswith("!") for text, kind in row), row[0]
    overall = result["overall"]
    assert all(overall[key]["thin"] for key in compare.KEYS)  # p50 needs 10 requests, p100 always
    assert "p100 always (the slowest request alone): never called significant" in compare.markdown(
        result, "a", "b"
    )


def test_a_change_is_significant_only_where_both_runs_have_samples_enough():
    # The same load; B five times slower from the start, on fewer requests.
    a = run("ramp", {"USERS": "1 2 3", "STEP_SECONDS": "10"}, requests=3000)
    b = run("ramp", {"USERS": "1 2 3", "STEP_SECONDS": "10"}, requests=300, seed=4, slow_after=0.001)
    result = compare.compare(a, b)
    assert result["loads"]["differences"] == []
    for row_a, row_b, found in zip(a["steps"], b["steps"], result["steps"], strict=True):
        supported = {k for k in compare.KEYS if k not in {*thin(row_a["requests"]), *thin(row_b["requests"])}}
        assert supported and "p99" not in supported  # about 100 requests a step in B
        for key in compare.KEYS:
            beyond = abs(found[key]["pct"]) >= 10 and abs(found[key]["ms"]) >= 5
            assert found[key]["significant"] == (beyond and key in supported and key != "p100"), key
        assert found["p50"]["significant"] and not found["p100"]["significant"]
        assert found["p100"]["thin"] and found["p100"]["pct"] > 100


def test_p100_is_never_significant_even_on_thousands_of_requests():
    a = run("ramp", {"USERS": "1 2 3", "STEP_SECONDS": "10"})
    b = run("ramp", {"USERS": "1 2 3", "STEP_SECONDS": "10"}, slow_after=20)
    last = compare.compare(a, b)["steps"][-1]
    assert last["p99"]["significant"] and last["p100"]["pct"] > 100
    assert not last["p100"]["significant"] and last["p100"]["thin"]


def test_steps_are_matched_by_their_load_not_by_position_or_label():
    a = run("ramp", {"USERS": "1 2 3", "STEP_SECONDS": "10"})
    b = run("ramp", {"USERS": "2 3 4", "STEP_SECONDS": "10"}, seed=4)
    result = compare.compare(a, b)
    assert [row["step"] for row in result["steps"]] == [
        "1 user (A only)",
        "2 users",
        "3 users",
        "4 users (B only)",
    ]
    for found, row_a, row_b in zip(result["steps"][1:3], a["steps"][1:], b["steps"][:2], strict=True):
        assert (found["p95"]["a"], found["p95"]["b"]) == (row_a["p95"], row_b["p95"])
        assert row_a["users"] == row_b["users"]
    assert result["steps"][0]["p95"] == {
        "a": a["steps"][0]["p95"],
        "b": None,
        "ms": None,
        "pct": None,
        "significant": False,
    }
    assert result["loads"]["differences"] == [
        "Steps: A 1 user, 2 users, 3 users; B 2 users, 3 users, 4 users."
    ]
    assert "2 matched; 1 of A's and 1 of B's have no step of the same load" in result["loads"]["matched"]


def test_open_model_steps_pair_by_rate_and_repeated_rates_in_order():
    def rows(*loads_):
        return [
            {"index": i, "target_rpm": rpm, "users": None, "label": name}
            for i, (rpm, name) in enumerate(loads_)
        ]

    a = rows((300, "300 RPM"), (600, "600 RPM"), (900, "900 RPM"))
    b = rows((600, "600 RPM"), (450, "450 RPM (probe)"), (900, "900 RPM"), (1200, "1200 RPM"))
    pairs = loads.match(a, b)
    assert [(x and x["target_rpm"], y and y["target_rpm"]) for x, y in pairs] == [
        (300, None),
        (600, 600),
        (None, 450),
        (900, 900),
        (None, 1200),
    ]
    buckets = rows(*[(1038, f"bucket {i + 1}") for i in range(3)])
    assert [(x["index"], y["index"]) for x, y in loads.match(buckets, buckets[:2])[:2]] == [(0, 0), (1, 1)]
    assert loads.match(buckets, buckets[:2])[2] == (buckets[2], None)
    closed = [{"index": 0, "users": 600, "target_rpm": None, "label": "600 users"}]
    assert loads.match(a[1:2], closed) == [(a[1], None), (None, closed[0])]  # 600 users is no 600 RPM


def test_the_configuration_that_differs_is_a_table_of_setting_a_and_b():
    a, b = rpm_and_smoke()
    a["config"] = {
        "order_counter": "events",
        "database_at_start": {"preloaded_purchases": 0, "size_mb": 20.5},
    }
    b["config"] = {"order_counter": "oscar", "database_at_start": {"preloaded_purchases": 0, "size_mb": 3.5}}
    result = compare.compare(a, b)
    (table,) = Page(compare.html(result, "a", "b")).sections["runs"]["tables"]
    header, *rows = [[text for text, _ in row] for row in table]
    assert header == ["setting", "A", "B"]
    assert rows == [
        ["USERS", "–", "2"],
        ["STEP_SECONDS", "–", "5"],
        ["RPM", "250", "–"],
        ["DURATION", "60", "–"],
        ["WARMUP_SECONDS", "0", "–"],
        ["THRESHOLDS", "p95<460 errors<0.01 missed<0.01", "errors<0.01"],
        ["WAIT_MIN", "–", "3"],  # an open model's learners have no think time
        ["WAIT_MAX", "–", "5"],
        ["order_counter", "events", "oscar"],
        ["database_at_start.size_mb", "20.5", "3.5"],
    ]
    assert not any(c in cell for row in rows for cell in row for c in "{}[]'")
    text = compare.markdown(result, "a", "b")
    assert "| setting | A | B |" in text and "| database_at_start.size_mb | 20.5 | 3.5 |" in text
    assert "| USERS | – | 2 |" in text and "its profile does not take it" in text


def test_runs_from_before_recorded_settings_are_compared_from_their_plan_and_mix():
    a, b = rpm_and_smoke()
    del a["settings"], b["settings"]
    b["provenance"]["load"]["weights"] = {"buy": 1, "pay": 1, "read": 0}
    result = compare.compare(a, b)
    assert result["loads"]["differences"][1:] == [
        f"Load model: A {loads.MODELS[True]}; B {loads.MODELS[False]}.",
        "Steps: A 250 RPM; B 2 users.",
        f"Learners' mix ({loads.MIX_WORDS}): A 50 : 1 : 5; B 1 : 1 : 0.",
    ]
    assert result["configuration"] == []
    assert "A and B are runs from before summaries recorded their settings (schema 7)" in compare.markdown(
        result, "a", "b"
    )
    del a["plan"], b["plan"]  # older still: the model read from the steps
    assert compare.compare(a, b)["loads"]["differences"][1].startswith("Load model: A open model")


def test_the_whole_run_is_not_judged_across_different_loads():
    a, b = rpm_and_smoke()
    b["cpu_ms_per_purchase"] = {k: v and v * 5 for k, v in a["cpu_ms_per_purchase"].items()}
    result = compare.compare(a, b)
    assert result["cpu_ms_per_purchase"]["ecommerce"]["pct"] == 400.0
    assert not any(d["significant"] for d in result["cpu_ms_per_purchase"].values())
    assert "not judged: the loads differ" in compare.markdown(result, "a", "b")


def test_the_services_cpu_is_drawn_on_a_scale_of_its_own():
    a, b = synthetic.cpu_summary(), synthetic.cpu_summary()
    for summary in (a, b):
        summary["cpu_ms_per_purchase"]["other"] = 3789.0  # a busy machine
        summary["cpu_ms_per_purchase"]["machine"] = 4200.0
    fig = versus.cpu_figure(compare.compare(a, b))
    services, machine = fig.axes
    assert [t.get_text() for t in services.get_xticklabels()] == [
        "ecommerce",
        "lms_stub",
        "mariadb",
        "rollup",
    ]
    assert [t.get_text() for t in machine.get_xticklabels()] == ["services", "locust", "machine", "other"]
    tallest = max(a["cpu_ms_per_purchase"][k] for k in ("ecommerce", "lms_stub", "mariadb", "rollup"))
    assert tallest <= services.get_ylim()[1] < 2 * tallest  # the services fill their own panel
    assert machine.get_ylim()[1] >= 4200.0
    plt.close(fig)
