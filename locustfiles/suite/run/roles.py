"""The two roles of the process that keeps the results, as Locust's LocalRunner and
MasterRunner are two classes: where the users' records come from, how the run's start reaches
the users, and what a role's facts are (its name among the Locust processes, how long its
users' last requests take to arrive). A Locust worker's role is session.WorkerRun."""

import gevent

from locustfiles.suite.core.plan import ArrivalClock
from locustfiles.suite.run.keeper import KeptRun


class LocalRun(KeptRun):
    """The local runner's: it runs the users itself and folds their records every second."""

    distributed = False
    process_name = "local"
    report_delay = 1.5
    last_reports = 0.2

    def attach_role(self) -> None:
        super().attach_role()
        self.record_requests()

    def begin_side(self) -> None:
        self.workers, self.expected_workers = 1, None
        assert self.t0 is not None, "on_test_start sets the run's start before its side begins"
        self.clock = ArrivalClock(self.plan, self.t0, 0, 1)

    def side_tasks(self) -> list:
        return [self._fold_forever]

    def _fold_forever(self):
        while True:
            self._write_answered(self.recorder.fold_local())
            gevent.sleep(1)

    def collect_last(self) -> None:
        self._write_answered(self.recorder.fold_local())


class MasterRun(KeptRun):
    """The master's: its workers run the users and send their records and CPU time with every
    report (every 3 s); the run's start and plan reach them in a ``suite_start`` message, a
    capacity search's revisions of the plan in ``suite_plan`` messages."""

    distributed = True
    process_name = "master"
    report_delay = 4.0
    last_reports = 1.0

    def attach_role(self) -> None:
        super().attach_role()
        self.environment.events.worker_report.add_listener(self.on_worker_report)

    @property
    def locust_workers(self) -> int:
        return self.workers

    def begin_side(self) -> None:
        self.workers = max(1, len(self.runner.clients))
        self.expected_workers = getattr(self.options, "expect_workers", None)
        if self.expected_workers and self.workers < self.expected_workers:
            self.progress(
                f"warning: {self.workers} Locust workers connected, {self.expected_workers} expected: "
                "the arrivals are split among those connected now"
            )
        message = {"t0": self.t0, "workers": self.workers, "plan": self.plan.as_dict()}
        self.runner.send_message("suite_start", message)

    def announce_plan(self) -> None:
        self.runner.send_message("suite_plan", {"plan": self.plan.as_dict()})

    def on_worker_report(self, client_id, data):
        if "suite" in data:
            self._write_answered(self.recorder.absorb(data["suite"]))
        if "suite_cpu" in data:
            name, at, seconds, *origin = data["suite_cpu"]
            # With its count's start by its clock, and its host (an older worker sends neither).
            self.cpu.report(name, at, seconds, *(origin or (None, None)))
