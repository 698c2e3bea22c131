"""The real CPU per purchase each process group spent, which the floor is held against: a load
run's (its summary.json, ``cpu_ms_per_purchase``, per purchase of the run's mix), or a short run
of free purchases made here one after another, read the way a load run reads it (the readings
sampler's process groups: each gunicorn master with its workers, the rollup loop, mariadbd)."""

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from common.environment import get
from locustfiles.suite.figures import cpu
from locustfiles.suite.record.sampler import ServerSampler
from locustfiles.suite.verdict.facts import databases

GROUPS = cpu.SERVICES  # ecommerce, lms_stub, mariadb, rollup


@dataclass
class Real:
    """CPU ms per purchase of each group (None: not read), where it comes from, and what to
    keep in mind reading it."""

    ms: dict[str, float | None]
    source: str
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return dict(self.__dict__)


def from_summary(summary: dict, source: str) -> Real:
    """A load run's figures. A run whose mix held paid purchases is said to: the floor is a free
    purchase's."""
    per_purchase = summary.get("cpu_ms_per_purchase") or {}
    ms = {group: per_purchase.get(group) for group in GROUPS}
    if all(value is None for value in ms.values()):
        raise ValueError(f"{source} has no CPU per purchase (summary.json's cpu_ms_per_purchase)")
    notes = []
    mix = (summary.get("cpu_accounting") or {}).get("mix") or {}
    if mix.get("paid"):
        notes.append(f"the run's purchases were {cpu.mix_words(mix)}; the floor is a free purchase's")
    if per_purchase.get(cpu.BALANCER) is not None:
        notes.append(
            f"the run's load balancer spent {per_purchase[cpu.BALANCER]} ms per purchase, not in the table"
        )
    return Real(ms, source, notes)


def from_run(folder: Path) -> Real:
    path = Path(folder) / "summary.json"
    try:
        summary = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from None
    return from_summary(summary, f"the load run {Path(folder).name}")


def measured_here(buy: Callable[[int], object], purchases: int) -> Real:
    """``purchases`` free purchases (``buy(k)``), one after another, and what every group spent
    meanwhile, per purchase: idle work (gunicorn's masters, the rollup's turns) included, as in a
    load run."""
    sampler = ServerSampler(Path(get("VAR_DIR")), databases())
    try:
        before = sampler.snapshot()
        for k in range(purchases):
            buy(k)
        reading = sampler.reading(before, sampler.snapshot())
    finally:
        sampler.close()
    per_purchase = cpu.per_purchase(cpu.cpu_ms(reading), purchases)
    return Real(
        {group: per_purchase[group] for group in GROUPS},
        f"{purchases} free purchases made here one after another",
        [
            "one purchase at a time: no load, so no batching, and each group's idle work "
            "spread over few purchases"
        ],
    )
