"""The soak at size, from synthetic buckets: bytes per order, the projection to a 64-hour run,
the tables that grew, p95 against the database size, and a run that says what it started on."""

from datetime import datetime, timedelta

import pytest

from common.contract import preload_plan as plan
from locustfiles.suite import report
from locustfiles.suite.figures import results
from locustfiles.suite.report.sections.endurance import database_growth
from locustfiles.suite.run import admission
from locustfiles.suite.tools import preload
from tests.loadsuite import synthetic


def bucket(index: int, size_mb: float, orders: int, tables: dict, p95: float = 50.0) -> dict:
    return {
        "index": index,
        "seconds": 60,
        "target_rpm": 1038.0,  # as a run's steps carry it
        "p95": p95,
        "statuses": {"201": orders - 1, "202": 1, "503": 7},
        "db_size_mb": size_mb,
        "tables": tables,
    }


def test_growth_is_bytes_per_order_placed_after_the_first_bucket_and_only_tables_that_grew():
    rows = [
        bucket(0, 1000.0, 1000, {"e.order_order": [10_000, 5, 2, 100.0], "e.catalogue": [100, 1, 0, 1.0]}),
        bucket(1, 1001.0, 1024, {"e.order_order": [11_024, 5, 2, 100.5], "e.catalogue": [100, 1, 0, 1.0]}),
        bucket(2, 1002.0, 1024, {"e.order_order": [12_048, 6, 2, 101.0], "e.catalogue": [100, 1, 0, 1.0]}),
    ]
    growth = results.database_growth(rows)
    # 2 MB over the 2048 orders (201 and 202) of the buckets after the first.
    assert growth["orders"] == 2048
    assert growth["bytes_per_order"] == 1024
    # 1038 x 60 x 64 = 3,985,920 orders of 1 KiB: 3,892.5 MB more.
    assert growth["projected"] == {"hours": 64, "rpm": 1038, "orders": 1038 * 60 * 64, "size_mb": 4892}
    assert all(isinstance(growth["projected"][key], int) for key in ("rpm", "orders", "size_mb"))
    blocks = database_growth(growth)
    (sentence,) = [block["text"] for block in blocks if "64-hour" in block.get("text", "")]
    assert sentence == (
        "At 1,024 bytes per order, a 64-hour run at 1,038 purchases per minute (3,985,920 orders) "
        "would reach about 4,892 MB."
    )
    assert [t["table"] for t in growth["tables"]] == ["e.order_order"]
    assert growth["tables"][0]["rows"] == [10_000, 12_048] and growth["tables"][0]["file_mb"] == [
        100.0,
        101.0,
    ]
    assert growth["p95_by_size"] == [[1000.0, 50.0], [1001.0, 50.0], [1002.0, 50.0]]


def test_a_database_that_did_not_grow_gives_no_bytes_per_order():
    rows = [bucket(i, 500.0, 10, {}) for i in range(3)]
    growth = results.database_growth(rows)
    assert growth["bytes_per_order"] is None and growth["projected"] is None


def test_the_soak_report_states_the_growth_and_plots_p95_against_size(tmp_path):
    p, recorder, _, _ = synthetic.recorded(
        "soak", {"HOURS": "0.01", "BUCKET_SECONDS": "12", "WARMUP_SECONDS": "0"}
    )
    summary = synthetic.summary_for(p, recorder, {"profile_sections": ["soak"]})
    for row in summary["steps"]:
        row["tables"] = {"e.order_order": [1000 + 100 * row["index"], 1, 1, 10.0 + row["index"]]}
    summary["trend"] = results.soak_trend(summary["steps"])
    summary["config"]["database_at_start"] = {"preloaded_purchases": 4_000_000, "size_mb": 6100.5}
    report.write(summary, tmp_path)
    text = (tmp_path / "report.md").read_text()
    assert text.splitlines()[0].endswith(", on 4,000,000 preloaded purchases")
    assert "| database at start | 4,000,000 preloaded purchases; 6100.5 MB on disk |" in text
    assert "bytes per order, a 64-hour run at" in text
    assert "| e.order_order | 1,000 → 1,200 | 10 → 12 |" in text
    assert (tmp_path / "soak_size.png").stat().st_size > 0


@pytest.mark.parametrize("bad", ["0", "-5", "4M", "1.5", "1e20"])
def test_preload_sizes_are_whole_numbers_of_at_least_one(bad):
    with pytest.raises(
        ValueError, match="^PRELOAD: expects a whole number of purchases from 1 to 50000000; got"
    ):
        admission.admit("soak", {"PRELOAD": bad})
    assert admission.admit("soak", {"PRELOAD": "4000000"}).preload == 4_000_000
    assert admission.admit("soak", {"PRELOAD": ""}).preload is None


NOW = datetime(2026, 11, 23, 12, 0, 0)


def test_a_first_preload_ends_one_spacing_before_now():
    first, start, spacing = preload.anchor({"a": {"done": 0, "last_placed": None}}, 1000, NOW)
    assert (first, spacing) == (1, plan.SPACING_US)
    assert plan.placed(1000, first, start, spacing) == NOW - timedelta(microseconds=plan.SPACING_US)


def test_a_resumed_preload_continues_the_cadence_of_the_lagging_database():
    last = NOW - timedelta(hours=10)
    state = {
        "a": {"done": 700, "last_placed": "2026-11-23T01:00:00+00:00"},
        "b": {"done": 500, "last_placed": (last).isoformat() + "+00:00"},
    }
    first, start, spacing = preload.anchor(state, 1000, NOW)
    assert (first, spacing) == (501, plan.SPACING_US)
    assert start == last + timedelta(microseconds=plan.SPACING_US)


def test_an_extension_that_would_reach_the_future_is_spread_up_to_now():
    last = NOW - timedelta(minutes=1)
    first, start, spacing = preload.anchor({"a": {"done": 100, "last_placed": last.isoformat()}}, 10_100, NOW)
    assert first == 101 and spacing < plan.SPACING_US
    assert start > last and plan.placed(10_100, first, start, spacing) < NOW
