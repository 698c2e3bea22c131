"""One load run, as Locust's environment holds it (``environment.suite``): one class per role,
as Locust's runners are (LocalRunner, MasterRunner, WorkerRunner), sharing ``LoadRun``.

``WorkerRun`` (here) is a Locust worker's: it records requests, skipped arrivals and answered
order numbers (record/recorder.py), sends them and its own CPU time with every report to the
master, and takes the run's start time and plan from the master's ``suite_start`` message. It
imports no profile behaviour and nothing that reports.

Where results are kept the run object is a run/roles.py ``LocalRun`` (it runs the users too)
or ``MasterRun``: keeper.KeptRun's steps, readings, audit and report with that role's side
(run/hooks.py picks the class).
"""

import functools
import json
import logging
import os
import socket
import time
from pathlib import Path
from typing import TextIO

import gevent
import psutil

from common.contract.server_timing import parse as parse_server_timing
from common.environment import get, given
from locustfiles.suite.core import refusals
from locustfiles.suite.core.plan import ArrivalClock, Plan
from locustfiles.suite.record.recorder import Recorder
from locustfiles.suite.users.arrivals import SCHEDULE

logger = logging.getLogger("suite")


class LoadRun:
    """What every role's run object has: the plan and its clock, the recorder, the users' API
    (wait_for_clock, answered, stopping) and the listeners of every process."""

    def __init__(self, environment, profile: str, env):
        self.environment = environment
        self.env = env
        self.profile_name = profile
        self.plan: Plan | None = None  # a worker's: from the master's suite_start message
        self.recorder = Recorder(self.plan)
        self.options = environment.parsed_options
        # Read once, at the start: the web UI's /swarm writes into the parsed options.
        self.run_dir_given: str = self.options.suite_run_dir
        self.clock: ArrivalClock | None = None
        self.t0: float | None = None
        self.workers = 1
        self.stopping = False
        self.request_log: TextIO | None = None  # REQUEST_LOG's requests-<pid>.csv

    # --- wiring -----------------------------------------------------------------------------

    @property
    def runner(self):
        return self.environment.runner

    def attach(self) -> None:
        events = self.environment.events
        events.test_stopping.add_listener(self.on_stopping)
        events.test_stop.add_listener(self.on_test_stop)
        self.attach_role()

    def attach_role(self) -> None:
        """The listeners of this role's process."""
        raise NotImplementedError

    def record_requests(self) -> None:
        """In a process that runs users: every request into the recorder (and, with
        REQUEST_LOG, one line each into requests-<pid>.csv)."""
        self.environment.events.request.add_listener(self.on_request)
        if given("REQUEST_LOG", self.env):
            folder = Path(self.run_dir_given or ".")
            folder.mkdir(parents=True, exist_ok=True)
            self.request_log = open(folder / f"requests-{os.getpid()}.csv", "a")  # noqa: SIM115

    @functools.cached_property
    def host_name(self) -> str:
        """The host this process runs on, as READINGS_HOSTS names it (read once: every report
        to the master carries it)."""
        return get("READINGS_HOST_NAME", self.env) or socket.gethostname()

    def log(self, message: str) -> None:
        logger.error(message)

    # --- recording (processes that run users) ----------------------------------------------

    def on_request(
        self, request_type, name, response_time, response_length, response=None, exception=None, **kw
    ):
        start_time = kw.get("start_time")
        start = start_time if start_time is not None else time.time() - response_time / 1000
        status = getattr(response, "status_code", 0) or 0
        ok = exception is None
        header = response.headers.get("Server-Timing") if status else None
        text = getattr(response, "text", None) if status and not ok else None
        context = kw.get("context")  # an open-model journey's: its arrival (users/arrivals.py)
        self.recorder.request(
            name,
            start,
            response_time,
            ok,
            status,
            parse_server_timing(header) if header else None,
            refusals.code(status, text) if not ok else None,
            context.get(SCHEDULE) if context else None,
        )
        if not ok:
            self.recorder.example(name, status, text or repr(exception))
        if self.request_log:
            as_json = int(_is_json(getattr(response, "text", None) if status else None))
            self.request_log.write(f"{start:.6f},{response_time:.3f},{name},{int(ok)},{status},{as_json}\n")

    def answered(self, order_number: str, started: float) -> None:
        self.recorder.answered(order_number, started)

    def on_stopping(self, environment, **_):
        """No new journey starts once the test is stopping (open-model users may be asleep
        until an arrival that is now not to happen)."""
        self.stopping = True

    def wait_for_clock(self) -> ArrivalClock:
        """Open-model users wait here until the run's start time has reached this process."""
        while self.clock is None:
            gevent.sleep(0.05)
        return self.clock

    # --- the end ---------------------------------------------------------------------------

    def on_test_stop(self, environment, **_):
        if self.request_log:
            self.request_log.flush()


class WorkerRun(LoadRun):
    """A Locust worker's run: records and reports; the run's start comes from the master."""

    def __init__(self, environment, profile: str, env):
        super().__init__(environment, profile, env)
        self.cpu_at_start = _own_cpu_seconds()  # reset when the run's start reaches this worker
        self.cpu_started_at = time.time()

    def attach_role(self) -> None:
        self.record_requests()
        self.environment.events.report_to_master.add_listener(self.on_report_to_master)
        self.runner.register_message("suite_start", self.on_start_message)
        self.runner.register_message("suite_plan", self.on_plan_message)

    def on_report_to_master(self, client_id, data):
        data["suite"] = self.recorder.drain()
        # CPU since the run began here: the master counts a worker from 0 at the run's start,
        # and the worker's start-up (importing Locust, gevent, the suite) is not the run's.
        # The times are the worker's own clock at both ends: the master never mixes in its own.
        used = _own_cpu_seconds() - self.cpu_at_start
        name = f"worker-{self.runner.worker_index}"
        data["suite_cpu"] = [name, time.time(), used, self.cpu_started_at, self.host_name]

    def on_start_message(self, environment, msg, **_):
        self.cpu_at_start = _own_cpu_seconds()
        self.cpu_started_at = time.time()
        self.stopping = False
        self.t0, self.workers = msg.data["t0"], msg.data["workers"]
        self.plan = Plan.from_dict(msg.data["plan"])
        self.recorder.t0 = self.t0
        self.clock = ArrivalClock(self.plan, self.t0, self.runner.worker_index, self.workers)

    def on_plan_message(self, environment, msg, **_):
        """A capacity search revised the plan: the clock and the recorder read the same one."""
        if self.plan is not None:
            self.plan.adopt(msg.data["plan"])


def _is_json(text: str | None) -> bool:
    """Whether an answer's body is JSON (the request log's last column: every failure a
    service or the load balancer answers must be)."""
    if not text:
        return False
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _own_cpu_seconds() -> float:
    times = _process(os.getpid()).cpu_times()
    return times.user + times.system


@functools.cache
def _process(pid: int) -> psutil.Process:
    """This process, made once per pid (a forked process gets its own): a worker reads its CPU
    with every report to the master."""
    return psutil.Process(pid)


def trim_locust_memory(stats, now: float, keep_seconds: int = 120, keep_history: int = 720) -> None:
    horizon = int(now) - keep_seconds
    for entry in [stats.total, *stats.entries.values()]:
        for per_second in (entry.num_reqs_per_sec, entry.num_fail_per_sec):
            for second in [s for s in per_second if s < horizon]:
                del per_second[second]
    if len(stats.history) > keep_history:
        del stats.history[: len(stats.history) - keep_history]
