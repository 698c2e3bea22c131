"""What the run left and achieved: the audit (nothing lost, payments settled), the thresholds,
and edX's 2015 client's figures.
"""

from locustfiles.suite.core.blocks import cell, section, table, tally, text
from locustfiles.suite.core.summary import Summary
from locustfiles.suite.core.text import payment_words, shorten
from locustfiles.suite.report.sections.top import threshold_name


def audit(summary: Summary) -> dict:
    found = summary["audit"]
    keys = ["successes", "orders", "enrollments", "lost", "duplicates", "unanswered", "passed"]
    headers = [
        "answered 2xx",
        "orders committed",
        "enrollments",
        "lost",
        "duplicates",
        "unanswered",
        "passed",
    ]
    return section(
        "audit",
        "Audit: nothing lost",
        text(f"The audit could not run: {found['error']}.") if found.get("error") else None,
        table(headers, [[found.get(k) for k in keys]]),
        *_payment_blocks(found.get("payments")),
    )


def _payment_blocks(paid: dict | None) -> list[dict]:
    """The payments' part of the audit: paid orders and their payments, paid seats enrolled,
    the payments the processor accepted and what became of them, notifications by outcome."""
    if not paid:
        return []
    known = paid.get("accepted") is not None
    columns = [
        ("paid orders", "paid_orders"),
        ("settled", "settled"),
        ("not settled", "unsettled"),
        ("paid seats enrolled", "paid_enrollments"),
        ("enrolled unpaid", "enrolled_unpaid"),
        ("payments accepted", "accepted"),
        ("placed", "placed"),
        ("refund owed", "refund_owed"),
        ("without order", "without_order"),
    ]

    def shown(key: str) -> dict:
        failing = key in ("unsettled", "enrolled_unpaid", "without_order") and paid.get(key)
        return cell(paid.get(key), mark="warn" if failing else None)

    examples = {**(paid.get("examples") or {}), "without_order": paid.get("without_order_examples") or []}
    listed = "; ".join(f"{key}: {', '.join(map(str, found))}" for key, found in examples.items() if found)
    before = paid.get("taken_before")
    return [
        table(
            [header for header, _ in columns],
            [[shown(key) for _, key in columns]],
            caption="Payments: every paid order settled once (one source debited with its total, one Paid "
            "event), every paid seat enrolled backed by a payment, every accepted payment placed its order "
            "or owes a refund:",
        ),
        text(
            "Notifications by outcome: "
            + (tally(paid.get("notifications") or {}) if known else "not recorded (no watermark)")
            + (f". Replays of payments accepted before the run: {before}" if before else "")
            + (f". Examples: {listed}" if listed else "")
            + "."
        ),
    ]


def thresholds(summary: Summary) -> dict:
    checks = summary["verdict"]["thresholds"]
    return section(
        "thresholds",
        "Thresholds",
        table(
            ["threshold", "measured", "result"],
            [
                [
                    threshold_name(c),
                    c["value"],
                    cell("ok" if c["ok"] else "BROKEN", mark=None if c["ok"] else "warn"),
                ]
                for c in checks
            ],
        )
        if checks
        else text("No threshold was set."),
    )


def client(summary: Summary) -> dict | None:
    """The edx2015 profile's figures: edX's 2015 client against this stack."""
    figures = summary.get("client") or {}
    if not figures:
        return None
    payments = figures.get("payments")
    return section(
        "client",
        "edX's 2015 client",
        table(
            ["figure", "value"],
            [
                ["locustfile", cell(figures["locustfile"], "code")],
                ["task set", figures["task_set"]],
                ["users", figures["users"]],
                ["seconds", figures["seconds"]],
                ["requests (every endpoint)", figures["requests"]],
                ["failed requests", figures["failures"]],
                ["task exceptions", figures["task_exceptions"]],
                ["free purchases answered 2xx (LMS)", figures["free_purchases"]],
                ["paid purchases answered 2xx (payment notifications)", figures["paid_purchases"]],
                ["orders committed", figures.get("orders")],
                ["payments", payment_words(payments)],
            ],
        ),
        table(
            ["count", "task exception"],
            [[e["count"], shorten(e["message"], 300)] for e in figures.get("exception_examples", [])],
        )
        if figures.get("exception_examples")
        else None,
    )
