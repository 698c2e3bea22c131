"""The fault table of the faults across hosts (cluster.py): one row per window of the load (before
the faults, then each fault with the load after it) with its requests and failures (answers by
status, and requests that got no answer: a refused or cut connection), the time until orders
succeeded again, the times the balancer took to route around a lost host and back to it, and the
orders lost, duplicated or committed without a 2xx answer (unanswered); rendered as Markdown
through the report model's blocks (core/blocks.py). The times are defined in cluster.py's
docstring.
"""

import time
from collections import Counter
from collections.abc import Sequence

from locustfiles.suite.chaos.cluster import CLUSTER_FAULTS, HostFault, Played, Request, RollingDeploy
from locustfiles.suite.core import blocks
from locustfiles.suite.core.names import ORDER_ENDPOINT

# The suite's audit per window (audit.by_step), as the table gives it.
AUDITED = ("lost", "duplicates", "partial", "unanswered")
# The driver's own notes in an event's detail, which the table gives as times instead.
WATCHED = ("ending", "up_again", "traffic_again")


def reroute(samples: list[tuple[float, dict]], server: str, fault_at: float, back_at: float | None) -> dict:
    """From the balancer's readings: seconds from ``fault_at`` until it showed ``server`` DOWN,
    and until the last reading in which it had sent ``server`` a request (before ``back_at``,
    when it was restored); then from ``back_at`` until UP again and a request sent again."""
    down = last_routed = up = traffic = None
    previous = None
    for moment, servers in samples:
        now = servers.get(server)
        if now is None:
            continue
        count = now.get("requests", 0)
        grew = previous is not None and count > previous
        previous = count
        if moment < fault_at:
            continue
        if back_at is None or moment < back_at:
            if down is None and now.get("status") in ("DOWN", "MAINT"):
                down = moment
            if grew:
                last_routed = moment
        elif down is not None:
            if up is None and now.get("status") == "UP":
                up = moment
            if up is not None and traffic is None and grew:
                traffic = moment

    def since(moment: float | None, origin: float | None) -> float | None:
        return round(moment - origin, 2) if moment is not None and origin is not None else None

    return {
        "down_after_s": since(down, fault_at),
        "last_routed_after_s": since(last_routed, fault_at) if last_routed is not None else 0.0,
        "up_again_after_s": since(up, back_at),
        "traffic_again_after_s": since(traffic, back_at),
    }


def states_during(samples: list[tuple[float, dict]], start: float, end: float) -> dict:
    """Each server's states as the balancer showed them in [start, end), in the order first
    seen, and the readings in which no server was UP (nobody to take a request)."""
    seen: dict[str, list[str]] = {}
    none_up = 0
    for moment, servers in samples:
        if not start <= moment < end:
            continue
        for name, now in servers.items():
            states = seen.setdefault(name, [])
            if now.get("status") not in states:
                states.append(now.get("status"))
        none_up += not any(now.get("status") == "UP" for now in servers.values())
    return {"states_seen": seen, "readings_with_no_server_up": none_up}


def windows(played: Played) -> list[tuple[str, float, float]]:
    """(name, start, end) of the load before the first fault and of each fault with the load
    after it, up to the next fault (the last: to the load's end)."""
    ends = [event.started or played.load_started for event in played.events]
    ends.append(played.load_ended or time.time())
    out = [("before the faults", played.load_started, ends[0])]
    for i, event in enumerate(played.events):
        out.append((event.fault, ends[i], ends[i + 1]))
    return out


def request_counts(requests: list[Request], start: float, end: float, fault_at: float | None) -> dict:
    """The requests that ended in [start, end) (a request under way when a fault began counts
    with the fault): how many, the failures answered, by status, those answers not JSON, the
    failures without an answer (status 0: refused, cut or timed out: no body to be JSON), and
    the failures by when their request was under way: at the moment of the fault, or started
    after it."""
    inside = [r for r in requests if start <= r.end < end]
    failed = [r for r in inside if not r.ok]
    answered = [r for r in failed if r.status]
    in_flight = [r for r in failed if fault_at is not None and r.start <= fault_at <= r.end]
    return {
        "requests": len(inside),
        "failures": len(failed),
        "failures_by_status": dict(sorted(Counter(str(r.status) for r in answered).items())),
        "failures_not_json": sum(1 for r in answered if not r.json),
        "failures_no_answer": len(failed) - len(answered),
        "failures_in_flight_at_fault": len(in_flight),
        "failures_started_after_fault": sum(1 for r in failed if fault_at is not None and r.start > fault_at),
        "purchase_failures": sum(1 for r in failed if r.name == ORDER_ENDPOINT),
    }


def orders_back(requests: list[Request], fault_at: float, end: float) -> dict:
    """Seconds from ``fault_at`` until orders succeeded again: the answer of the first purchase
    answered 2xx that started at or after the fault and after the last failed request (any
    endpoint: a learner who cannot log in buys nothing) that ended in [fault_at, end); and
    until that last failure's end (None: nothing failed)."""
    failed = [r for r in requests if not r.ok and fault_at <= r.end < end]
    since = max([fault_at, *(r.start for r in failed)])
    bought = [r for r in requests if r.name == ORDER_ENDPOINT and 200 <= r.status < 300 and r.start >= since]
    first = min(bought, key=lambda r: r.end, default=None)
    return {
        "orders_back_after_s": round(first.end - fault_at, 2) if first and first.end < end else None,
        "last_failure_after_s": round(max(r.end for r in failed) - fault_at, 2) if failed else None,
    }


def table(
    played: Played,
    requests: list[Request],
    samples: list[tuple[float, dict]],
    audit_by_window: dict[int, dict],
) -> list[dict]:
    """One row per window (windows()): its requests and failures, the time until orders
    succeeded again (each fault), the times to reroute and back (ecommerce host faults), and the
    orders lost, duplicated, partial or unanswered (``audit_by_window``, the suite's audit per
    window index, after retry_fulfillment)."""
    rows = []
    for index, (name, start, end) in enumerate(windows(played)):
        event = played.events[index - 1] if index else None
        fault = CLUSTER_FAULTS.get(name)
        row = {
            "window": name,
            "title": fault.title if fault else "steady load, both hosts up",
            "seconds": round(end - start, 1),
            **request_counts(requests, start, end, event.started if event else None),
            **{key: audit_by_window.get(index, {}).get(key, 0) for key in AUDITED},
        }
        if event is not None:
            row["fault_seconds"] = round((event.ended or end) - event.started, 1) if event.started else None
            row["error"] = event.error
            row["detail"] = {k: v for k, v in event.detail.items() if k not in WATCHED}
        if event is not None and event.started is not None:
            row.update(orders_back(requests, event.started, end))
        if event is not None and isinstance(fault, HostFault) and event.started is not None:
            # Back from the moment its undo began (a start returns after the program's startsecs,
            # by when the balancer may have it UP again).
            row.update(reroute(samples, fault.victim, event.started, event.detail.get("ending", event.ended)))
        if event is not None and isinstance(fault, RollingDeploy) and event.started is not None:
            row.update(states_during(samples, event.started, event.ended or end))
        rows.append(row)
    return rows


def window_of(played: Played):
    """``step_of`` for the suite's audit per step (audit.by_step): a Unix second's window index."""
    bounds = windows(played)

    def step_of(second: int) -> int | None:
        for index, (_, start, end) in enumerate(bounds):
            if int(start) <= second < end:
                return index
        return None

    return step_of


COLUMNS = (
    ("window", "fault"),
    ("seconds", "s"),
    ("requests", "requests"),
    ("failures_by_status", "failures by status"),
    ("failures_not_json", "not JSON"),
    ("failures_no_answer", "no answer"),
    ("failures_in_flight_at_fault", "in flight at the fault"),
    ("orders_back_after_s", "orders succeed again after s"),
    ("last_failure_after_s", "last failure after s"),
    ("down_after_s", "DOWN after s"),
    ("last_routed_after_s", "last sent to it after s"),
    ("up_again_after_s", "UP again after s"),
    ("traffic_again_after_s", "traffic again after s"),
    ("lost", "lost"),
    ("duplicates", "duplicates"),
    ("purchase_failures", "purchases failed"),
    ("unanswered", "unanswered"),
)


def markdown(rows: list[dict], notes: Sequence[str] = ()) -> str:
    """The table as Markdown, a table block of the report model (core/blocks.py), with
    ``notes`` listed under it."""

    def shown(value):
        if isinstance(value, dict):
            return blocks.tally(value, "none")
        return value if value is None or isinstance(value, str) else blocks.cell(str(value), "num")

    found = blocks.table(
        [title for _, title in COLUMNS], [[shown(row.get(key)) for key, _ in COLUMNS] for row in rows]
    )
    return blocks.markdown_document("", [found, blocks.bullets(notes) if notes else None])
