"""A step's row of results (results.step_rows) read as the checks need it: answers by status
per endpoint, the errors of all endpoints together, failures no fault allows."""


def statuses_by_endpoint(row: dict) -> dict[str, dict[str, int]]:
    return {name: endpoint.get("statuses", {}) for name, endpoint in row.get("endpoints", {}).items()}


def errors_by_status(row: dict) -> dict[str, int]:
    """Answers that are not 2xx, by status, added up over every endpoint."""
    errors: dict[str, int] = {}
    for statuses in statuses_by_endpoint(row).values():
        for status, count in statuses.items():
            if not status.startswith("2"):
                errors[status] = errors.get(status, 0) + count
    return errors


def failures_other_than(row: dict, allowed: set[str]) -> tuple[bool, str]:
    """(none seen, "endpoint status×count, ...") of the answers neither 2xx nor allowed."""
    seen = {
        f"{name} {status}": count
        for name, statuses in statuses_by_endpoint(row).items()
        for status, count in statuses.items()
        if not status.startswith("2") and status not in allowed
    }
    return not seen, ", ".join(f"{k}×{v}" for k, v in seen.items()) or "none"


def read_failures(row: dict) -> int:
    """Failed order reads (the learner's order page), which no fault of the order path may break."""
    return sum(
        e.get("failures", 0)
        for n, e in row.get("endpoints", {}).items()
        if n.startswith("/api/commerce/v1/orders")
    )
