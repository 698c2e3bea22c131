"""The run's SQL statements from two readings of the digests (record/digests.py): the counter
rollup's statements told from the requests', and kept apart in the report."""

import pytest

from locustfiles.suite.record import digests


@pytest.mark.parametrize(
    "statement, background",
    [
        ("SELECT GET_LOCK (?, ?)", True),
        ("SELECT ? AS `a` FROM `counters_purchaseevent` LIMIT ?", True),
        ("DELETE FROM `counters_purchaseevent` WHERE `id` = ?", True),
        (
            "INSERT INTO `analytics_productrecord` (`product_id`, ...) VALUES (...) "
            "ON DUPLICATE KEY UPDATE `num_purchases` = `num_purchases` + VALUES (`num_purchases`)",
            True,
        ),
        ("INSERT INTO `counters_purchaseevent` (`product_id`, `quantity`) VALUES (?, ?)", False),
        ("UPDATE `analytics_productrecord` SET `num_purchases` = (`num_purchases` + ?)", False),
        ("SELECT * FROM `order_order` WHERE `number` = ?", False),
    ],
)
def test_the_counter_rollups_statements_are_told_from_the_requests(statement, background):
    assert digests.is_background(statement) is background


def test_digest_report_puts_background_statements_apart():
    def digest(text, ms):
        return {
            "schema": "ecommerce",
            "text": text,
            "count": 10,
            "time_ms": ms,
            "no_index": 0,
            "no_good_index": 0,
            "rows_examined": 0,
        }

    after = {"a": digest("SELECT GET_LOCK (?, ?)", 90), "b": digest("SELECT * FROM `order_order`", 10)}
    report = digests.digest_report({}, after)
    assert [d["statement"] for d in report["top"]] == ["SELECT * FROM `order_order`"]
    assert [d["statement"] for d in report["background"]] == ["SELECT GET_LOCK (?, ?)"]
