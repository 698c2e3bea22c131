"""The machine's speed, measured in the same sitting as the figures that depend on it.

This VM's speed drifts: one commit's `make bench` gave 4.4 ms of CPU per order and, within the
hour, 7.5 ms, with nothing else running. A CPU figure alone cannot tell a slower commit from a
slower hour, so `make bench` and every load run take a calibration before and after what they
measure, and give their CPU figures in its unit too: CPU ms divided by the calibration's ms
(``in_units``), which the drift changes on both sides of the division. One calibration's ms is
"1 cal" in the reports.

The workload is workload.py's; ``take`` runs it in a process of its own (``python -m
common.calibration``, which prints it as one JSON line): the caller's heap, its imports and
gevent's patching (a Locust process) would change it, and every caller must measure the same
thing. This module is the standard library alone: the load suite's summary types name its
types, and a Locust worker imports them.
"""

import json
import subprocess
import sys
from collections.abc import Mapping
from typing import NotRequired, TypedDict

from common.environment import ROOT

# Two calibrations further apart than this, in %: the machine's speed was not the same.
DIFFER_PCT = 10.0
TAKE_TIMEOUT_SECONDS = 60


class Calibration(TypedDict):
    """One calibration: per round, ms of the process's CPU (both parts, then each) and of the
    wall clock; ``rounds`` it was measured over."""

    ms: float
    python_ms: float
    sql_ms: float
    wall_ms: float
    rounds: int


class Sitting(TypedDict):
    """The calibrations taken before and after a measurement (None: not taken, ``error`` says
    why), the unit the measurement's CPU is divided by (``ms``: their mean, or the one taken)
    and how far the second moved from the first (``change_pct``)."""

    before: Calibration | None
    after: Calibration | None
    ms: float | None
    change_pct: float | None
    error: NotRequired[str]


class CalibrationFailed(Exception):
    """The calibration could not be taken (MariaDB not reachable, the process failed)."""


def take(env: Mapping[str, str] | None = None) -> Calibration:
    """A calibration taken in a process of its own, with ``env`` as its environment (the
    caller's when None: MYSQL_HOST, MYSQL_PORT and the monitoring account come from it)."""
    command = [sys.executable, "-m", "common.calibration"]
    try:
        done = subprocess.run(
            command,
            cwd=ROOT,
            env=None if env is None else dict(env),
            capture_output=True,
            text=True,
            timeout=TAKE_TIMEOUT_SECONDS,
        )
    except subprocess.TimeoutExpired as exc:
        raise CalibrationFailed(f"no calibration within {TAKE_TIMEOUT_SECONDS} s") from exc
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        raise CalibrationFailed(said[:200])
    try:
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError) as exc:
        raise CalibrationFailed(f"the calibration printed no result: {done.stdout[-200:]!r}") from exc


def attempt(env: Mapping[str, str] | None = None) -> Calibration | str:
    """``take(env)``, or why it could not be taken."""
    try:
        return take(env)
    except CalibrationFailed as exc:
        return str(exc)


def sitting(before: Calibration | str | None, after: Calibration | str | None) -> Sitting:
    """The calibrations around a measurement (each as ``attempt`` gives it: a text says why
    it was not taken), and the unit its CPU is given in: their mean, or the one taken."""
    first, second = (c if isinstance(c, dict) else None for c in (before, after))
    taken = [c["ms"] for c in (first, second) if c]
    found: Sitting = {
        "before": first,
        "after": second,
        "ms": round(sum(taken) / len(taken), 4) if taken else None,
        "change_pct": change_pct(first["ms"], second["ms"]) if first and second else None,
    }
    why = [f"{when}: {c}" for when, c in (("before", before), ("after", after)) if isinstance(c, str)]
    if why:
        found["error"] = "; ".join(why)
    return found


def change_pct(first: float, second: float) -> float | None:
    """How far ``second`` is from ``first``, in % of ``first``."""
    return round((second - first) * 100 / first, 1) if first else None


def differ(first: float | None, second: float | None, pct: float = DIFFER_PCT) -> bool:
    """Whether two calibrations' ms are further apart than ``pct`` % (of the first): the
    machine's speed was not the same for both."""
    if not first or not second:
        return False
    moved = change_pct(first, second)
    return moved is not None and abs(moved) > pct


def in_units(cpu_ms: float | None, calibration_ms: float | None) -> float | None:
    """``cpu_ms`` in calibration units: how many calibration rounds' CPU it is (None when
    either is missing)."""
    if cpu_ms is None or not calibration_ms:
        return None
    return round(cpu_ms / calibration_ms, 3)


def described(sitting: Sitting) -> str:
    """The unit in words: "1 cal = 4.41 ms of CPU (4.36 ms before, 4.46 ms after: +2.3 %)", and
    when the two differ beyond DIFFER_PCT, that the machine's speed changed in between."""
    if sitting["ms"] is None:
        return f"no calibration ({sitting.get('error', 'not taken')})"
    before, after = sitting["before"], sitting["after"]
    if before and after:
        taken = f"{before['ms']:.2f} ms before, {after['ms']:.2f} ms after: {sitting['change_pct']:+.1f} %"
    else:
        taken = f"{'before' if before else 'after'} only; {sitting.get('error')}"
    words = f"1 cal = {sitting['ms']:.2f} ms of CPU ({taken})"
    if before and after and differ(before["ms"], after["ms"]):
        words += f"; the machine's speed changed by more than {DIFFER_PCT:g} % meanwhile"
    return words
