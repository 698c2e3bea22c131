"""Wiring the suite into Locust: options, events, the step-reading sampler and the end of run.

Importing this module registers everything; the locustfiles do it through
``locustfiles.suite.profile``. Roles:

* the process that runs users (local runner or each worker) records requests, skipped
  arrivals and answered order numbers (recorder.py); a worker sends them with every report;
* the process that keeps results (local runner or master) folds them into steps, reads the
  servers at every step boundary, and when the test stops runs the audit, judges the
  thresholds and writes the run folder. Its exit code is 1 when the verdict fails.
"""

import datetime
import json
import logging
import math
import os
import time
from pathlib import Path

import gevent
import psutil
from locust import events
from locust.runners import MasterRunner, WorkerRunner

from ecommerce.core.server_timing import parse as parse_server_timing
from locustfiles.suite import audit, chaos, report, results, thresholds
from locustfiles.suite import plan as plans
from locustfiles.suite.recorder import Recorder
from locustfiles.suite.server import ServerSampler, digest_report

logger = logging.getLogger("suite")

DEFAULT_THRESHOLDS = {
    "ramp": "errors<0.01",
    "smoke": "errors<0.01",
    "rpm": "p95<460 errors<0.01 missed<0.01",
    "capacity": "p95<460 errors<0.01 missed<0.01",
    "soak": "p95<460 errors<0.01 missed<0.01",
    "chaos": "",  # judged by each fault's expected outcome and the audit
}


class State:
    """Everything the suite keeps for one Locust process."""

    def __init__(self):
        self.environment = None
        self.plan: plans.Plan | None = None
        self.recorder: Recorder | None = None
        self.clock: plans.ArrivalClock | None = None
        self.t0: float | None = None
        self.workers = 1
        self.run_dir: Path | None = None
        self.thresholds = []
        self.sampler: ServerSampler | None = None
        self.readings: dict[int, dict] = {}
        self.marks: dict | None = None
        self.digests_before: dict = {}
        self.greenlets: list = []
        self.answered_count = 0
        self.broken_step: int | None = None
        self.request_log = None
        self.stopping = False
        self.chaos_events: dict[int, chaos.Event] = {}

    @property
    def keeps_results(self) -> bool:
        return not isinstance(self.environment.runner, WorkerRunner)


STATE = State()


@events.init_command_line_parser.add_listener
def _options(parser):
    # Sizes, thresholds and the profile come from the environment (the make variables), the
    # same in every Locust process; only the report's folder is an option.
    parser.add_argument("--suite-run-dir", default="", include_in_web_ui=False, help="where the report goes")


@events.init.add_listener
def _init(environment, **_):
    STATE.environment = environment
    options = environment.parsed_options
    if options is None:  # locust used as a library without our options
        return
    STATE.plan = plans.from_env(os.environ.get("PROFILE", "smoke"), os.environ)
    STATE.recorder = Recorder(STATE.plan)
    STATE.thresholds = thresholds.parse(
        os.environ.get("THRESHOLDS") or DEFAULT_THRESHOLDS[STATE.plan.profile]
    )
    runner = environment.runner
    if isinstance(runner, WorkerRunner):
        runner.register_message("suite_start", _on_start_message)
    if STATE.keeps_results:
        STATE.run_dir = Path(options.suite_run_dir or _default_run_dir(STATE.plan.profile))
        STATE.run_dir.mkdir(parents=True, exist_ok=True)
        STATE.sampler = ServerSampler(
            Path(os.environ.get("VAR_DIR", Path(__file__).resolve().parents[2] / "var")),
            audit.databases(),
        )
        if environment.web_ui:
            _add_web_route(environment)
    if os.environ.get("REQUEST_LOG") and not isinstance(runner, MasterRunner):
        folder = Path(options.suite_run_dir or ".")
        folder.mkdir(parents=True, exist_ok=True)
        STATE.request_log = open(folder / f"requests-{os.getpid()}.csv", "a")  # noqa: SIM115


def _default_run_dir(profile: str) -> Path:
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    return Path(os.environ.get("VAR_DIR", "var")) / "runs" / f"{stamp}-{profile}"


# --- recording (processes that run users) --------------------------------------------------


@events.request.add_listener
def _on_request(
    request_type, name, response_time, response_length, response=None, exception=None, start_time=None, **_
):
    if STATE.recorder is None:
        return
    start = start_time if start_time is not None else time.time() - response_time / 1000
    status = getattr(response, "status_code", 0) or 0
    ok = exception is None
    header = response.headers.get("Server-Timing") if status else None
    STATE.recorder.request(
        name, start, response_time, ok, status, parse_server_timing(header) if header else None
    )
    if not ok:
        text = getattr(response, "text", None) if status else None
        STATE.recorder.example(name, status, text or repr(exception))
    if STATE.request_log:
        STATE.request_log.write(f"{start:.6f},{response_time:.3f},{name},{int(ok)},{status}\n")


@events.report_to_master.add_listener
def _report(client_id, data):
    if STATE.recorder is not None:
        data["suite"] = STATE.recorder.drain()


@events.test_stopping.add_listener
def _on_stopping(environment, **_):
    """No new journey starts once the test is stopping (open-model users may be asleep until
    an arrival that is now not to happen)."""
    STATE.stopping = True


def _on_start_message(environment, msg, **_):
    STATE.stopping = False
    STATE.t0 = msg.data["t0"]
    STATE.workers = msg.data["workers"]
    STATE.recorder.t0 = STATE.t0
    STATE.clock = plans.ArrivalClock(STATE.plan, STATE.t0, environment.runner.worker_index, STATE.workers)


def wait_for_clock() -> plans.ArrivalClock | None:
    """Open-model users wait here until the run's start time has reached this process."""
    while STATE.clock is None:
        gevent.sleep(0.05)
    return STATE.clock


# --- keeping results (local runner or master) ----------------------------------------------


@events.worker_report.add_listener
def _on_worker_report(client_id, data):
    if STATE.recorder is not None and "suite" in data:
        _write_answered(STATE.recorder.absorb(data["suite"]))


def _write_answered(numbers: list[str]) -> None:
    if numbers:
        with open(STATE.run_dir / audit.ANSWERED_FILE, "a") as handle:
            handle.write("\n".join(numbers) + "\n")
        STATE.answered_count += len(numbers)


@events.test_start.add_listener
def _on_test_start(environment, **_):
    if STATE.plan is None or not STATE.keeps_results:
        return
    if (STATE.run_dir / "summary.json").exists():  # another test of the same web UI session
        STATE.run_dir = _default_run_dir(STATE.plan.profile)
        STATE.run_dir.mkdir(parents=True, exist_ok=True)
    STATE.t0 = float(math.ceil(time.time()))
    STATE.stopping = False
    STATE.recorder = Recorder(STATE.plan)
    STATE.recorder.t0 = STATE.t0
    STATE.readings, STATE.broken_step, STATE.answered_count = {}, None, 0
    runner = environment.runner
    STATE.workers = max(1, len(runner.clients)) if isinstance(runner, MasterRunner) else 1
    if isinstance(runner, MasterRunner):
        runner.send_message("suite_start", {"t0": STATE.t0, "workers": STATE.workers})
    else:
        STATE.clock = plans.ArrivalClock(STATE.plan, STATE.t0, 0, 1)
    try:
        STATE.marks = audit.watermarks()
        STATE.digests_before = STATE.sampler.digests()
    except Exception as exc:  # the audit will say it could not run
        logger.error("could not read the database before the run: %s", exc)
        STATE.marks = None
    STATE.greenlets = [gevent.spawn(_sample_steps), gevent.spawn(_guard_memory, environment)]
    STATE.chaos_events = {}
    if STATE.plan.profile == "chaos":
        STATE.greenlets.append(gevent.spawn(chaos.drive, STATE.plan, STATE.t0, STATE.chaos_events))
    if not isinstance(runner, MasterRunner):
        STATE.greenlets.append(gevent.spawn(_fold_local_forever))


def _fold_local_forever():
    while True:
        _write_answered(STATE.recorder.fold_local())
        gevent.sleep(1)


def _sample_steps():
    """Read the servers at each step boundary (and every few seconds for peak memory)."""
    plan, sampler = STATE.plan, STATE.sampler
    gevent.sleep(max(0.0, STATE.t0 - time.time()))
    before = sampler.snapshot()
    for step in plan.steps:
        end = STATE.t0 + step.end
        while time.time() < end:
            gevent.sleep(min(5.0, max(0.05, end - time.time())))
            sampler.sample_peak()
        after = sampler.snapshot()
        reading = sampler.reading(before, after)
        reading["suite_rss_mb"] = round(psutil.Process().memory_info().rss / 2**20, 1)
        if plan.profile == "soak":
            reading["db_size_mb"] = sampler.database_size_mb()
        STATE.readings[step.index] = reading
        before = after


def _guard_memory(environment):
    """Keep Locust's own per-second bookkeeping bounded on long runs (its chart history and
    per-second request counts would otherwise grow for the whole run)."""
    while True:
        gevent.sleep(30)
        trim_locust_memory(environment.runner.stats, time.time())


def trim_locust_memory(stats, now: float, keep_seconds: int = 120, keep_history: int = 720) -> None:
    horizon = int(now) - keep_seconds
    for entry in [stats.total, *stats.entries.values()]:
        for per_second in (entry.num_reqs_per_sec, entry.num_fail_per_sec):
            for second in [s for s in per_second if s < horizon]:
                del per_second[second]
    if len(stats.history) > keep_history:
        del stats.history[: len(stats.history) - keep_history]


def capacity_broken(now: float) -> bool:
    """Capacity: has a step that ended at least ``grace`` seconds ago broken a threshold?"""
    plan = STATE.plan
    for step in plan.steps:
        if STATE.t0 + step.end + plan.grace > now:
            break
        row = results.step_rows(plan, STATE.recorder.steps, {})[step.index]
        if row["requests"] and not thresholds.judge(STATE.thresholds, row)["passed"]:
            STATE.broken_step = step.index
            return True
    return False


@events.test_stop.add_listener
def _on_test_stop(environment, **_):
    if STATE.plan is None or not STATE.keeps_results or STATE.t0 is None:
        return
    gevent.sleep(1.0 if isinstance(environment.runner, MasterRunner) else 0.2)  # last reports
    for greenlet in STATE.greenlets:
        greenlet.kill(block=False)
    if not isinstance(environment.runner, MasterRunner):
        _write_answered(STATE.recorder.fold_local())
    if STATE.request_log:
        STATE.request_log.flush()
    summary = finish(environment)
    report.write(summary, STATE.run_dir)
    if not summary["verdict"]["passed"]:
        environment.process_exit_code = 1
    logger.info("load suite: %s -> %s", "PASS" if summary["verdict"]["passed"] else "FAIL", STATE.run_dir)
    STATE.t0 = None


def finish(environment) -> dict:
    plan, recorder = STATE.plan, STATE.recorder
    finished = time.time()
    rows = results.step_rows(plan, recorder.steps, STATE.readings)
    ran = [r for r in rows if STATE.t0 + plan.steps[r["index"]].start < finished]
    if STATE.broken_step is not None:  # capacity: the steps after the one that broke are cut short
        ran = ran[: STATE.broken_step + 1]
    overall = results.overall_row(plan, recorder.steps)
    successes = results.successes(recorder.steps, recorder.outside_plan)
    retried = _chaos_aftermath() if plan.profile == "chaos" else None
    if STATE.marks is not None:
        try:
            audit_result = audit.audit(STATE.run_dir, STATE.marks, successes)
        except Exception as exc:
            audit_result = {"passed": False, "error": str(exc), "successes": successes}
    else:
        audit_result = {"passed": False, "error": "no watermarks before the run", "successes": successes}
    summary = {
        "profile": plan.profile,
        "t0": STATE.t0,
        "started": datetime.datetime.fromtimestamp(STATE.t0).isoformat(timespec="seconds"),
        "finished": datetime.datetime.fromtimestamp(finished).isoformat(timespec="seconds"),
        "seconds": round(finished - STATE.t0, 1),
        "config": json.loads(os.environ.get("SUITE_CONFIG") or "{}"),
        "plan": plan.as_dict(),
        "steps": ran,
        "overall": overall,
        "outside_plan_requests": {name: e.histogram.total for name, e in recorder.outside_plan.items()},
        "error_examples": recorder.examples,
        "audit": audit_result,
        "db": _db_totals(ran),
        "sql": digest_report(STATE.digests_before, STATE.sampler.digests()) if STATE.digests_before else {},
    }
    summary["config"]["locust_workers"] = STATE.workers if isinstance(environment.runner, MasterRunner) else 0
    if plan.profile == "chaos":
        summary["retry_fulfillment"] = retried
        summary["reliability"] = _reliability(ran)
    summary["verdict"] = verdict(summary)
    STATE.sampler.close()
    return summary


def _chaos_aftermath() -> dict:
    """Undo a fault the driver could not finish (a run stopped early), then retry every order
    the faults left unfulfilled, as an operator would."""
    if any(event.ended is None for event in STATE.chaos_events.values()):
        chaos.clear_all()
    return chaos.retry_all()


def _reliability(rows: list[dict]) -> list[dict]:
    plan, t0 = STATE.plan, STATE.t0

    def step_of(second: int) -> int | None:
        return plan.step_index(second - t0)

    try:
        per_step = audit.by_step(STATE.run_dir, STATE.marks, step_of) if STATE.marks else {}
    except Exception as exc:
        logger.error("could not audit the steps: %s", exc)
        per_step = {row["index"]: {"lost": None, "duplicates": None, "partial": None} for row in rows}
    return chaos.reliability_rows(rows, STATE.chaos_events, per_step, t0)


def _db_totals(rows: list[dict]) -> dict:
    def total(key):
        return sum(r.get("db", {}).get(key, 0) for r in rows)

    return {
        "commits": total("Com_commit"),
        "row_lock_waits": total("Innodb_row_lock_waits"),
        "connections_opened": total("Connections"),
        "slow_queries": total("Slow_queries"),
    }


def verdict(summary: dict) -> dict:
    reasons = []
    audit_result = summary["audit"]
    if not audit_result.get("passed"):
        reasons.append(
            "audit failed: "
            + (
                audit_result.get("error")
                or f"lost {audit_result.get('lost')}, duplicates {audit_result.get('duplicates')}"
            )
        )
    profile = summary["profile"]
    if profile == "capacity":
        held = [
            r for r in summary["steps"] if r["requests"] and thresholds.judge(STATE.thresholds, r)["passed"]
        ]
        # The capacity is the highest step that held, below the first step that broke.
        capacity = None
        for row in summary["steps"]:
            if not (row["requests"] and thresholds.judge(STATE.thresholds, row)["passed"]):
                break
            capacity = row["target_rpm"]
        summary["capacity_rpm"] = capacity
        summary["capacity_steps_held"] = len(held)
        for row in summary["steps"]:
            row["held"] = bool(row["requests"]) and thresholds.judge(STATE.thresholds, row)["passed"]
        if capacity is None:
            reasons.append("no step held the thresholds")
        judged = summary["steps"][-1] if summary["steps"] else {}
        checks = thresholds.judge(STATE.thresholds, judged)["checks"]
    else:
        judged = thresholds.judge(STATE.thresholds, summary["overall"])
        checks = judged["checks"]
        if not judged["passed"]:
            reasons.append("thresholds failed: " + ", ".join(c["threshold"] for c in checks if not c["ok"]))
    if profile == "soak":
        summary["trend"] = results.soak_trend(summary["steps"])
    if profile == "chaos":
        reasons += [
            f"{row['fault']}: " + ", ".join(c["check"] for c in row["checks"] if not c["ok"])
            for row in summary["reliability"]
            if not row["passed"]
        ]
        unfinished = {k: v for k, v in audit_result.get("orders_by_status", {}).items() if k != "Complete"}
        if unfinished:
            reasons.append(f"orders not Complete after retry_fulfillment --all: {unfinished}")
    return {"thresholds": checks, "passed": not reasons, "reasons": reasons}


def _add_web_route(environment):
    """The latest report, from the web UI: /suite/report."""
    from flask import Response

    app = environment.web_ui.app

    @app.route("/suite/report")
    def suite_report():
        path = STATE.run_dir / "report.html" if STATE.run_dir else None
        if not path or not path.exists():
            return Response("No report yet: start a test and stop it (or let the profile finish).", 404)
        return Response(path.read_text(), mimetype="text/html")
