"""A step's row of results (results.step_rows) read as the checks need it: answers by status
per endpoint, the errors of all endpoints together, failures no fault allows.

A request shed by a worker that could not take it (503 overloaded with Retry-After, refused
before anything was written: common/shedding.py) is no failure of a fault's checks: it is how
a worker that a fault keeps busy (a slow enrollment API holds the LMS's workers) avoids being
exhausted.
"""

from collections.abc import Mapping
from typing import Any

from locustfiles.suite.core import refusals


def statuses_by_endpoint(row: Mapping[str, Any]) -> dict[str, dict[str, int]]:
    return {name: endpoint.get("statuses", {}) for name, endpoint in row.get("endpoints", {}).items()}


def errors_by_status(row: Mapping[str, Any]) -> dict[str, int]:
    """Answers that are not 2xx, by status, added up over every endpoint."""
    errors: dict[str, int] = {}
    for statuses in statuses_by_endpoint(row).values():
        for status, count in statuses.items():
            if not status.startswith("2"):
                errors[status] = errors.get(status, 0) + count
    return errors


def shed(endpoint: dict, status: str | None = None) -> int:
    """An endpoint's answers that were shed (of ``status`` only, if given)."""
    return sum(
        n
        for refusal, n in (endpoint.get("refusals") or {}).items()
        if refusals.is_shed(refusal) and (status is None or refusal.split(" ", 1)[0] == status)
    )


def failures_other_than(row: Mapping[str, Any], allowed: set[str]) -> tuple[bool, str]:
    """(none seen, "endpoint status×count, ...") of the answers neither 2xx, nor allowed, nor
    shed."""
    seen = {
        f"{name} {status}": count - shed(endpoint, status)
        for name, endpoint in row.get("endpoints", {}).items()
        for status, count in endpoint.get("statuses", {}).items()
        if not status.startswith("2") and status not in allowed and count > shed(endpoint, status)
    }
    return not seen, ", ".join(f"{k}×{v}" for k, v in seen.items()) or "none"


def read_failures(row: Mapping[str, Any]) -> int:
    """Failed order reads (the learner's order page), which no fault of the order path may
    break (shed ones aside)."""
    return sum(
        e.get("failures", 0) - shed(e)
        for n, e in row.get("endpoints", {}).items()
        if n.startswith("/api/commerce/v1/orders")
    )
