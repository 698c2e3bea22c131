"""Realistic synthetic run summaries for the report tests: random order requests fed through
the real Recorder and results.step_rows, plus the keys of summary.json v2 (labels, thin
percentiles, database deltas and levels, Locust CPU, a timeline, provenance) filled the way
issue 12's summary.json contract defines them."""

import random

from common import calibration
from locustfiles.suite import profiles
from locustfiles.suite.core import catalogue, names
from locustfiles.suite.core.histogram import nearest_rank
from locustfiles.suite.core.plan import ArrivalSchedule
from locustfiles.suite.figures import cpu, results
from locustfiles.suite.record.recorder import Recorder

BASKET = names.ORDER_ENDPOINT
READ = "/api/v2/orders/[number]/"


def recorded(profile="ramp", env=None, seed=3, slow_after=None, requests=3000, reads=0, late=None):
    """A plan and a Recorder fed ``requests`` random order requests (five times slower after
    ``slow_after`` seconds) and ``reads`` order reads; the raw values per step; the requests.
    With ``late`` (seconds, an open-model profile), each order request was sent up to that
    much after its arrival was due."""
    p = profiles.get(profile).plan(env or {"USERS": "1 2 3", "STEP_SECONDS": "10"})
    recorder = Recorder(p)
    recorder.t0 = 1000
    rng = random.Random(seed)
    raw, log = {}, []
    for name, count in ((BASKET, requests), (READ, reads)):
        for _ in range(count):
            start = 1000 + rng.uniform(0, p.seconds - 0.001)
            rt = rng.uniform(20, 400) * (5 if slow_after and start - 1000 >= slow_after else 1)
            ok = rng.random() > 0.02
            # (an arrival is never due before the plan's start)
            due = start - rng.uniform(0, min(late, start - 1000)) if late and name == BASKET else None
            schedule = ArrivalSchedule(due) if due is not None else None
            recorder.request(name, start, rt, ok, 201 if ok else 503, schedule=schedule)
            log.append((start - 1000, round(rt), ok))
            if name == BASKET:
                raw.setdefault(p.step_index(start - 1000), []).append(round(rt))
    recorder.fold_local()
    return p, recorder, raw, log


def step_label(p, step) -> str:
    return profiles.get(p.profile).label(step)


def timeline(p, log, bucket=2) -> dict:
    buckets: dict[int, list] = {}
    for t, rt, ok in log:
        buckets.setdefault(int(t // bucket), []).append((rt, ok))
    points = []
    for index in sorted(buckets):
        values = sorted(rt for rt, _ in buckets[index])
        t = index * bucket
        points.append(
            {
                "t": t,
                "requests": len(values),
                "rps": round(len(values) / bucket, 2),
                "failures": sum(1 for _, ok in buckets[index] if not ok),
                **{f"p{n}": nearest_rank(values, n) for n in (50, 95, 99)},
                "users": p.steps[p.step_index(t)].users,
            }
        )
    return {
        "bucket_seconds": bucket,
        "points": points,
        "step_starts": [s.start for s in p.steps],
        "step_labels": [step_label(p, s) for s in p.steps],
    }


def provenance() -> dict:
    return {
        "git": {"commit": "0123456789abcdef0123456789abcdef01234567", "dirty": False},
        "host": {"hostname": "bench", "cores": 2, "memory_gb": 7.8, "cpu_model": "Test CPU", "os": "Debian"},
        "versions": {
            "python": "3.11.7",
            "django": "5.2.19",
            "oscar": "4.2.1",
            "drf": "3.18.3",
            "locust": "2.47.0",
            "mariadb": "11.8.3-MariaDB",
            "gunicorn": "27.0.1",
            "gevent": "26.9.0",
        },
        "services": {
            "ecommerce": {"worker_class": "gevent", "workers": 5, "driver": "pymysql", "pool_size": 10},
            "lms_stub": {"worker_class": "gevent", "workers": 5, "driver": "pymysql", "pool_size": 10},
            "order_counter": "events",
        },
        "load": {
            "think_time": {"min_seconds": 3.0, "max_seconds": 5.0},
            "weights": {"buy": 50, "pay": 1, "read": 5},
            "courses": 100,
        },
    }


def readings(p, locust_cpu=40.0, machine_cpu=None) -> dict:
    """What the server sampler and the Locust sampler would have read per step (the machine's
    CPU only when ``machine_cpu`` is given: a run from before it was read has none)."""
    return {
        step.index: {
            "cpu_percent": {
                "ecommerce": 50.0 + 10 * step.index,
                "lms_stub": 20.0,
                "mariadb": 9.0,
                "rollup": 1.0,
            },
            **({"machine_cpu_percent": machine_cpu, "reading_seconds": step.seconds} if machine_cpu else {}),
            "rss_mb": {"ecommerce": 300.0, "lms_stub": 150.0},
            "db": {"Com_commit": 10, "Threads_connected": 12},
            "db_deltas": {"Com_commit": 10, "Connections": 0, "Questions": 400},
            "db_levels": {"Threads_connected": 12},
            "db_size_mb": 20.0 + step.index,
            "locust_cpu": {"local": locust_cpu},
            "suite_rss_mb": 80.0,
        }
        for step in p.steps
    }


def summary_for(p, recorder, extra=None, log=None, locust_cpu=40.0, machine_cpu=None):
    """A summary.json as the lead's run writes it (contract of issue 12, and issue 16's CPU
    accounting)."""
    rows = results.step_rows(p, recorder.steps, readings(p, locust_cpu, machine_cpu))
    for row, step in zip(rows, p.steps, strict=True):
        row["label"] = step_label(p, step)
        cpu.account(row)
    warm_up = next((row for row, step in zip(rows, p.steps, strict=True) if step.warm_up), None)
    rows = [row for row in rows if row is not warm_up]
    overall = {**results.overall_row(p, recorder.steps), "label": "all"}
    summary = {
        "profile": p.profile,
        "t0": 1000,
        "started": "2026-01-01T00:00:00",
        "finished": "2026-01-01T00:00:30",
        "seconds": 30,
        "started_from": "headless",
        "config": {"order_counter": "events"},
        "plan": p.as_summary(),
        "warm_up": warm_up,
        "steps": rows,
        "overall": overall,
        "endpoints": {
            "steps": [{"index": r["index"], "label": r["label"], "endpoints": r["endpoints"]} for r in rows],
            "overall": overall["endpoints"],
        },
        "timeline": timeline(p, log or []),
        "audit": {
            "successes": 1,
            "orders": 1,
            "enrollments": 1,
            "lost": 0,
            "duplicates": 0,
            "unanswered": 0,
            "passed": True,
        },
        "db": {},
        "sql": {"top": [], "no_index": [], "background": [], "slow_query_seconds": 1.0},
        "error_examples": {f"{BASKET} 503": ['{"error": "pool_exhausted"}']},
        "load": {
            "host": "http://127.0.0.1:18000",
            "users": 3,
            "spawn_rate": 3,
            "locust_workers": 0,
            "locust_hosts": {"local": "bench"},
            "locust_workers_expected": None,
        },
        "load_generator": {"peak_cpu_percent": locust_cpu, "process": "local", "saturated": locust_cpu >= 90},
        "provenance": provenance(),
        "cpu_accounting": cpu.run_accounting(rows, {"buy": 50, "pay": 1}),
        "profile_sections": [],
        "verdict": {
            "thresholds": [{"threshold": "p95<460", "value": 300, "ok": True}],
            "thresholds_at": profiles.get(p.profile).thresholds_at,  # capacity: its step that broke
            "passed": True,
            "failures": [],
        },
        **(extra or {}),
    }
    summary["cpu_ms_per_purchase"] = summary["cpu_accounting"]["cpu_ms_per_purchase"]
    return summary


def statement(text: str, count: int = 100, no_index: int = 0) -> dict:
    return {
        "schema": "ecommerce",
        "statement": text,
        "count": count,
        "total_ms": 12.5 * count,
        "mean_ms": 12.5,
        "no_index": no_index,
        "no_good_index": 0,
        "rows_examined_per_call": 250.0,
    }


def cpu_summary(machine_cpu=150.0, **kwargs):
    """A recorded run's summary with the machine's CPU at ``machine_cpu`` % (CPU per purchase's
    tests)."""
    p, recorder, _, log = recorded(reads=kwargs.pop("reads", 0))
    return summary_for(p, recorder, log=log, machine_cpu=machine_cpu, **kwargs)


def calibration_of(ms: float) -> dict:
    """A calibration (common/calibration) whose ms is ``ms``."""
    return {
        "ms": ms,
        "python_ms": round(ms * 0.8, 4),
        "sql_ms": round(ms * 0.2, 4),
        "wall_ms": ms * 1.3,
        "rounds": 100,
    }


def calibrated(summary: dict, before: float, after: float | None = None) -> dict:
    """The summary with the machine's calibrations before and after its load (schema 9): ``before``
    ms, and ``after`` (the same when not given), and its CPU per purchase in their unit."""
    sitting = calibration.sitting(calibration_of(before), calibration_of(before if after is None else after))
    summary["calibration"] = sitting
    summary["cpu_cal_per_purchase"] = cpu.calibrated(summary["cpu_ms_per_purchase"], sitting)
    return summary


def with_settings(summary: dict, env: dict) -> dict:
    """The summary with the settings a run of its profile from ``env`` records (schema 7)."""
    summary["settings"] = catalogue.get(summary["profile"]).run_settings(env).record()
    return summary
