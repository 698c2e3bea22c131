"""Words for numbers and rows, shared by the findings, the reports and `make help`."""

from collections.abc import Mapping
from typing import Any


def plural(count, one: str, many: str | None = None) -> str:
    """'1 user', '3 users', '2.5 users'."""
    return f"{count:g} {one if count == 1 else (many or one + 's')}"


def shorten(text: str, limit: int) -> str:
    """``text`` whole if it fits, else cut at the last space before ``limit`` with an ellipsis:
    never in the middle of an identifier."""
    text = " ".join((text or "").split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut + " …"


def label(row: Mapping[str, Any]) -> str:
    """The step's name for humans, as the profile made it ("1 user", "600 RPM", "bucket 2")."""
    if row.get("label"):
        return row["label"]
    return "all" if row.get("index") is None else f"step {row['index'] + 1}"


def payment_words(payments: dict | None) -> str:
    """The audit's payment counts in a few words ("not audited" when it did not count them)."""
    if payments is None:
        return "not audited"
    return (
        f"{payments.get('settled')} settled for {payments.get('paid_orders')} paid orders, "
        f"{payments.get('refund_owed')} refund owed, {payments.get('without_order')} without order"
    )
