"""The Server-Timing pieces of common.timing, one function at a time."""

import pytest

from common import timing
from common.contract import server_timing


def test_parse_reads_durations_and_keeps_commas_inside_quoted_descriptions():
    header = 'db;dur=9.1;desc="14 queries, 2 commits", lms;dur=6.3, app;dur=18.2, total;dur=33.6'
    assert server_timing.parse(header) == {"db": 9.1, "lms": 6.3, "app": 18.2, "total": 33.6}


def test_parse_skips_metrics_without_a_duration_and_keeps_the_first_of_a_name():
    assert server_timing.parse('miss, cache;desc="hit";dur=2, cache;dur=5') == {"cache": 2.0}


def test_parse_keeps_what_it_read_before_a_malformed_part():
    assert server_timing.parse('db;dur=1.5, ;;;"broken, app;dur=3') == {"db": 1.5}
    assert server_timing.parse("") == {}


def test_app_is_what_the_database_and_outbound_calls_leave_of_the_total():
    t = timing.RequestTiming(db_ms=10.0, queries=3, commits=1, outbound_ms={"lms": 25.0})
    assert t.entries(50.0) == {"db": 10.0, "lms": 25.0, "app": 15.0, "total": 50.0}
    assert (
        timing.header(t, 50.0)
        == 'db;dur=10.0;desc="3 queries, 1 commits", lms;dur=25.0, app;dur=15.0, total;dur=50.0'
    )
    # Rounding can make the parts exceed the whole; app never goes negative.
    assert timing.RequestTiming(db_ms=30.0).entries(29.9)["app"] == 0.0


def test_outbound_forward_annotate_and_commits_count_only_inside_a_request():
    timing.note_commit(5.0)  # no request: nothing to count into, and no error
    t = timing.RequestTiming()
    token = timing._current.set(t)
    try:
        with timing.outbound("ecommerce"):
            pass
        with timing.outbound("ecommerce"):
            pass
        timing.forward("ecommerce", "db;dur=4, lms;dur=2")
        timing.annotate(fulfilment_status="Complete")
        timing.note_commit(1.5)
    finally:
        timing._current.reset(token)
    assert list(t.outbound_ms) == ["ecommerce"] and t.outbound_ms["ecommerce"] >= 0
    assert t.forwarded == {"ecommerce-db": 4.0, "ecommerce-lms": 2.0}
    assert t.commits == 1 and t.db_ms == 1.5
    attributes = t.attributes(100.0)
    assert attributes["commits"] == 1 and attributes["fulfilment_status"] == "Complete"
    assert set(attributes) == {"queries", "commits", "db_ms", "ecommerce_ms", "app_ms", "fulfilment_status"}


def test_without_newrelic_admin_there_is_no_agent(monkeypatch):
    monkeypatch.delenv("NEW_RELIC_ADMIN_COMMAND", raising=False)
    assert timing.new_relic_agent() is None


@pytest.mark.parametrize("elapsed", [0.0, 12.5])
def test_the_query_wrapper_counts_each_statement(elapsed):
    t = timing.RequestTiming()
    result = t.time_query(lambda sql, params, many, context: "rows", "SELECT 1", None, False, {})
    assert result == "rows" and t.queries == 1 and t.db_ms >= 0
