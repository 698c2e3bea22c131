"""The run in the process that keeps the results (run/roles.py: the local runner's LocalRun,
or the master's MasterRun; this is what they share): it folds what the users recorded into the
plan's steps and a timeline, reads the servers at every step boundary, prints progress, and
when the test stops runs the audit, asks the profile to judge, and writes the run folder
(run/summary.py makes the summary from what was recorded, read and audited). Its exit code is 1
when the verdict fails. It holds the profiles' behaviour and the report, which a Locust worker
has no use for and never imports (run/hooks.py picks the class).

A run started from the web UI without a load shape (make run) follows the user counts asked
for in the form: each change is a step (the manual profile). Stopping and starting again is a
second run with a folder of its own. make run's start form can pick any other profile for the
next run instead (``take``, run/start_form.py).
"""

import json
import os
import time
from pathlib import Path

import gevent
import psutil

from common.environment import get, given
from common.hostreadings import machine_busy_seconds
from locustfiles.suite import profiles, report
from locustfiles.suite.core import run_folders, thresholds
from locustfiles.suite.core.learner_settings import load_settings
from locustfiles.suite.core.names import PROGRESS_FILE, START_FILE
from locustfiles.suite.core.plan import Step
from locustfiles.suite.figures import ceiling, cpu, results
from locustfiles.suite.record import balancer, provenance
from locustfiles.suite.record.hosts import by_host, parse_hosts
from locustfiles.suite.record.recorder import Recorder
from locustfiles.suite.record.sampler import ServerSampler
from locustfiles.suite.report import live, terminal
from locustfiles.suite.run import folder, start_form, webpages
from locustfiles.suite.run import summary as summaries
from locustfiles.suite.run.session import LoadRun, _own_cpu_seconds, logger, trim_locust_memory
from locustfiles.suite.stack import services
from locustfiles.suite.stack.commands import ROOT
from locustfiles.suite.verdict import audit


class KeptRun(LoadRun):
    """The results' side. A role (run/roles.py) says where the users' requests come from and
    how the run's start reaches them; the class attributes are its facts."""

    distributed: bool  # whether Locust workers run the users (make profile's py-spy asks)
    process_name: str  # this process, among the Locust processes whose CPU is read
    report_delay: float  # seconds after a step's end until its last requests are recorded here
    last_reports: float  # seconds after the test stopped until the users' last records are here

    def __init__(self, environment, profile: str, env, learners=None):
        super().__init__(environment, profile, env)
        self.learners = learners  # make run's: any profile from the start form (run/hooks.py)
        self.take(profile, env)
        self.recorder = Recorder(self.plan)
        self.begun: float | None = None
        self.expected_workers: int | None = None
        self.run_dir: Path | None = None
        self.sampler: ServerSampler | None = None
        self.balancer: balancer.BalancerStats | None = None  # BALANCER_STATS_URL: HAProxy's stats
        self.readings: dict[int, dict] = {}
        self.summary: dict | None = None  # the last run's, once written (the web UI's live tabs)
        self.live_rows: dict = {}  # the live tabs' step rows made so far (report/live.py)
        self.marks: dict | None = None
        self.written: dict | None = None  # rows written so far (the live tab's running counts)
        self.digests_before: dict = {}
        self.greenlets: list = []
        self.answered_count = 0
        self.chaos_events: dict = {}
        self.profiler = None  # make profile's py-spy recordings (profiles/profiling.py)
        self.git_at_start: dict | None = None
        self.cpu_seconds: dict[str, tuple[float, float]] = {}  # Locust process -> (time, CPU s)
        self.cpu_before: dict[str, tuple[float, float]] = {}
        # When each Locust process's CPU count began, by its own clock, and the host it runs on.
        self.cpu_origin: dict[str, float] = {}
        self.locust_hosts: dict[str, str] = {}
        self._reading_step: int | None = None  # the step whose server reading is open
        self._printed: set[int] = set()  # steps whose progress line was printed
        self._before: dict = {}
        self._balancer_before: dict = {}

    def take(self, profile: str, env) -> None:
        """Make the next test ``profile``'s run in environment ``env``, as `make <profile>`
        with that environment would (the web UI's start form: run/start_form.py)."""
        self.profile_name, self.env = profile, env
        self.profile = profiles.get(profile)
        self.plan = self.profile.plan(env)
        self.rules = thresholds.parse(given("THRESHOLDS", env) or self.profile.thresholds)

    def attach_role(self) -> None:
        self.environment.events.test_start.add_listener(self.on_test_start)
        hosts = parse_hosts(get("READINGS_HOSTS", self.env))  # run/cli.py refused a bad one
        self.sampler = ServerSampler(Path(get("VAR_DIR", self.env)), audit.databases(), hosts)
        self.balancer = balancer.BalancerStats.from_env(self.env)
        if self.environment.web_ui:  # the latest report, every run, two compared; the live tabs
            runs_dir = run_folders.runs(get("VAR_DIR", self.env))
            webpages.add(self.environment.web_ui.app, runs_dir)
            groups = (*cpu.SERVICES, cpu.BALANCER) if self.balancer or self.sampler.hosts else cpu.SERVICES
            webpages.add_live(self.environment.web_ui, self.live_state, groups, runs_dir)
            if self.learners:
                start_form.StartForm(self, self.learners).attach(self.environment.web_ui)

    # --- what a role does (run/roles.py) ----------------------------------------------------

    def begin_side(self) -> None:
        """Set the run's Locust workers and start the arrivals with the run's start (t0)."""
        raise NotImplementedError

    def side_tasks(self) -> list:
        """Functions to run as greenlets beside the load, for this role."""
        return []

    def collect_last(self) -> None:
        """Take in the users' last records once the test stopped."""

    @property
    def locust_workers(self) -> int:
        return 0

    # --- keeping results --------------------------------------------------------------------

    def _write_answered(self, numbers: list[str]) -> None:
        if numbers:
            with open(self.run_dir / audit.ANSWERED_FILE, "a") as handle:
                handle.write("\n".join(numbers) + "\n")
            self.answered_count += len(numbers)

    def on_test_start(self, environment, **_):
        now = time.time()
        if self.environment.shape_class is None and not self.plan.follows_users:
            # The web UI's form (or -u) sets the users, not the profile's shape: say so.
            self.profile = profiles.get("manual")
            self.rules = thresholds.parse(given("THRESHOLDS", self.env) or self.profile.thresholds)
        self.plan = self.profile.plan(self.env)  # each test of a web UI session: its own
        self.t0 = self.plan.t0_for(now, self.runner.target_user_count or 0)
        self.begun = now
        runs = run_folders.runs(get("VAR_DIR", self.env))
        self.run_dir = folder.new_run_dir(self.run_dir_given, runs, self.profile.name)
        self.stopping = False
        self.recorder = Recorder(self.plan)
        self.recorder.t0 = self.t0
        self.readings, self.answered_count, self.chaos_events = {}, 0, {}
        self.summary, self.live_rows, self.written = None, {}, None
        self._reading_step = None
        self._printed: set[int] = set()
        self.begin_side()
        try:
            self.marks = audit.watermarks()
            self.digests_before = self.sampler.digests()
        except Exception as exc:  # the audit will say it could not run
            self.log(f"could not read the database before the run: {exc}")
            self.marks = None
        self.git_at_start = provenance.git(ROOT)  # the code that runs (read again at the end)
        self.cpu_seconds = {self.process_name: (now, _own_cpu_seconds())}
        self.cpu_before = dict(self.cpu_seconds)
        self.cpu_origin = {}
        self.locust_hosts = {self.process_name: self.host_name}
        tasks = [self._watch, self._guard_memory, *self.profile.background(self), *self.side_tasks()]
        tasks += [self._count_written] if self.environment.web_ui else []  # the live tab's
        self.greenlets = [gevent.spawn(task) for task in tasks]
        self.progress(f"{self.describe()}: started, folder {self.run_dir}")

    def live_state(self) -> live.Live:
        """The run now, as the web UI's live tabs show it (report/live.py)."""
        return live.Live(
            self.profile,
            self.plan,
            self.recorder,
            self.readings,
            self.rules,
            self.t0,
            time.time(),
            stopping=self.stopping,
            answered=self.answered_count,
            summary=self.summary,
            run_name=self.run_dir.name if self.run_dir else None,
            cache=self.live_rows,
            written=self.written,
        )

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

    # --- step boundaries -------------------------------------------------------------------

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
            if not self.sampler.hosts:  # this machine's busy time second by second (not the hosts')
                self.recorder.timeline.read_machine(now - int(self.t0), machine_busy_seconds())
            self.plan.follow(self.runner.target_user_count, offset)
            while self._reading_step < len(self.plan.steps) and offset >= self.plan.step_end(
                self._reading_step
            ):
                self._close_reading(self._reading_step)
                self._reading_step += 1
            if now - last_peak >= 5:
                self.sampler.sample_peak()
                last_peak = now
            if self._reading_step >= len(self.plan.steps):
                return
            wait = min(1.0, self.t0 + self.plan.step_end(self._reading_step) - time.time())
            gevent.sleep(max(0.05, wait))

    def _close_reading(self, index: int) -> None:
        after = self.sampler.snapshot()
        reading = self.sampler.reading(self._before, after)
        reading["suite_rss_mb"] = round(psutil.Process().memory_info().rss / 2**20, 1)
        reading["locust_cpu"] = self._locust_cpu()
        if self.sampler.hosts:  # each host's Locust processes, as they report themselves
            reading["locust_cpu_by_host"] = by_host(reading["locust_cpu"], self.locust_hosts)
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
        gevent.spawn_later(self.report_delay, self._print_step, index)

    def _locust_cpu(self) -> dict[str, float]:
        """CPU % of one core of each Locust process since the last step boundary."""
        self.cpu_seconds[self.process_name] = (time.time(), _own_cpu_seconds())
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
        row = results.step_row(self.recorder.steps, step, {})
        self.progress(terminal.step_progress(self.plan, step, self.profile.label(step), row))

    def _guard_memory(self):
        """Keep Locust's own per-second bookkeeping bounded on long runs (its chart history and
        per-second request counts would otherwise grow for the whole run)."""
        while True:
            gevent.sleep(30)
            trim_locust_memory(self.runner.stats, time.time())

    def _count_written(self):
        while True:  # every 5 s until the test stops (its greenlets are killed)
            self.written = audit.running_counts(self.marks)
            gevent.sleep(5)

    def judgeable(self, step: Step, now: float) -> bool:
        """Whether a step ended at least the plan's grace ago (and this role's report delay):
        its slowest requests are in."""
        wait = max(self.plan.grace, self.report_delay)
        return self.t0 is not None and self.t0 + step.end + wait <= now

    def held(self, step: Step) -> bool:
        """Whether a step's requests so far held the run's thresholds."""
        return results.held(results.step_row(self.recorder.steps, step, {}), self.rules)

    def ceiling_of(self, step: Step) -> float | None:
        """The machine's ceiling at a step whose reading was taken (figures/ceiling.py): out of
        every kernel's cores the hosts' agents read, else this host's, as the summary's."""
        row = results.step_row(self.recorder.steps, step, self.readings)
        return ceiling.step_ceiling(row, row.get("machine_cores") or os.cpu_count())

    def revise_plan(self, boundary: int, following: list[Step]) -> None:
        """From ``boundary`` seconds after t0 the plan is ``following`` (core/plan.py revise),
        here and for the users (the role sends it)."""
        self.plan.revise(boundary, following)
        self.announce_plan()

    def announce_plan(self) -> None:
        """Hand a revised plan to whoever runs the users (a role's; the local runner's users
        read this process's plan)."""

    def step_of_second(self, second: int) -> int | None:
        return self.plan.step_index(second - self.t0)

    # --- the end ---------------------------------------------------------------------------

    def on_test_stop(self, environment, **_):
        super().on_test_stop(environment)
        if self.t0 is None:
            return
        gevent.sleep(self.last_reports)
        now = time.time()
        # Wait for the watcher to end: the reading below must not start while it is mid-step.
        gevent.killall(self.greenlets, block=True, timeout=10)
        self.plan.stop(now - self.t0)
        self.collect_last()
        # The step under way when the run stopped gets its reading too.
        step = self._reading_step
        if step is not None and step < len(self.plan.steps) and now >= self.t0 + self.plan.steps[step].start:
            self._close_reading(step)
        # The steps whose line was still to come.
        for index in range(len(self.plan.steps)):
            if now > self.t0 + self.plan.steps[index].start:
                self._print_step(index)
        summary = self.finish(now)
        if self.plan.follows_users and not self.run_dir_given:
            self.run_dir = folder.rename_for(self.run_dir, summary)
        report.write(summary, self.run_dir)
        self.summary = summary
        if not summary["verdict"]["passed"]:
            environment.process_exit_code = 1
        self.progress(f"{self.describe()}: {'PASS' if summary['verdict']['passed'] else 'FAIL'}")
        self.t0 = None

    def _config(self) -> dict:
        """The stack's settings (SUITE_CONFIG) with what the run started on, when the command
        line that started it recorded that (START_FILE)."""
        config = json.loads(given("SUITE_CONFIG", self.env) or "{}")
        start = self.run_dir / START_FILE
        if start.exists():
            config["database_at_start"] = json.loads(start.read_text())
        return config

    def finish(self, finished: float) -> dict:
        """Read and audit what the run left, then summarise (run/summary.py)."""
        recorded = summaries.Recorded(self.plan, self.recorder, self.readings, self.begun, self.t0, finished)
        # The services' statements, read first: chaos's retries and the audit's look-ups run the
        # services' own commands in their schemas, which the digests cannot tell from requests.
        sql = self.sampler.statements(self.digests_before)
        settled = self.profile.settle(self)  # before the audit: chaos retries what it left
        audited = self._audit(summaries.successes(self.profile, self.recorder))
        # The learners' configured mix, beside the measured one (edX's client has its own).
        weights = None if self.profile.purchase_endpoints else load_settings(self.env)["weights"]
        read = summaries.Read(
            self._config(),
            self.started_from,
            self._load(),
            weights,
            settled,
            audited,
            sql,
            behind_balancer=bool(self.balancer),
            profile=self.profile.read(self),  # what the profile reads after the audit
            settings=self.profile.run_settings(self.env).record(),
        )
        summary = summaries.measured(self.profile, recorded, read)
        load = summary["load"]
        run_provenance = provenance.collect(
            self.env,
            services.running_settings(self.env),
            profile=self.profile.name,
            started_from=self.started_from,
            git_at_start=self.git_at_start,
            **{key: load[key] for key in ("host", "users", "spawn_rate", "locust_workers")},
        )
        self.sampler.close()
        return summaries.judged(summary, self.profile, self.rules, run_provenance, read.profile)

    def _load(self) -> dict:
        """Who made the load: Locust's host, spawn rate, workers and the hosts they ran on."""
        return {
            "host": self.environment.host,
            "spawn_rate": getattr(self.options, "spawn_rate", None),
            "locust_workers": self.locust_workers,
            "locust_hosts": dict(sorted(self.locust_hosts.items())),
            "locust_workers_expected": self.expected_workers,
        }

    def _audit(self, successes: int) -> dict:
        if self.marks is None:
            return {"passed": False, "error": "no watermarks before the run", "successes": successes}
        try:
            return audit.audit(self.run_dir, self.marks, successes)
        except Exception as exc:
            return {"passed": False, "error": str(exc), "successes": successes}
