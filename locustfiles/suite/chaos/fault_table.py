"""The fault table of the faults across hosts (cluster.py): one row per window of the load (before
the faults, then each fault with the load after it) with its requests and failures, the times the
balancer took to route around a lost host and back to it, and the orders lost or duplicated;
rendered as Markdown through the report model's blocks (core/blocks.py). The times are defined
in cluster.py's docstring.
"""

import time
from collections import Counter

from locustfiles.suite.chaos.cluster import CLUSTER_FAULTS, HostFault, Played, Request, RollingDeploy
from locustfiles.suite.core import blocks

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
    with the fault): how many, the failures by status, those not JSON, and the failures by when
    their request was under way: at the moment of the fault, or started after it."""
    inside = [r for r in requests if start <= r.end < end]
    failed = [r for r in inside if not r.ok]
    in_flight = [r for r in failed if fault_at is not None and r.start <= fault_at <= r.end]
    return {
        "requests": len(inside),
        "failures": len(failed),
        "failures_by_status": dict(sorted(Counter(str(r.status) for r in failed).items())),
        "failures_not_json": sum(1 for r in failed if not r.json),
        "failures_in_flight_at_fault": len(in_flight),
        "failures_started_after_fault": sum(1 for r in failed if fault_at is not None and r.start > fault_at),
    }


def table(
    played: Played,
    requests: list[Request],
    samples: list[tuple[float, dict]],
    audit_by_window: dict[int, dict],
) -> list[dict]:
    """One row per window (windows()): its requests and failures, the times to reroute and
    back (host faults), and the orders lost or duplicated (``audit_by_window``, the suite's
    audit per window index, after retry_fulfillment)."""
    rows = []
    for index, (name, start, end) in enumerate(windows(played)):
        event = played.events[index - 1] if index else None
        fault = CLUSTER_FAULTS.get(name)
        row = {
            "window": name,
            "title": fault.title if fault else "steady load, both hosts up",
            "seconds": round(end - start, 1),
            **request_counts(requests, start, end, event.started if event else None),
            "lost": audit_by_window.get(index, {}).get("lost", 0),
            "duplicates": audit_by_window.get(index, {}).get("duplicates", 0),
            "partial": audit_by_window.get(index, {}).get("partial", 0),
        }
        if event is not None:
            row["fault_seconds"] = round((event.ended or end) - event.started, 1) if event.started else None
            row["error"] = event.error
            row["detail"] = {k: v for k, v in event.detail.items() if k not in WATCHED}
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
    ("failures_in_flight_at_fault", "in flight at the fault"),
    ("down_after_s", "DOWN after s"),
    ("last_routed_after_s", "last sent to it after s"),
    ("up_again_after_s", "UP again after s"),
    ("traffic_again_after_s", "traffic again after s"),
    ("lost", "lost"),
    ("duplicates", "duplicates"),
)


def markdown(rows: list[dict], notes: list[str] = ()) -> str:
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
