"""Where a step's time and CPU went, from its recorded row: the order request's mean split by
the services' Server-Timing headers, and the Locust processes' CPU together."""

# The order request's time, as the services' Server-Timing headers split it (the New Relic
# breakdown of 2015: "Python", "MySQL other", "External"): part -> the entry it comes from.
from collections.abc import Mapping
from typing import Any

TIME_SPLIT = {
    "LMS app": "app",
    "LMS db": "db",
    "ecommerce app": "ecommerce-app",
    "ecommerce db": "ecommerce-db",
    "enrollment call": "ecommerce-lms",
}


def time_split(row: Mapping[str, Any]) -> dict[str, float] | None:
    """Mean ms of each part of the order request in a step, plus what no service timed (the
    network and the time waiting in gunicorn's and the kernel's queues); None without timings."""
    timings = row.get("server_timing") or {}
    if "total" not in timings or row.get("mean") is None:
        return None
    split = {part: timings.get(entry, 0.0) for part, entry in TIME_SPLIT.items()}
    untimed = row["mean"] - timings["total"]
    if "ecommerce" in timings and "ecommerce-total" in timings:
        untimed += timings["ecommerce"] - timings["ecommerce-total"]
    split["network and queues"] = round(max(untimed, 0.0), 1)
    return split


def locust_percent(row: Mapping[str, Any]) -> float | None:
    """Every Locust process of a step together, in % of one core."""
    found = row.get("locust_cpu")
    return round(sum(found.values()), 1) if found else None
