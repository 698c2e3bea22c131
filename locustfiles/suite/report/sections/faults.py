"""The chaos profile's reliability table: one row per fault, then each fault's checks."""

from typing import Any

from locustfiles.suite.core.blocks import cell, fmt, section, table, tally, text
from locustfiles.suite.core.summary import RetryFulfillment, Summary
from locustfiles.suite.core.text import shorten


def reliability(summary: Summary) -> dict:
    """The chaos profile's table: one row per fault, then each fault's checks."""
    rows = summary["reliability"]
    retried: RetryFulfillment | dict[str, Any] = summary.get("retry_fulfillment") or {}
    return section(
        "reliability",
        "Reliability (one row per fault)",
        table(
            [
                "fault",
                "order requests",
                "orders answered",
                "errors by status (all endpoints)",
                "lost",
                "duplicates",
                "partial",
                "time to recover (s)",
                "outcome",
            ],
            [
                [
                    row["fault"],
                    row["requests"],
                    tally(row["orders_answered"]),
                    tally(row["errors_by_status"]),
                    row["lost"],
                    row["duplicates"],
                    row["partial"],
                    row["recovery_seconds"],
                    cell("pass" if row["passed"] else "FAIL", mark=None if row["passed"] else "warn"),
                ]
                for row in rows
            ],
        ),
        text(
            "Time to recover: from the end of the fault to the end of the last second in which a "
            "request failed or an order was answered 202 (placed, enrollment to be retried); – if "
            "the step ended still disturbed. After the run `retry_fulfillment --all` said: "
            f"{fmt(retried.get('summary'))}; orders by status after it: "
            f"{tally(summary['audit'].get('orders_by_status', {}))}."
        ),
        table(
            ["fault", "check", "result", "detail"],
            [
                [
                    row["fault"],
                    check["check"],
                    "ok" if check["ok"] else "FAILED",
                    shorten(check["detail"], 200),
                ]
                for row in rows
                for check in row["checks"]
            ],
            caption="Expected outcomes, checked:",
        ),
    )
