"""Turning what the recorder folded into the rows of a report: one row per step (or soak
bucket) for the order endpoint, the same row for the whole run, per-endpoint rows, and the
profile-specific results (capacity, soak trend)."""

from collections.abc import Mapping, Sequence
from typing import Literal, cast

from locustfiles.suite.core import refusals, thresholds
from locustfiles.suite.core.histogram import PERCENTILES
from locustfiles.suite.core.names import ORDER_ENDPOINT, SUCCESS_FOR_AUDIT
from locustfiles.suite.core.plan import Plan, Step
from locustfiles.suite.core.summary import OverallRow, Row, StepRow, Summary
from locustfiles.suite.record.recorder import EndpointStats, StepStats
from locustfiles.suite.users import paid_journey

# The paid journey's last request: its order read back once the payment was taken.
PAID_ORDER_ENDPOINT = paid_journey.ORDER_READ
# A percentile rests on too few samples when fewer than this many lie at or beyond it.
TAIL_SAMPLES = 5
ACCEPTED_PERCENTILES = (50, 95, 99)


def thin(requests: int) -> list[str]:
    """The percentile keys a row of ``requests`` samples cannot support: pN needs at least
    TAIL_SAMPLES samples in its tail (requests x (1 - N/100)), so p99 needs 500 and p50 10.
    p100 is the maximum, whatever the count."""
    return [f"p{p}" for p in PERCENTILES if p < 100 and requests * (100 - p) < TAIL_SAMPLES * 100] + (
        [] if requests else ["p100"]
    )


def _row(stats: EndpointStats, seconds: float, arrivals: int, missed: int) -> dict:
    requests = stats.histogram.total
    minutes = seconds / 60 if seconds else None
    row = {
        "requests": requests,
        "failures": stats.failures,
        "errors": round(stats.failures / requests, 4) if requests else None,
        "rps": round(requests / seconds, 2) if seconds else None,
        "rpm": round(requests / minutes, 1) if minutes else None,
        "arrivals": arrivals,
        "missed": missed,
        "missed_rate": round(missed / arrivals, 4) if arrivals else 0.0,
        "mean": round(stats.histogram.mean, 1) if requests else None,
        **stats.histogram.percentiles(PERCENTILES),
        "thin": thin(requests),
        "statuses": {str(k): v for k, v in sorted(stats.statuses.items())},
        # Failures answered as a JSON 503 or 429 (refusals.py), those of them shed, the others.
        "refusals": dict(sorted(stats.refusals.items())),
        "shed": sum(n for refusal, n in stats.refusals.items() if refusals.is_shed(refusal)),
        "unshed_failures": stats.failures - sum(stats.refusals.values()),
        # The 2xx answers' percentiles: fast refusals cannot make these look better.
        "accepted": stats.accepted.percentiles(ACCEPTED_PERCENTILES),
        "server_timing": stats.timing_means(),
    }
    return row


def from_schedule(stats: EndpointStats) -> dict:
    """An open-model row's ``from_schedule``: the purchases' percentiles measured from their
    arrivals' due times (record/recorder.py), kept by the step each arrival was due in."""
    found = stats.from_schedule
    return {**found.percentiles(ACCEPTED_PERCENTILES), "samples": found.total}


def _unshed(row: dict) -> dict:
    """The row's ``unshed``: failures of any endpoint that were not a JSON 503 or 429, as a
    fraction of every endpoint's requests (the overload profile's threshold)."""
    endpoints = row["endpoints"].values()
    requests = sum(e["requests"] for e in endpoints)
    row["unshed"] = round(sum(e["unshed_failures"] for e in endpoints) / requests, 4) if requests else None
    return row


def step_row(steps: dict[int, StepStats], step: Step, readings: dict[int, dict]) -> dict:
    """One step's row: its order endpoint's figures, every endpoint's, and its readings."""
    stats = steps.get(step.index, StepStats())
    order = stats.endpoints.get(ORDER_ENDPOINT, EndpointStats())
    row = {
        "index": step.index,
        "start": step.start,
        "users": step.users,
        "target_rpm": step.target_rpm,
        "fault": step.fault,
        "seconds": step.seconds,
        **_row(order, step.seconds, step.arrivals, stats.missed),
        "endpoints": {
            name: _row(endpoint, step.seconds, 0, 0) for name, endpoint in sorted(stats.endpoints.items())
        },
    }
    _unshed(row)
    if step.target_rpm is not None:  # an open-model step: its arrivals had due times
        row["from_schedule"] = from_schedule(order)
    if not step.judged:
        row["judged"] = False
    if stats.degraded_from is not None and stats.degraded_to is not None:  # noted together
        row["degraded_from"], row["degraded_until"] = stats.degraded_from, stats.degraded_to + 1
    row.update(readings.get(step.index, {}))
    return row


def step_rows(plan: Plan, steps: dict[int, StepStats], readings: dict[int, dict]) -> list[dict]:
    return [step_row(steps, step, readings) for step in plan.steps]


def overall_row(plan: Plan, steps: dict[int, StepStats], up_to: int | None = None) -> dict:
    """The whole run (or its steps before index ``up_to``) as one row: its measured steps, not
    a warm-up."""
    chosen = [s for s in plan.steps if not s.warm_up and (up_to is None or s.index < up_to)]
    merged, missed, arrivals = EndpointStats(), 0, 0
    endpoints: dict[str, EndpointStats] = {}
    for step in chosen:
        stats = steps.get(step.index, StepStats())
        merged.merge(stats.endpoints.get(ORDER_ENDPOINT, EndpointStats()))
        missed += stats.missed
        arrivals += step.arrivals
        for name, endpoint in stats.endpoints.items():
            endpoints.setdefault(name, EndpointStats()).merge(endpoint)
    seconds = sum(s.seconds for s in chosen)
    row = _row(merged, seconds, arrivals, missed)
    row["endpoints"] = {name: _row(e, seconds, 0, 0) for name, e in sorted(endpoints.items())}
    if plan.open_model:
        row["from_schedule"] = from_schedule(merged)
    return _unshed(row)


def whole_run_row(plan: Plan, steps: dict[int, StepStats], up_to: int | None = None) -> OverallRow:
    """overall_row labelled "all": the summary's ``overall``, the live tab's last row."""
    row = overall_row(plan, steps, up_to)
    row["label"] = "all"
    # Whole here, with its last key: overall_row writes its keys one by one (the percentiles by
    # name), which no TypedDict literal takes; the tests check every summary against the schema.
    return cast(OverallRow, row)


def successes(
    steps: dict[int, StepStats],
    outside_plan: dict[str, EndpointStats],
    endpoints: tuple[str, ...] | None = None,
) -> int:
    """Purchases answered during the run, whether or not they started inside a step. With
    ``endpoints``, the 2xx answers of those purchase endpoints. Without, the suite's learners':
    free ones answered 2xx by the order endpoint, paid ones whose order was read back 200 (the
    paid journey reads it only once ecommerce took the payment's notification)."""
    every = [stats.endpoints for stats in steps.values()] + [outside_plan]
    if endpoints is not None:
        answers = [found.get(name) for found in every for name in endpoints]
        return sum(_answered_2xx(stats) for stats in answers if stats)
    free = [found.get(ORDER_ENDPOINT) for found in every]
    paid = [found.get(PAID_ORDER_ENDPOINT) for found in every]
    return sum(_answered_2xx(stats) for stats in free if stats) + sum(
        stats.statuses.get(200, 0) for stats in paid if stats
    )


def _answered_2xx(stats: EndpointStats) -> int:
    return sum(n for status, n in stats.statuses.items() if status in SUCCESS_FOR_AUDIT)


def _slope(points: Sequence[tuple[float, float]]) -> float | None:
    """Least-squares slope of (x, y) points."""
    if len(points) < 2:
        return None
    n = len(points)
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / spread if spread else None


def soak_trend(rows: Sequence[StepRow], warm_up_buckets: int = 1) -> dict:
    """How the soak moved across its buckets: the p95 least-squares slope (ms per bucket),
    first and last; and the memory growth of every process group (MB of peak RSS per bucket)
    after the first ``warm_up_buckets``, when caches and pools have filled."""
    points = [(r["index"], p95) for r in rows if (p95 := r.get("p95")) is not None]
    if len(points) < 2:
        return {"buckets": len(points), "p95_ms_per_bucket": None, "p95_change_pct": None}
    first, last = points[0][1], points[-1][1]
    warm = rows[warm_up_buckets:] if len(rows) > warm_up_buckets + 1 else rows
    groups = sorted({g for r in warm for g in r.get("rss_mb", {})})
    rss = {}
    for group in groups:
        series = [
            (r["index"], r["rss_mb"][group]) for r in warm if r.get("rss_mb", {}).get(group) is not None
        ]
        slope = _slope(series)
        if slope is not None:
            rss[group] = {
                "mb_per_bucket": round(slope, 2) + 0.0,  # + 0.0: no "-0" for a flat line
                "first_mb": series[0][1],
                "last_mb": series[-1][1],
            }
    slope = _slope(points)
    return {
        "buckets": len(points),
        "p95_ms_per_bucket": round(slope, 2) + 0.0 if slope is not None else None,
        "p95_first": first,
        "p95_last": last,
        "p95_change_pct": round(100 * (last - first) / first, 1) if first else None,
        "rss_after_warm_up": rss,
        "warm_up_buckets": warm_up_buckets,
        "processes_replaced": sum(sum(r.get("processes_replaced", {}).values()) for r in rows),
        "size": database_growth(rows),
    }


SOAK_HOURS_2015 = 64


def orders_placed(row: Row) -> int:
    """Orders a step's purchases placed: 201 (enrolled) and 202 (placed, enrollment to retry)."""
    statuses = row.get("statuses") or {}
    return int(statuses.get("201", 0)) + int(statuses.get("202", 0))


def database_growth(rows: Sequence[StepRow], hours: int = SOAK_HOURS_2015) -> dict:
    """How the database grew over the buckets: bytes per order placed (the growth from the end
    of the first bucket to the end of the last, over the orders placed in between), the size a
    ``hours``-hour run at the run's target rate would reach, and each table that grew."""
    sized = [(r, size) for r in rows if (size := r.get("db_size_mb")) is not None]
    if len(sized) < 2:
        return {}
    (first, first_mb), (last, last_mb) = sized[0], sized[-1]
    orders = sum(orders_placed(r) for r, _ in sized[1:])
    grown_mb = last_mb - first_mb
    bytes_per_order = round(grown_mb * 2**20 / orders) if orders and grown_mb > 0 else None
    placed_per_minute = sum(orders_placed(r) for r, _ in sized) / (sum(r["seconds"] for r, _ in sized) / 60)
    rpm = round(last.get("target_rpm") or placed_per_minute)
    projected = None
    if bytes_per_order:
        projected_orders = round(rpm * 60 * hours)
        projected = {
            "hours": hours,
            "rpm": rpm,
            "orders": projected_orders,
            "size_mb": round(first_mb + projected_orders * bytes_per_order / 2**20),
        }
    before, after = first.get("tables") or {}, last.get("tables") or {}
    tables = [
        {
            "table": name,
            "rows": [before[name][0], after[name][0]],
            "file_mb": [before[name][3], after[name][3]],
            "data_mb": after[name][1],
            "index_mb": after[name][2],
        }
        for name in sorted(after)
        if name in before and (after[name][0] > before[name][0] or after[name][3] > before[name][3])
    ]
    return {
        "first_mb": first_mb,
        "last_mb": last_mb,
        "orders": orders,
        "bytes_per_order": bytes_per_order,
        "projected": projected,
        "tables": tables,
        "p95_by_size": [[size, r.get("p95")] for r, size in sized],
    }


def overload_figures(summary: Summary) -> dict:
    """What an overload run shows (profiles.Overload): how many purchases were accepted and how
    many refused, how fast each kind was answered, and whether a refusal left an order behind.

    A refused purchase writes nothing, so the orders committed without a 2xx answer (the
    audit's ``unanswered``) may only come from purchases that failed otherwise: a paid journey
    that failed after its payment was taken (the processor's confirmation, or the order read
    back), or an order request that failed without a refusal (a timeout, a 502). Any more were
    left by refusals (``orders_left_by_refusals``): that fails the run. The audit counts the
    orders of the whole run, the warm-up's too, so those failures are counted over both."""
    overall = summary["overall"]
    endpoints = overall.get("endpoints") or {}
    audit_result = summary.get("audit")
    warm_up = summary.get("warm_up")
    spans = [endpoints, (warm_up.get("endpoints") if warm_up else None) or {}]

    def counted(name: str, key: Literal["failures", "unshed_failures"]) -> int:
        return sum(row.get(key, 0) for span in spans if (row := span.get(name)))

    order = endpoints.get(ORDER_ENDPOINT)
    statuses = (order.get("statuses") if order else None) or {}
    after_payment = counted(PAID_ORDER_ENDPOINT, "failures") + counted(paid_journey.PAY_CONFIRM, "failures")
    unanswered = (audit_result.get("unanswered") if audit_result else None) or 0
    allowed = after_payment + counted(ORDER_ENDPOINT, "unshed_failures")
    refused = {name: e["refusals"] for name, e in endpoints.items() if e.get("refusals")}
    return {
        "target_rpm": next((s["target_rpm"] for s in summary["steps"]), None),
        "achieved_rpm": overall.get("rpm"),
        "purchases": overall.get("requests"),
        "accepted": sum(n for status, n in statuses.items() if status.startswith("2")),
        "shed": {name: e["shed"] for name, e in endpoints.items() if e.get("shed")},
        "refusals": refused,
        "unshed_failures": sum(e.get("unshed_failures", 0) for e in endpoints.values()),
        "p95": overall.get("p95"),
        "p95_accepted": (overall.get("accepted") or {}).get("p95"),
        "orders_committed": audit_result.get("orders") if audit_result else None,
        "unanswered_orders": unanswered,
        "failed_after_payment": after_payment,
        "orders_left_by_refusals": max(0, unanswered - allowed),
    }


def held(row: Mapping[str, object], rules: list[thresholds.Threshold]) -> bool:
    """Whether a step's row held the thresholds: it had requests and passed every rule."""
    return bool(row["requests"]) and thresholds.judge(rules, row)["passed"]


def capacity_search(rows: list[StepRow], rules: list[thresholds.Threshold]) -> dict:
    """Which steps held the thresholds (None: a step that judges nothing), and capacity: the
    target of the highest step that held below the lowest that broke (None when none held
    below it), with that interval (core/knee.py searched it)."""
    passed = [held(row, rules) if row.get("judged", True) else None for row in rows]
    broke = [(_target(row), row["index"]) for row, ok in zip(rows, passed, strict=True) if ok is False]
    top, top_index = min(broke, key=lambda b: (b[0], -b[1])) if broke else (None, None)
    below = [
        _target(r) for r, ok in zip(rows, passed, strict=True) if ok and (top is None or _target(r) < top)
    ]
    capacity = max(below) if below else None
    interval, interval_pct = None, None
    if capacity is not None and top is not None:
        interval, interval_pct = [capacity, top], round(100 * (top - capacity) / capacity, 1)
    judged = [(r, ok) for r, ok in zip(rows, passed, strict=True) if ok is not None]
    first = next((i for i, (_, ok) in enumerate(judged) if not ok), len(judged))
    # The probes: steps judged after the climb broke, below the rate it broke at.
    probes = [r for r, _ in judged[first + 1 :] if _target(r) < _target(judged[first][0])]
    return {
        "capacity_rpm": capacity,
        "held": passed,
        "search": {
            "interval_rpm": interval,
            "interval_pct": interval_pct,
            "probes": len(probes),
            "broke_step": top_index,
        },
    }


def _target(row: StepRow) -> float:
    rate = row["target_rpm"]
    assert rate is not None, "capacity's steps are the open model's: each has its target rate"
    return rate


def broke_row(summary: Summary) -> StepRow | None:
    """A capacity run's step that broke at the top of its interval (the one capacity is below),
    else its last judged step; None without judged steps."""
    search = summary.get("capacity_search")
    index = search.get("broke_step") if search else None
    rows = summary.get("steps") or []
    if index is not None:
        return next((r for r in rows if r["index"] == index), None)
    return next((r for r in reversed(rows) if r.get("judged", True)), None)
