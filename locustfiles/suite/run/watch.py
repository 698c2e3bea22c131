"""Watching a run's steps in the process that keeps the results (run/keeper.py starts one watch
per test): the servers read at every step boundary and the step's progress line printed once
its last requests are in, the users running each second noted, and each Locust process's CPU
counted by the clock of the process that reports it (LocustCpu: a master's workers report
theirs with every report, run/roles.py)."""

import os
import time
from collections.abc import Callable

import gevent
import psutil

from common.hostreadings import machine_busy_seconds
from locustfiles.suite.figures import ceiling, results
from locustfiles.suite.record import balancer
from locustfiles.suite.record.hosts import by_host
from locustfiles.suite.record.sampler import ServerSampler
from locustfiles.suite.report import terminal

PEAK_EVERY = 5.0  # seconds between two readings of the servers' peak memory


class LocustCpu:
    """Each Locust process's CPU seconds as it last reported them, by its own clock, and the
    host it runs on; read per step as % of one core since the previous reading."""

    def __init__(self, name: str, host: str, now: float, seconds: float) -> None:
        self.begun = now
        self.seconds: dict[str, tuple[float, float]] = {name: (now, seconds)}  # (its time, CPU s)
        self.before = dict(self.seconds)
        self.origin: dict[str, float] = {}  # when each process's count began, by its clock
        self.hosts: dict[str, str] = {name: host}

    def report(self, name: str, at: float, seconds: float, origin: float | None, host: str | None) -> None:
        """A process's count (a worker's: with every report to the master)."""
        self.seconds[name] = (at, seconds)
        if origin is not None:
            self.origin.setdefault(name, origin)
        if host is not None:
            self.hosts[name] = host

    def since_last(self) -> dict[str, float]:
        """CPU % of one core of each process since the last reading (or its count's start)."""
        out = {}
        for name, (at, seconds) in self.seconds.items():
            then_at, then_seconds = self.before.get(name, (self.origin.get(name, self.begun), 0.0))
            if at > then_at:
                out[name] = round(100 * max(seconds - then_seconds, 0.0) / (at - then_at), 1)
        self.before = dict(self.seconds)
        return out


class StepWatch:
    """One test's readings, by step index, and the greenlet that takes them. ``run`` is the
    keeper: its plan, t0, recorder and runner are read, its progress() prints the lines."""

    def __init__(
        self,
        run,
        sampler: ServerSampler,
        stats: balancer.BalancerStats | None,
        cpu: LocustCpu,
        own_cpu: Callable[[], float],
    ) -> None:
        self.run, self.sampler, self.balancer, self.cpu, self.own_cpu = run, sampler, stats, cpu, own_cpu
        self.readings: dict[int, dict] = {}
        self.step: int | None = None  # the step whose reading is open
        self.printed: set[int] = set()  # steps whose progress line was printed
        self.before: dict = {}
        self.balancer_before: dict = {}

    def watch(self) -> None:
        """Read the servers at each step boundary (and every few seconds for peak memory), note
        the users running each second, and follow the web UI's user count in a live plan."""
        run = self.run
        gevent.sleep(max(0.0, run.t0 - time.time()))
        self.before = self.sampler.snapshot()
        if self.balancer:
            self.balancer_before = self.balancer.snapshot()
        self.step = 0
        last_peak = time.time()
        while True:
            now = time.time()
            offset = now - run.t0
            run.recorder.timeline.users(int(offset), run.runner.user_count)
            if not self.sampler.hosts:  # this machine's busy time second by second (not the hosts')
                run.recorder.timeline.read_machine(now - int(run.t0), machine_busy_seconds())
            run.plan.follow(run.runner.target_user_count, offset)
            while self.step < len(run.plan.steps) and offset >= run.plan.step_end(self.step):
                self.close(self.step)
                self.step += 1
            if now - last_peak >= PEAK_EVERY:
                self.sampler.sample_peak()
                last_peak = now
            if self.step >= len(run.plan.steps):
                return
            wait = min(1.0, run.t0 + run.plan.step_end(self.step) - time.time())
            gevent.sleep(max(0.05, wait))

    def close(self, index: int) -> None:
        """The step's reading: the servers, this process's memory, Locust's CPU, the database's
        size and the balancer's share; its progress line once its last requests are in."""
        after = self.sampler.snapshot()
        reading = self.sampler.reading(self.before, after)
        reading["suite_rss_mb"] = round(psutil.Process().memory_info().rss / 2**20, 1)
        self.cpu.report(self.run.process_name, time.time(), self.own_cpu(), None, None)
        reading["locust_cpu"] = self.cpu.since_last()
        if self.sampler.hosts:  # each host's Locust processes, as they report themselves
            reading["locust_cpu_by_host"] = by_host(reading["locust_cpu"], self.cpu.hosts)
        try:
            reading["db_size_mb"] = self.sampler.database_size_mb()
            reading["tables"] = self.sampler.table_sizes()
        except Exception as exc:  # MariaDB restarting (chaos): the size is unknown
            self.run.log(f"could not read the database size: {exc}")
            reading["db_size_mb"] = None
        if self.balancer:  # the requests HAProxy sent to each ecommerce server during the step
            balancer_after = self.balancer.snapshot()
            reading["balancer"] = balancer.reading(self.balancer_before, balancer_after)
            self.balancer_before = balancer_after
        self.readings[index] = reading
        self.before = after
        # The step's last requests are reported a moment later (workers every 3 s).
        gevent.spawn_later(self.run.report_delay, self.print_step, index)

    def close_stopped(self, now: float) -> None:
        """Once the test stopped: the step under way gets its reading, and every step begun
        its progress line."""
        run = self.run
        step = self.step
        if step is not None and step < len(run.plan.steps) and now >= run.t0 + run.plan.steps[step].start:
            self.close(step)
        for index in range(len(run.plan.steps)):
            if now > run.t0 + run.plan.steps[index].start:
                self.print_step(index)

    def print_step(self, index: int) -> None:
        run = self.run
        if index >= len(run.plan.steps) or run.t0 is None or index in self.printed:
            return
        self.printed.add(index)
        step = run.plan.steps[index]
        row = results.step_row(run.recorder.steps, step, {})
        run.progress(terminal.step_progress(run.plan, step, run.profile.label(step), row))

    def ceiling_of(self, step) -> float | None:
        """The machine's ceiling at a step whose reading was taken (figures/ceiling.py): out of
        every kernel's cores the hosts' agents read, else this host's, as the summary's."""
        row = results.step_row(self.run.recorder.steps, step, self.readings)
        return ceiling.step_ceiling(row, row.get("machine_cores") or os.cpu_count())
