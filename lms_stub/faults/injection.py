"""Applying the fault settings to a request of the enrollment API.

Each worker re-reads the settings at most every LMS_FAULT_REFRESH_SECONDS, so a change made
through /api/faults/ reaches every worker within that time at the cost of one small query per
worker per interval, not one per request.
"""

import random
import time
from dataclasses import asdict, dataclass

from django.conf import settings

from common import rows
from lms_stub.http import error


@dataclass(frozen=True)
class Faults:
    latency_ms: int = 0
    jitter_ms: int = 0
    error_rate: float = 0.0
    outage_start: float = 0.0
    outage_end: float = 0.0

    def in_outage(self, now: float) -> bool:
        return self.outage_start <= now < self.outage_end

    def as_json(self) -> dict:
        return asdict(self)


def from_settings() -> Faults:
    return Faults(
        latency_ms=settings.LMS_FAULT_LATENCY_MS,
        jitter_ms=settings.LMS_FAULT_JITTER_MS,
        error_rate=settings.LMS_FAULT_ERROR_RATE,
        outage_start=settings.LMS_FAULT_OUTAGE_START,
        outage_end=settings.LMS_FAULT_OUTAGE_END,
    )


def load() -> Faults:
    """The faults in force: the fault API's row when LMS_FAULT_CONTROL is on and a row was set,
    else the LMS_FAULT_* settings. With the fault API off nothing can change or clear a row,
    so one left from an earlier run is not applied (and not read: no query per refresh)."""
    from lms_stub.faults.models import FaultSettings

    if not settings.LMS_FAULT_CONTROL:
        return from_settings()
    row = rows.by_unique(FaultSettings, "id", 1)
    if row is None:
        return from_settings()
    return Faults(row.latency_ms, row.jitter_ms, row.error_rate, row.outage_start, row.outage_end)


_cache: tuple[float, Faults] | None = None


def current() -> Faults:
    global _cache
    now = time.monotonic()
    if _cache is None or now - _cache[0] >= settings.LMS_FAULT_REFRESH_SECONDS:
        _cache = (now, load())
    return _cache[1]


def forget() -> None:
    """Drop this worker's cached copy (after a change made by this worker)."""
    global _cache
    _cache = None


def injected_fault():
    """The response a faulty LMS would give now, or None to go on normally. Latency is
    slept here (a gevent-friendly sleep under gevent workers)."""
    faults = current()
    if faults.in_outage(time.time()):
        return error(503, "outage", "The enrollment service is down (injected outage).")
    delay_ms = faults.latency_ms + (random.uniform(0, faults.jitter_ms) if faults.jitter_ms else 0)
    if delay_ms > 0:
        time.sleep(delay_ms / 1000)
    if faults.error_rate > 0 and random.random() < faults.error_rate:
        return error(500, "injected_error", "The enrollment service failed (injected error).")
    return None
