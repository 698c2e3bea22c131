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

import time
from pathlib import Path

import gevent

from common import calibration
from common.environment import get, given
from locustfiles.suite import profiles, report
from locustfiles.suite.core import run_folders, thresholds
from locustfiles.suite.core.names import PROGRESS_FILE
from locustfiles.suite.core.plan import Plan, Step
from locustfiles.suite.figures import results
from locustfiles.suite.record import balancer, provenance
from locustfiles.suite.record.hosts import parse_hosts
from locustfiles.suite.record.recorder import Recorder
from locustfiles.suite.record.sampler import ServerSampler
from locustfiles.suite.run import cockpit, finish, folder
from locustfiles.suite.run.session import LoadRun, _own_cpu_seconds, logger, trim_locust_memory
from locustfiles.suite.run.watch import LocustCpu, StepWatch
from locustfiles.suite.stack.commands import ROOT
from locustfiles.suite.verdict import audit


class KeptRun(LoadRun):
    """The results' side. A role (run/roles.py) says where the users' requests come from and
    how the run's start reaches them; the class attributes are its facts. Its collaborators: a
    StepWatch per test (run/watch.py), the end's reading and summary (run/finish.py), the web
    UI's wiring (run/cockpit.py). What profiles use of it is profiles/base.py's RunContext."""

    distributed: bool  # whether Locust workers run the users (make profile's py-spy asks)
    process_name: str  # this process, among the Locust processes whose CPU is read
    report_delay: float  # seconds after a step's end until its last requests are recorded here
    last_reports: float  # seconds after the test stopped until the users' last records are here
    plan: Plan  # take() sets it before anything reads it: only a worker waits for its plan

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
        self.watch: StepWatch | None = None  # the test's step readings (run/watch.py)
        self.cpu = LocustCpu(self.process_name, self.host_name, time.time(), _own_cpu_seconds())
        self.profile_state = None  # the profile's own, for one test (Behaviour.new_state)
        self.summary: dict | None = None  # the last run's, once written (the web UI's live tabs)
        self.live_rows: dict = {}  # the live tabs' step rows made so far (report/live.py)
        self.marks: dict | None = None
        self.written: dict | None = None  # rows written so far (the live tab's running counts)
        self.digests_before: dict = {}
        self.greenlets: list = []
        self.answered_count = 0
        self.git_at_start: dict | None = None
        self.calibrated_before: calibration.Calibration | str | None = None  # calibration.attempt's

    def take(self, profile: str, env, plan: Plan | None = None) -> None:
        """Make the next test ``profile``'s run in environment ``env``, as `make <profile>`
        with that environment would, by ``plan`` when the start form admitted it with one
        (run/admission.py), else by the plan made from ``env``."""
        self.profile_name, self.env = profile, env
        self.profile = profiles.get(profile)
        self.plan = plan if plan is not None else self.profile.plan(env)
        self.plan_taken = False  # a test runs it (on_test_start), once
        self.rules = thresholds.parse(given("THRESHOLDS", env) or self.profile.thresholds)

    def attach_role(self) -> None:
        self.environment.events.test_start.add_listener(self.on_test_start)
        hosts = parse_hosts(get("READINGS_HOSTS", self.env))  # run/cli.py refused a bad one
        self.sampler = ServerSampler(Path(get("VAR_DIR", self.env)), audit.databases(), hosts)
        self.balancer = balancer.BalancerStats.from_env(self.env)
        if self.environment.web_ui:  # the latest report, every run, two compared; the live tabs
            runs_dir = run_folders.runs(get("VAR_DIR", self.env))
            cockpit.wire(self, self.environment.web_ui, runs_dir, self.learners)

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

    @property
    def readings(self) -> dict[int, dict]:
        """The servers' readings by step index, of the test under way or the last one."""
        return self.watch.readings if self.watch else {}

    def _write_answered(self, numbers: list[str]) -> None:
        if numbers:
            assert self.run_dir is not None, "the users answer only while a test runs, in its folder"
            with open(self.run_dir / audit.ANSWERED_FILE, "a") as handle:
                handle.write("\n".join(numbers) + "\n")
            self.answered_count += len(numbers)

    def on_test_start(self, environment, **_):
        # The machine's speed before any load (finish.py takes it again after): a second, and
        # its statements come before the counters and digests the run reads are first read.
        self.calibrated_before = calibration.attempt(self.env)
        now = time.time()
        if self.environment.shape_class is None and not self.plan.follows_users:
            # The web UI's form (or -u) sets the users, not the profile's shape: say so.
            self.take("manual", self.env)
        if self.plan_taken:  # the next test of a web UI session: a plan of its own
            self.plan = self.profile.plan(self.env)
        self.plan_taken = True
        self.t0 = self.plan.t0_for(now, self.runner.target_user_count or 0)
        self.begun = now
        runs = run_folders.runs(get("VAR_DIR", self.env))
        self.run_dir = folder.new_run_dir(self.run_dir_given, runs, self.profile.name)
        self.stopping = False
        self.recorder = Recorder(self.plan)
        self.recorder.t0 = self.t0
        self.answered_count = 0
        self.summary, self.live_rows, self.written = None, {}, None
        self.cpu = LocustCpu(self.process_name, self.host_name, now, _own_cpu_seconds())
        self.watch = StepWatch(self, self.sampler, self.balancer, self.cpu, _own_cpu_seconds)
        self.profile_state = self.profile.new_state(self)
        self.begin_side()
        try:
            self.marks = audit.watermarks()
            self.digests_before = self.sampler.digests()
        except Exception as exc:  # the audit will say it could not run
            self.log(f"could not read the database before the run: {exc}")
            self.marks = None
        self.git_at_start = provenance.git(ROOT)  # the code that runs (read again at the end)
        tasks = [self.watch.watch, self._guard_memory, *self.profile.background(self), *self.side_tasks()]
        if self.environment.web_ui:
            tasks.append(lambda: cockpit.count_written(self))  # the live tab's
        self.greenlets = [gevent.spawn(task) for task in tasks]
        self.progress(f"{self.describe()}: started, folder {self.run_dir}")

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

    def _guard_memory(self):
        """Keep Locust's own per-second bookkeeping bounded on long runs (its chart history and
        per-second request counts would otherwise grow for the whole run)."""
        while True:
            gevent.sleep(30)
            trim_locust_memory(self.runner.stats, time.time())

    # --- what profiles use (profiles/base.py RunContext) -----------------------------------

    def judgeable(self, step: Step, now: float) -> bool:
        """Whether a step ended at least the plan's grace ago (and this role's report delay):
        its slowest requests are in."""
        wait = max(self.plan.grace, self.report_delay)
        return self.t0 is not None and self.t0 + step.end + wait <= now

    def held(self, step: Step) -> bool:
        """Whether a step's requests so far held the run's thresholds."""
        return results.held(results.step_row(self.recorder.steps, step, {}), self.rules)

    def ceiling_of(self, step: Step) -> float | None:
        """The machine's ceiling at a step whose reading was taken (run/watch.py)."""
        return self.watch.ceiling_of(step) if self.watch else None

    def revise_plan(self, boundary: int, following: list[Step]) -> None:
        """From ``boundary`` seconds after t0 the plan is ``following`` (core/plan.py revise),
        here and for the users (the role sends it)."""
        self.plan.revise(boundary, following)
        self.announce_plan()

    def announce_plan(self) -> None:
        """Hand a revised plan to whoever runs the users (a role's; the local runner's users
        read this process's plan)."""

    def step_of_second(self, second: int) -> int | None:
        assert self.t0 is not None, "profiles ask only while a test runs"
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
        self.watch.close_stopped(now)  # the step under way, and the lines still to come
        summary = finish.summarise(self, now)
        if self.plan.follows_users and not self.run_dir_given:
            self.run_dir = folder.rename_for(self.run_dir, summary)
        report.write(summary, self.run_dir)
        self.summary = summary
        if not summary["verdict"]["passed"]:
            environment.process_exit_code = 1
        self.progress(f"{self.describe()}: {'PASS' if summary['verdict']['passed'] else 'FAIL'}")
        self.t0 = None
