"""The run as the process that keeps the results holds it (the local runner, or the master):
it folds what the users recorded into the plan's steps and a timeline, reads the servers at
every step boundary, prints progress, and when the test stops runs the audit, asks the profile
to judge, and writes the run folder. Its exit code is 1 when the verdict fails. It holds the
profiles' behaviour and the report, which a Locust worker has no use for and never imports
(run/hooks.py picks the class).

A run started from the web UI without a load shape (make run) follows the user counts asked
for in the form: each change is a step (the manual profile). Stopping and starting again is a
second run with a folder of its own.
"""

import datetime
import json
import math
import time
from pathlib import Path

import gevent
import psutil
from flask import Response

from common.environment import get
from locustfiles.suite import profiles, report
from locustfiles.suite.core import thresholds
from locustfiles.suite.core.learner_settings import load_settings
from locustfiles.suite.core.names import PROGRESS_FILE
from locustfiles.suite.core.plan import ArrivalClock, LivePlan
from locustfiles.suite.core.summary import SCHEMA_VERSION
from locustfiles.suite.figures import cpu, results
from locustfiles.suite.record import balancer, provenance
from locustfiles.suite.record.recorder import Recorder
from locustfiles.suite.record.sampler import ServerSampler, digest_report, parse_hosts
from locustfiles.suite.run.session import LoadRun, _own_cpu_seconds, logger, trim_locust_memory
from locustfiles.suite.stack import services
from locustfiles.suite.stack.commands import ROOT
from locustfiles.suite.verdict import audit, findings


class KeptRun(LoadRun):
    def __init__(self, environment, profile: str, env):
        super().__init__(environment, profile, env)
        self.profile = profiles.get(profile)
        self.plan = self.profile.plan(env)
        self.rules = thresholds.parse(env.get("THRESHOLDS") or self.profile.thresholds)
        self.recorder = Recorder(self.plan)
        self.begun: float | None = None
        self.expected_workers: int | None = None
        self.run_dir: Path | None = None
        self.sampler: ServerSampler | None = None
        self.balancer: balancer.BalancerStats | None = None  # BALANCER_STATS_URL: HAProxy's stats
        self.readings: dict[int, dict] = {}
        self.marks: dict | None = None
        self.digests_before: dict = {}
        self.greenlets: list = []
        self.answered_count = 0
        self.broken: int | None = None
        self.chaos_events: dict = {}
        self.profiler = None  # make profile's py-spy recordings (profiles.behaviour.Profiling)
        self.git_at_start: dict | None = None
        self.cpu_seconds: dict[str, tuple[float, float]] = {}  # Locust process -> (time, CPU s)
        self.cpu_before: dict[str, tuple[float, float]] = {}
        # When each Locust process's CPU count began, by its own clock (a worker on another host
        # may be seconds off the master's), and the host each runs on.
        self.cpu_origin: dict[str, float] = {}
        self.locust_hosts: dict[str, str] = {}
        self._reading_step: int | None = None  # the step whose server reading is open
        self._printed: set[int] = set()  # steps whose progress line was printed
        self._before: dict = {}
        self._balancer_before: dict = {}

    def attach_role(self) -> None:
        events = self.environment.events
        events.worker_report.add_listener(self.on_worker_report)
        events.test_start.add_listener(self.on_test_start)
        hosts = parse_hosts(get("READINGS_HOSTS", self.env))  # run/cli.py refused a bad one
        self.sampler = ServerSampler(Path(get("VAR_DIR", self.env)), audit.databases(), hosts)
        self.balancer = balancer.BalancerStats.from_env(self.env)
        if self.environment.web_ui:
            self._add_web_route()

    # --- keeping results (local runner or master) ------------------------------------------

    def on_worker_report(self, client_id, data):
        if "suite" in data:
            self._write_answered(self.recorder.absorb(data["suite"]))
        if "suite_cpu" in data:
            name, at, seconds, *origin = data["suite_cpu"]
            self.cpu_seconds[name] = (at, seconds)
            if origin:  # its count's start by its clock, and its host
                self.cpu_origin.setdefault(name, origin[0])
                self.locust_hosts[name] = origin[1]

    def _write_answered(self, numbers: list[str]) -> None:
        if numbers:
            with open(self.run_dir / audit.ANSWERED_FILE, "a") as handle:
                handle.write("\n".join(numbers) + "\n")
            self.answered_count += len(numbers)

    def on_test_start(self, environment, **_):
        now = time.time()
        if self.environment.shape_class is None and not isinstance(self.plan, LivePlan):
            # The web UI's form (or -u) sets the users, not the profile's shape: say so.
            self.profile = profiles.get("manual")
            self.rules = thresholds.parse(self.env.get("THRESHOLDS") or self.profile.thresholds)
        if isinstance(self.plan, LivePlan) or self.profile.name == "manual":
            self.plan = self.profile.plan(self.env)
            self.t0 = float(math.floor(now))
            self.plan.begin(self.runner.target_user_count or 0, now - self.t0)
        else:
            self.t0 = float(math.ceil(now))  # the first step starts on a whole second
        self.begun = now
        self.run_dir = self._new_run_dir()
        self.stopping = False
        self.recorder = Recorder(self.plan)
        self.recorder.t0 = self.t0
        self.readings, self.broken, self.answered_count, self.chaos_events = {}, None, 0, {}
        self._reading_step = None
        self._printed: set[int] = set()
        self.workers = max(1, len(self.runner.clients)) if self.distributed else 1
        self.expected_workers = getattr(self.options, "expect_workers", None) if self.distributed else None
        if self.expected_workers and self.workers < self.expected_workers:
            self.progress(
                f"warning: {self.workers} Locust workers connected, {self.expected_workers} expected: "
                "the arrivals are split among those connected now"
            )
        if self.distributed:
            self.runner.send_message(
                "suite_start", {"t0": self.t0, "workers": self.workers, "plan": self.plan.as_dict()}
            )
        else:
            self.clock = ArrivalClock(self.plan, self.t0, 0, 1)
        try:
            self.marks = audit.watermarks()
            self.digests_before = self.sampler.digests()
        except Exception as exc:  # the audit will say it could not run
            self.log(f"could not read the database before the run: {exc}")
            self.marks = None
        self.git_at_start = provenance.git(ROOT)  # the code that runs (read again at the end)
        self.cpu_seconds = {self._own_name(): (now, _own_cpu_seconds())}
        self.cpu_before = dict(self.cpu_seconds)
        self.cpu_origin = {}
        self.locust_hosts = {self._own_name(): self.host_name}
        self.greenlets = [gevent.spawn(self._watch), gevent.spawn(self._guard_memory)]
        self.greenlets += [gevent.spawn(task) for task in self.profile.background(self)]
        if not self.distributed:
            self.greenlets.append(gevent.spawn(self._fold_local_forever))
        self.progress(f"{self.describe()}: started, folder {self.run_dir}")

    def _own_name(self) -> str:
        return "master" if self.distributed else "local"

    def _new_run_dir(self) -> Path:
        given = self.options.suite_run_dir
        if given and not (Path(given) / "summary.json").exists():
            folder = Path(given)
        else:  # no folder given, or another test of the same web UI session
            stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
            base = Path(given).parent if given else Path(get("VAR_DIR", self.env)) / "runs"
            folder = base / f"{stamp}-{self.profile.name}"
            suffix = 1
            while folder.exists():
                suffix += 1
                folder = base / f"{stamp}-{self.profile.name}-{suffix}"
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def describe(self) -> str:
        return f"{self.profile.name} run ({self.started_from})"

    @property
    def started_from(self) -> str:
        return "headless" if getattr(self.options, "headless", True) else "web UI"

    def progress(self, line: str) -> None:
        """A line for the terminal: run/cli.py prints the run folder's progress.log as it grows."""
        logger.info(line)
        if self.run_dir is not None:
            with open(self.run_dir / PROGRESS_FILE, "a") as handle:
                handle.write(line + "\n")

    def _fold_local_forever(self):
        while True:
            self._write_answered(self.recorder.fold_local())
            gevent.sleep(1)

    # --- step boundaries -------------------------------------------------------------------

    def _step_end(self, index: int) -> float:
        """Seconds after t0 at which step ``index`` ends (a live plan's last: not yet known)."""
        steps = self.plan.steps
        if index + 1 < len(steps):
            return steps[index + 1].start
        return math.inf if isinstance(self.plan, LivePlan) else steps[index].end

    def _watch(self):
        """Read the servers at each step boundary (and every few seconds for peak memory), note
        the users running each second, and follow the web UI's user count in a live plan."""
        gevent.sleep(max(0.0, self.t0 - time.time()))
        self._before = self.sampler.snapshot()
        if self.balancer:
            self._balancer_before = self.balancer.snapshot()
        self._reading_step = 0
        last_peak = time.time()
        while True:
            now = time.time()
            offset = now - self.t0
            self.recorder.timeline.users(int(offset), self.runner.user_count)
            if isinstance(self.plan, LivePlan):
                self.plan.change(self.runner.target_user_count, offset)
            while self._reading_step < len(self.plan.steps) and offset >= self._step_end(self._reading_step):
                self._close_reading(self._reading_step)
                self._reading_step += 1
            if now - last_peak >= 5:
                self.sampler.sample_peak()
                last_peak = now
            if self._reading_step >= len(self.plan.steps):
                return
            wait = min(1.0, self.t0 + self._step_end(self._reading_step) - time.time())
            gevent.sleep(max(0.05, wait))

    def _close_reading(self, index: int) -> None:
        after = self.sampler.snapshot()
        reading = self.sampler.reading(self._before, after)
        reading["suite_rss_mb"] = round(psutil.Process().memory_info().rss / 2**20, 1)
        reading["locust_cpu"] = self._locust_cpu()
        if self.sampler.hosts:  # each host's Locust processes, as they report themselves
            by_host: dict[str, float] = {}
            for name, percent in reading["locust_cpu"].items():
                host = self.locust_hosts.get(name, "?")
                by_host[host] = round(by_host.get(host, 0.0) + percent, 1)
            reading["locust_cpu_by_host"] = by_host
        try:
            reading["db_size_mb"] = self.sampler.database_size_mb()
            reading["tables"] = self.sampler.table_sizes()
        except Exception as exc:  # MariaDB restarting (chaos): the size is unknown
            self.log(f"could not read the database size: {exc}")
            reading["db_size_mb"] = None
        if self.balancer:  # the requests HAProxy sent to each ecommerce server during the step
            balancer_after = self.balancer.snapshot()
            reading["balancer"] = balancer.reading(self._balancer_before, balancer_after)
            self._balancer_before = balancer_after
        self.readings[index] = reading
        self._before = after
        # The step's last requests are reported a moment later (workers every 3 s).
        gevent.spawn_later(4.0 if self.distributed else 1.5, self._print_step, index)

    def _locust_cpu(self) -> dict[str, float]:
        """CPU % of one core of each Locust process since the last step boundary."""
        self.cpu_seconds[self._own_name()] = (time.time(), _own_cpu_seconds())
        out = {}
        for name, (at, seconds) in self.cpu_seconds.items():
            then_at, then_seconds = self.cpu_before.get(name, (self.cpu_origin.get(name, self.begun), 0.0))
            if at > then_at:
                out[name] = round(100 * max(seconds - then_seconds, 0.0) / (at - then_at), 1)
        self.cpu_before = dict(self.cpu_seconds)
        return out

    def _print_step(self, index: int) -> None:
        if index >= len(self.plan.steps) or self.t0 is None or index in self._printed:
            return
        self._printed.add(index)
        step = self.plan.steps[index]
        row = results.step_rows(self.plan, self.recorder.steps, {})[index]
        total = f"{self.plan.seconds:g}" if self.plan.seconds else "?"
        if step.warm_up:
            name = f"warm-up ({_num(step.target_rpm)} RPM, not judged)"
        else:
            number = index + 1 - (self.plan.warm_up is not None)
            count = len(self.plan.measured) if not isinstance(self.plan, LivePlan) else "?"
            name = f"step {number}/{count} ({self.profile.label(step)})"
        self.progress(
            f"{name}, {step.start + step.seconds:g}/{total} s: "
            f"{_num(row['rpm'])} RPM, p95 {_num(row['p95'])} ms, "
            f"{row['failures']} failed, {row['missed']} missed"
        )

    def _guard_memory(self):
        """Keep Locust's own per-second bookkeeping bounded on long runs (its chart history and
        per-second request counts would otherwise grow for the whole run)."""
        while True:
            gevent.sleep(30)
            trim_locust_memory(self.runner.stats, time.time())

    def broken_step(self, now: float) -> int | None:
        """The first step that ended at least the plan's grace ago and broke a threshold."""
        if self.broken is not None:
            return self.broken
        for step in self.plan.steps:
            if self.t0 + step.end + self.plan.grace > now:
                break
            if step.warm_up:  # a cold stack's first minute is not the service's capacity
                continue
            row = results.step_rows(self.plan, self.recorder.steps, {})[step.index]
            if row["requests"] and not thresholds.judge(self.rules, row)["passed"]:
                self.broken = step.index
                break
        return self.broken

    def step_of_second(self, second: int) -> int | None:
        return self.plan.step_index(second - self.t0)

    # --- the end ---------------------------------------------------------------------------

    def on_test_stop(self, environment, **_):
        super().on_test_stop(environment)
        if self.t0 is None:
            return
        gevent.sleep(1.0 if self.distributed else 0.2)  # the last reports
        now = time.time()
        # Wait for the watcher to end: the reading below must not start while it is mid-step.
        gevent.killall(self.greenlets, block=True, timeout=10)
        if isinstance(self.plan, LivePlan):
            self.plan.stop(now - self.t0)
        if not self.distributed:
            self._write_answered(self.recorder.fold_local())
        # The step under way when the run stopped gets its reading too.
        step = self._reading_step
        if step is not None and step < len(self.plan.steps) and now >= self.t0 + self.plan.steps[step].start:
            self._close_reading(step)
        # The steps whose line was still to come (not those a broken capacity step cut short).
        last = len(self.plan.steps) if self.broken is None else self.broken + 1
        for index in range(last):
            if now > self.t0 + self.plan.steps[index].start:
                self._print_step(index)
        summary = self.finish(now)
        if isinstance(self.plan, LivePlan) and not self.options.suite_run_dir:
            self.run_dir = self._rename_for(summary)
        report.write(summary, self.run_dir)
        if not summary["verdict"]["passed"]:
            environment.process_exit_code = 1
        self.progress(f"{self.describe()}: {'PASS' if summary['verdict']['passed'] else 'FAIL'}")
        self.t0 = None

    def _rename_for(self, summary: dict) -> Path:
        """A hand-made run's folder says what ran: <stamp>-manual-3-users, or 1-to-5-users."""
        counts = [row["users"] for row in summary["steps"]]
        users = f"{counts[0]}" if len(set(counts)) == 1 else f"{min(counts)}-to-{max(counts)}"
        target = self.run_dir.with_name(f"{self.run_dir.name}-{users}-user{'s' if counts != [1] else ''}")
        if target.exists() or not counts:
            return self.run_dir
        self.run_dir.rename(target)
        return target

    def finish(self, finished: float) -> dict:
        plan, recorder = self.plan, self.recorder
        rows = results.step_rows(plan, recorder.steps, self.readings)
        ran = [r for r in rows if self.t0 + plan.steps[r["index"]].start < finished]
        if self.broken is not None:  # capacity: the steps after the one that broke are cut short
            ran = [r for r in ran if r["index"] <= self.broken]
        for row in ran:
            row["label"] = self.profile.label(plan.steps[row["index"]])
            cpu.account(row, self.profile.purchase_endpoints)
        # A warm-up is reported apart: not a step, not in "all", thresholds or verdict.
        warm_up = next((r for r in ran if plan.steps[r["index"]].warm_up), None)
        all_rows = ran
        ran = [r for r in ran if r is not warm_up]
        overall = results.overall_row(plan, recorder.steps, up_to=ran[-1]["index"] + 1 if ran else 0)
        overall["label"] = "all"
        successes = results.successes(recorder.steps, recorder.outside_plan, self.profile.purchase_endpoints)
        summary = {
            "schema_version": SCHEMA_VERSION,
            "profile": self.profile.name,
            "started_from": self.started_from,
            "t0": self.t0,
            "started": datetime.datetime.fromtimestamp(self.begun).isoformat(timespec="seconds"),
            "finished": datetime.datetime.fromtimestamp(finished).isoformat(timespec="seconds"),
            "seconds": round(finished - self.begun, 1),
            "config": json.loads(self.env.get("SUITE_CONFIG") or "{}"),
            "plan": plan.as_dict(),
            "warm_up": warm_up,
            "steps": ran,
            "overall": overall,
            "endpoints": {
                "steps": [{key: r[key] for key in ("index", "label", "endpoints")} for r in ran],
                "overall": overall["endpoints"],
            },
            "timeline": self._timeline(all_rows),
            "outside_plan_requests": {name: e.histogram.total for name, e in recorder.outside_plan.items()},
            "error_examples": recorder.examples,
            "load": {
                "host": self.environment.host,
                "users": max((r["users"] or 0 for r in ran), default=0) or plan.users,
                "spawn_rate": getattr(self.options, "spawn_rate", None),
                "locust_workers": self.workers if self.distributed else 0,
                "locust_hosts": dict(sorted(self.locust_hosts.items())),
                "locust_workers_expected": self.expected_workers,
            },
            "load_generator": _load_generator(all_rows),
            "profile_sections": list(self.profile.sections),
        }
        summary["config"]["locust_workers"] = summary["load"]["locust_workers"]
        # The learners' configured mix, beside the measured one (edX's client has its own).
        weights = None if self.profile.purchase_endpoints else load_settings(self.env)["weights"]
        summary["cpu_accounting"] = cpu.run_accounting(ran, weights)
        summary["cpu_ms_per_purchase"] = summary["cpu_accounting"]["cpu_ms_per_purchase"]
        summary.update(self.profile.settle(self))
        summary["audit"] = self._audit(successes)
        summary["db"] = _db_totals(all_rows)  # the whole run, as the audit
        if self.balancer:
            summary["balancer"] = balancer.summary(ran)
        before = self.digests_before
        summary["sql"] = digest_report(before, self.sampler.digests()) if before else {}
        summary["sql"]["slow_query_seconds"] = self.sampler.slow_query_seconds()
        self.profile.finish(self, summary)
        summary["verdict"] = self.verdict(summary)
        summary["provenance"] = provenance.collect(
            self.env,
            services.running_settings(self.env),
            profile=self.profile.name,
            started_from=self.started_from,
            host=summary["load"]["host"],
            users=summary["load"]["users"],
            spawn_rate=summary["load"]["spawn_rate"],
            locust_workers=summary["load"]["locust_workers"],
            git_at_start=self.git_at_start,
        )
        summary["findings"] = findings.findings(summary)
        self.sampler.close()
        return summary

    def _timeline(self, rows: list[dict]) -> dict:
        return {
            "bucket_seconds": self.recorder.timeline.bucket_seconds,
            "points": self.recorder.timeline.points(),
            "step_starts": [self.plan.steps[r["index"]].start for r in rows],
            "step_labels": [r["label"] for r in rows],
        }

    def _audit(self, successes: int) -> dict:
        if self.marks is None:
            return {"passed": False, "error": "no watermarks before the run", "successes": successes}
        try:
            return audit.audit(self.run_dir, self.marks, successes)
        except Exception as exc:
            return {"passed": False, "error": str(exc), "successes": successes}

    def verdict(self, summary: dict) -> dict:
        reasons = []
        audit_result = summary["audit"]
        if not audit_result.get("passed"):
            reasons.append(
                "audit failed: "
                + (
                    audit_result.get("error")
                    or ", ".join(audit.problems(audit_result))
                    or f"lost {audit_result.get('lost')}, duplicates {audit_result.get('duplicates')}"
                )
            )
        checks, failed = self.profile.judge(summary, self.rules)
        return {"thresholds": checks, "passed": not (reasons + failed), "reasons": reasons + failed}

    def _add_web_route(self):
        """The latest report, from the web UI: /suite/report."""

        @self.environment.web_ui.app.route("/suite/report")
        def suite_report():
            path = self.run_dir / "report.html" if self.run_dir else None
            if not path or not path.exists():
                return Response("No report yet: start a test and stop it (or let the profile finish).", 404)
            return Response(path.read_text(), mimetype="text/html")


def _num(value) -> str:
    return "–" if value is None else f"{value:g}"


def _load_generator(rows: list[dict]) -> dict:
    """The busiest Locust process of the run, and whether it neared a full core (then the
    figures measure the load generator as much as the service)."""
    peak, process = 0.0, None
    for row in rows:
        for name, percent in (row.get("locust_cpu") or {}).items():
            if percent >= peak:
                peak, process = percent, name
    return {
        "peak_cpu_percent": peak if process else None,
        "process": process,
        "saturated": peak >= findings.NEAR_FULL_CORE,
        "threshold_percent": findings.NEAR_FULL_CORE,
    }


def _db_totals(rows: list[dict]) -> dict:
    def total(key):
        return sum((r.get("db_deltas") or {}).get(key, 0) for r in rows)

    return {
        "commits": total("Com_commit"),
        "row_lock_waits": total("Innodb_row_lock_waits"),
        "connections_opened": total("Connections"),
        "slow_queries": total("Slow_queries"),
    }
