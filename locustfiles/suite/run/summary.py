"""summary.json from what a run recorded, read and audited (core/summary.py's Summary).

Two pure functions of what the keeper (run/keeper.py) recorded, read and audited, the
profile's own reading included (Behaviour.read: chaos's per-step audit, py-spy's results,
Locust's totals for edX's client): ``measured`` gives the rows, the run's figures and what was
read; ``judged`` adds the profile's figures (Behaviour.figures), the verdict, the provenance and
the findings. Neither reads a clock, a file, a database or Locust.
"""

import datetime
from dataclasses import dataclass, field
from typing import cast

from common.calibration import Sitting
from locustfiles.suite.core.plan import Plan
from locustfiles.suite.core.summary import (
    AUDIT,
    SCHEMA_VERSION,
    Db,
    Failure,
    StepRow,
    Summary,
    Timeline,
    Verdict,
)
from locustfiles.suite.figures import cpu, results, shed_seconds
from locustfiles.suite.profiles import Behaviour, Figures
from locustfiles.suite.record import balancer
from locustfiles.suite.record.recorder import Recorder
from locustfiles.suite.verdict import audit, findings


@dataclass
class Recorded:
    """What the run recorded: its plan, the users' requests (folded by the recorder), the
    servers' reading at each step's end, and when it began, started its steps and finished."""

    plan: Plan
    recorder: Recorder
    readings: dict[int, dict]
    begun: float
    t0: float
    finished: float


@dataclass
class Read:
    """What the keeper read and audited after the load (the config: as the run began)."""

    config: dict  # SUITE_CONFIG: the settings the stack ran with
    started_from: str  # "headless" or "web UI"
    load: dict  # host, spawn_rate, locust_workers, locust_hosts, locust_workers_expected
    weights: dict | None  # the learners' configured mix; None for edX's client (its own)
    settled: Figures  # the profile's settle(): work after the load, before the audit
    audit: dict
    sql: dict  # statement digests over the run, and MariaDB's long_query_time
    behind_balancer: bool = False  # BALANCER_STATS_URL: HAProxy's counts in every step
    profile: dict = field(default_factory=dict)  # what the profile read (Behaviour.read)
    settings: dict = field(default_factory=dict)  # as given and resolved (core/settings.py)
    calibration: Sitting | None = None  # the machine's, before the load and after it


def successes(profile: Behaviour, recorder: Recorder) -> int:
    """Purchases answered during the run: what the audit must find committed."""
    return results.successes(recorder.steps, recorder.outside_plan, profile.purchase_endpoints)


def measured(profile: Behaviour, recorded: Recorded, read: Read) -> Summary:
    """The summary up to the profile's own measurement: every row, figure and reading."""
    plan, recorder = recorded.plan, recorded.recorder
    warm_up, ran, every = _rows(profile, recorded)
    overall = results.whole_run_row(plan, recorder.steps, up_to=ran[-1]["index"] + 1 if ran else 0)
    users = max((r["users"] or 0 for r in ran), default=0) or plan.users
    summary: dict[str, object] = {
        "schema_version": SCHEMA_VERSION,
        "profile": profile.name,
        "started_from": read.started_from,
        "t0": recorded.t0,
        "started": _moment(recorded.begun),
        "finished": _moment(recorded.finished),
        "seconds": round(recorded.finished - recorded.begun, 1),
        "config": {**read.config, "locust_workers": read.load["locust_workers"]},
        "plan": plan.as_summary(),
        "warm_up": warm_up,
        "steps": ran,
        "overall": overall,
        "endpoints": {
            "steps": [{key: r[key] for key in ("index", "label", "endpoints")} for r in ran],
            "overall": overall["endpoints"],
        },
        "timeline": _timeline(recorded, every),
        "outside_plan_requests": {name: e.histogram.total for name, e in recorder.outside_plan.items()},
        "error_examples": recorder.examples,
        "load": {"host": read.load["host"], "users": users, **read.load},
        "load_generator": findings.load_generator(every),
        "profile_sections": list(profile.sections),
    }
    if read.settings:
        summary["settings"] = read.settings
    accounting = cpu.run_accounting(ran, read.weights)
    summary["cpu_accounting"] = accounting
    summary["cpu_ms_per_purchase"] = accounting["cpu_ms_per_purchase"]
    if read.calibration is not None:
        summary["calibration"] = read.calibration
        summary["cpu_cal_per_purchase"] = cpu.calibrated(accounting["cpu_ms_per_purchase"], read.calibration)
    summary.update(read.settled)
    summary["audit"] = read.audit
    summary["db"] = _db_totals(every)  # the whole run, as the audit
    if read.behind_balancer:
        summary["balancer"] = balancer.summary(ran)
    summary["sql"] = read.sql
    # A Summary but for the keys judged() adds (provenance, verdict, findings), which keep their
    # place at its end: so no Summary literal. The tests check each summary.json against the schema.
    return cast(Summary, summary)


def judged(
    summary: Summary, profile: Behaviour, rules: list, provenance: dict, read: dict | None = None
) -> Summary:
    """The summary with the profile's figures, its verdict (the audit, then the profile's
    judging), the provenance and the findings over all of it."""
    summary["provenance"] = provenance  # the host's cores, for the profile's figures
    summary["shed_by_machine"] = shed_seconds.shed_by_machine(summary["timeline"], cpu.machine_cores(summary))
    summary.update(profile.figures(summary, rules, read or {}))
    summary["verdict"] = verdict(summary, profile, rules)
    summary["findings"] = findings.findings(summary)
    return summary


def verdict(summary: Summary, profile: Behaviour, rules: list) -> Verdict:
    """The audit's failure, then the profile's checks and failures, judged where it judges."""
    failures: list[Failure] = []
    audit_result = summary["audit"]
    if not audit_result.get("passed"):
        problems = (
            audit_result.get("error")
            or ", ".join(audit.problems(audit_result))
            or f"lost {audit_result.get('lost')}, duplicates {audit_result.get('duplicates')}"
        )
        failures.append(Failure(kind=AUDIT, about=None, text=f"audit failed: {problems}"))
    checks, failed = profile.judge(summary, rules)
    failures += failed
    return {
        "thresholds": checks,
        "thresholds_at": profile.thresholds_at,
        "passed": not failures,
        "failures": failures,
    }


def _rows(profile: Behaviour, recorded: Recorded) -> tuple[StepRow | None, list[StepRow], list[StepRow]]:
    """(the warm-up's row or None, the measured steps' rows, every row that ran): the steps
    that began before the run finished."""
    plan = recorded.plan
    began = [step for step in plan.steps if recorded.t0 + step.start < recorded.finished]
    ran = [profile.step_row(recorded.recorder.steps, step, recorded.readings) for step in began]
    # A warm-up is reported apart: not a step, not in "all", thresholds or verdict.
    warm_up = next((r for r in ran if plan.steps[r["index"]].warm_up), None)
    return warm_up, [r for r in ran if r is not warm_up], ran


def _moment(seconds: float) -> str:
    return datetime.datetime.fromtimestamp(seconds).isoformat(timespec="seconds")


def _timeline(recorded: Recorded, rows: list[StepRow]) -> Timeline:
    timeline = recorded.recorder.timeline
    return {
        "bucket_seconds": timeline.bucket_seconds,
        "points": timeline.points(),
        "step_starts": [recorded.plan.steps[r["index"]].start for r in rows],
        "step_labels": [r["label"] for r in rows],
    }


def _db_totals(rows: list[StepRow]) -> Db:
    def total(key):
        return sum((r.get("db_deltas") or {}).get(key, 0) for r in rows)

    return {
        "commits": total("Com_commit"),
        "row_lock_waits": total("Innodb_row_lock_waits"),
        "connections_opened": total("Connections"),
        "slow_queries": total("Slow_queries"),
    }
