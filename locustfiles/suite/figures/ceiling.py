"""The machine's ceiling in a capacity run: how much of the machine its capacity used.

A step's ceiling is the arrival rate at which every core would be busy at the CPU each arrival
cost the machine in that step: the arrivals it ran per minute × (cores × 100 %) ÷ the
machine's CPU % (every core's busy time: the services, the load generator and anything else,
as cpu.py reads it). In the open model an arrival is a learner's purchase (read back when the
mix says so), so this is cores × 60,000 ms ÷ the machine's CPU ms per purchase, counted over
the purchases the step started rather than those it completed. Capacity ÷ the ceiling of the
step that set it is the share of the machine the capacity used: 1.0 = every core busy. Under
NEAR of it, either something other than the CPU stopped the climb (the services refusing, a
queue, a lock), or the machine's CPU per arrival grew as it filled, so the capacity step's
straight line promised more than the cores give: the step that broke above capacity says which.
Its own ceiling, and capacity's share of it, are kept beside it; where the machine was full
there (FULL of its cores), that share is how close capacity came to what the machine did.
"""

from collections.abc import Mapping
from typing import Any

from locustfiles.suite.core import refusals
from locustfiles.suite.core.summary import BrokenStep, Ceiling, StepRow
from locustfiles.suite.core.text import label

NEAR = 0.9  # capacity under this share of its ceiling: the machine had CPU to spare
FULL = 0.9  # a step whose machine was this busy (of every core) had none to spare


def step_ceiling(row: Mapping[str, Any], cores: int | None) -> float | None:
    """The step's ceiling in RPM; None when the machine's CPU was not read or nothing ran. Of a
    summary's step row, or of one being made (run/watch.py asks while the step runs)."""
    busy, seconds = row.get("machine_cpu_percent"), row.get("seconds")
    ran = (row.get("arrivals") or 0) - (row.get("missed") or 0)
    if not cores or not busy or not seconds or ran <= 0:
        return None
    return round(ran * 60 / seconds * cores * 100 / busy, 1)


def capacity_ceiling(
    rows: list[StepRow], capacity_rpm: float | None, cores: int | None, broke_step: int | None = None
) -> Ceiling | None:
    """At the step that set capacity (the last that held): its ceiling, capacity ÷ ceiling,
    the machine's CPU, and what the step that broke above it (``broke_step``, an index) broke
    on; None without a capacity or a ceiling."""
    if capacity_rpm is None or not cores:
        return None
    setting = next((r for r in reversed(rows) if r.get("held") and r["target_rpm"] == capacity_rpm), None)
    ceiling = step_ceiling(setting, cores) if setting else None
    busy = setting.get("machine_cpu_percent") if setting else None
    if setting is None or not ceiling or not busy:  # a ceiling is known only where CPU was read
        return None
    broken = next((r for r in rows if r["index"] == broke_step), None)
    return {
        "step": label(setting),
        "ceiling_rpm": ceiling,
        "ratio": round(capacity_rpm / ceiling, 2),
        "machine_cpu_percent": busy,
        "cores": cores,
        "next_step": _broken(broken, capacity_rpm, cores) if broken else None,
    }


def _broken(row: StepRow, capacity_rpm: float, cores: int) -> BrokenStep:
    """What a broken step says of why: its refusals by kind (shed: a service past its limit),
    its p95 (waiting) and how busy the machine was; its own ceiling and capacity's share of it."""
    own = step_ceiling(row, cores)
    return {
        "step": label(row),
        "target_rpm": row["target_rpm"],
        "errors": row.get("errors"),
        "refused": {refusals.label(kind): n for kind, n in (row.get("refusals") or {}).items()},
        "p95": row.get("p95"),
        "machine_cpu_percent": row.get("machine_cpu_percent"),
        "ceiling_rpm": own,
        "ratio": round(capacity_rpm / own, 2) if own else None,
    }


def dearer_when_full(found: Ceiling) -> float | None:
    """How much more CPU an arrival cost the machine at the step that broke above capacity than
    at capacity's own step (0.2: 20 % more), where that step kept the machine FULL of its cores;
    None where it did not, its ceiling is not known, or an arrival cost no more there."""
    above = found.get("next_step")  # None: no step broke above capacity
    busy, own = (above.get("machine_cpu_percent"), above.get("ceiling_rpm")) if above else (None, None)
    if busy is None or not own or busy < FULL * found["cores"] * 100:
        return None
    dearer = found["ceiling_rpm"] / own - 1
    return dearer if dearer > 0 else None
