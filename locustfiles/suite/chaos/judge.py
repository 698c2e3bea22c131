"""Judging a chaos run after it ended: each step's checks (the ones every fault shares, then
the fault's own), the time the service took to recover, and the reliability table's rows.
Nothing here touches the stack; it reads the step rows, the driver's events and the audit."""

from collections.abc import Mapping, Sequence
from typing import Any

from locustfiles.suite.chaos.event import Event
from locustfiles.suite.chaos.faults import FAULTS
from locustfiles.suite.chaos.rows import errors_by_status


def recovery_seconds(row: Mapping[str, Any], event: Event | None, t0: float) -> float | None:
    """Seconds from the end of the fault to the end of the last second in which a request
    failed or an order was answered without its enrollment (202); 0 if none did after it.
    None when the step ended still degraded (a whole second after the fault's end degraded,
    within 2 s of the step's end) or the fault never ran.

    The degraded seconds are whole ones: the second in which the fault ended may hold only
    failures from before its end. It counts towards the figure, an upper bound, but is no
    evidence that the step ended degraded: a restart that ended late in the step, after which
    nothing failed, was judged unrecovered."""
    if event is None or event.ended is None:
        return None
    last = row.get("degraded_until")
    if last is None or last <= event.ended:
        return 0.0
    step_end = t0 + row["start"] + row["seconds"]
    if last >= step_end - 2 and last - 1 >= event.ended:
        return None
    return round(last - event.ended, 1)


def checks(
    row: Mapping[str, Any], event: Event | None, audit_step: dict, recovery: float | None
) -> list[dict]:
    """The expected outcome of a step's fault, as named checks."""
    if event is None or event.started is None or event.error:
        reason = (event.error if event else None) or "the fault did not run"
        return [_check("the fault was injected", False, reason)]
    shared = [
        ("nothing lost", audit_step.get("lost", 0) == 0, audit_step.get("lost", 0)),
        ("no duplicate order", audit_step.get("duplicates", 0) == 0, audit_step.get("duplicates", 0)),
        ("no partial order", audit_step.get("partial", 0) == 0, audit_step.get("partial", 0)),
    ]
    own = FAULTS[event.fault].checks(row, event, recovery)
    return [_check(name, ok, detail) for name, ok, detail in shared + own]


def _check(name: str, ok, detail) -> dict:
    return {"check": name, "ok": bool(ok), "detail": str(detail)}


def reliability_rows(
    rows: Sequence[Mapping[str, Any]], events: dict[int, Event], audit_steps: dict[int, dict], t0: float
) -> list[dict]:
    """One row per fault: requests, answers by status, lost, duplicates, partial, recovery."""
    out = []
    for row in rows:
        event = events.get(row["index"])
        recovery = recovery_seconds(row, event, t0)
        audit_step = audit_steps.get(row["index"], {})
        step_checks = checks(row, event, audit_step, recovery)
        out.append(
            {
                "index": row["index"],
                "fault": event.fault if event else None,
                "requests": row.get("requests", 0),
                "orders_answered": {k: v for k, v in row.get("statuses", {}).items() if k.startswith("2")},
                "errors_by_status": errors_by_status(row),
                "lost": audit_step.get("lost", 0),
                "duplicates": audit_step.get("duplicates", 0),
                "partial": audit_step.get("partial", 0),
                "recovery_seconds": recovery,
                "fault_started": round(event.started - t0, 1) if event and event.started else None,
                "fault_ended": round(event.ended - t0, 1) if event and event.ended else None,
                "detail": event.detail if event else {},
                "checks": step_checks,
                "passed": all(c["ok"] for c in step_checks),
            }
        )
    return out
