"""make capacity: the steps climb until one breaks a threshold; capacity is the highest step
that held, beside the machine's ceiling at that step, with the scalability model fitted to the
steps."""

import math
import time

import gevent

from locustfiles.suite.core import catalogue, knee, thresholds
from locustfiles.suite.core.plan import Step
from locustfiles.suite.core.summary import CAPACITY, THRESHOLDS_AT_BROKE_STEP, Failure, Summary
from locustfiles.suite.figures import ceiling, cpu, results, scalability
from locustfiles.suite.profiles.base import Behaviour, Figures, RunContext


class Capacity(Behaviour, catalogue.Capacity):
    thresholds_at = THRESHOLDS_AT_BROKE_STEP  # what capacity measures: where the climb broke

    def background(self, run: RunContext) -> list:
        return [Search(run, self.knee(run.env), self.increment(run.env))]

    def figures(self, summary: Summary, rules: list, read: dict | None = None) -> Figures:
        """Capacity, each step marked held or not with its ceiling, capacity's share of the
        ceiling at its step, and the knee: the Universal Scalability Law fitted to the steps,
        its peak beside capacity."""
        search = results.capacity_search(summary["steps"], rules)  # the measured steps, no warm-up
        cores = cpu.machine_cores(summary)
        for row, held in zip(summary["steps"], search["held"], strict=True):
            row["held"] = held
            row["ceiling_rpm"] = ceiling.step_ceiling(row, cores)
        return {
            "capacity_rpm": search["capacity_rpm"],
            "capacity_steps_held": sum(1 for held in search["held"] if held),
            "capacity_search": search["search"],
            "ceiling": ceiling.capacity_ceiling(
                summary["steps"], search["capacity_rpm"], cores, search["search"]["broke_step"]
            ),
            "scalability": scalability.analyse(
                [row for row in summary["steps"] if row.get("judged", True)], search["capacity_rpm"]
            ),
        }

    def judge(self, summary: Summary, rules: list) -> tuple[list[dict], list[Failure]]:
        """Passed when a step held; the thresholds shown are those of the step that broke at the
        top of the search's interval (what capacity measures), else the last judged step's."""
        judged = results.broke_row(summary)
        failures = []
        if summary["capacity_rpm"] is None:
            failures.append(Failure(kind=CAPACITY, about=None, text="no step held the thresholds"))
        return thresholds.judge(rules, judged or {})["checks"], failures


class Search:
    """Judge each step once its grace has passed. Once one broke, probe between the highest
    rate that held and it (core/knee.py) until the interval is narrow, then end the plan; if
    every step held, climb on past RPM_MAX towards the machine's ceiling at the last step, to
    the ceiling itself where a whole step would pass it (core/knee.py). The plan is revised a
    margin ahead, so the users' side has it first."""

    def __init__(self, run, resolution: float, increment: float | None):
        self.run, self.increment = run, increment
        climb = [s for s in run.plan.steps if s.judged and not s.warm_up]
        self.found = knee.KneeSearch(climb[0].seconds if climb else 1, run.plan.grace, resolution)
        self.judged_up_to = 0  # the next step to judge
        self.pending: int | None = None  # a probe or a climbing step added, awaiting its judgement
        self.last: Step | None = None  # the last step judged

    def __call__(self) -> None:
        while not self.decide(time.time()):
            gevent.sleep(0.5)

    def judge(self, now: float) -> None:
        for step in self.run.plan.steps[self.judged_up_to :]:
            if not self.run.judgeable(step, now):
                return
            self.judged_up_to = step.index + 1
            if step.judged and not step.warm_up:
                self.found.judged(step.target_rpm, self.run.held(step))
                self.pending = None if step.index == self.pending else self.pending
                self.last = step

    def decide(self, now: float) -> bool:
        """Judge what can be, revise the plan if that is due; True once the search is over."""
        self.judge(now)
        if self.pending is not None:
            return False
        found, run = self.found, self.run
        boundary = math.ceil(now - run.t0) + knee.MARGIN
        if found.upper is not None and not found.done:
            return self._revise(
                boundary, found.next_steps(), f"between {found.lower:g} and {found.upper:g} RPM"
            )
        if found.upper is None and self.judged_up_to < len(run.plan.steps) - 1:
            return False  # still climbing
        if found.upper is None and self.last is not None:
            top = run.ceiling_of(self.last)
            assert self.last.target_rpm is not None, "capacity's steps are the open model's"
            following = found.climb_on(self.last.target_rpm, self.increment, top)
            if following:
                return self._revise(boundary, following, f"every step held, the ceiling is {top:g} RPM")
        run.revise_plan(boundary, [])  # the knee is found, or the climb ended: so does the run
        run.progress(_searched(found))
        return True

    def _revise(self, boundary: int, following: list[Step], why: str) -> bool:
        self.run.revise_plan(boundary, following)
        self.pending = next(s.index for s in self.run.plan.steps if s.start >= boundary)
        self.run.progress(f"capacity: {why}; next {self.run.plan.steps[self.pending].target_rpm:g} RPM")
        return False


def _searched(found: knee.KneeSearch) -> str:
    if found.upper is None:
        return "capacity: every step held"
    if found.lower is None:
        return f"capacity: the first step, {found.upper:g} RPM, broke"
    return f"capacity: {found.lower:g} RPM held, {found.upper:g} RPM broke"
