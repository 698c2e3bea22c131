"""make capacity: the steps climb until one breaks a threshold; capacity is the highest step
that held, beside the machine's ceiling at that step, with the scalability model fitted to the
steps."""

import functools
import math
import time

import gevent

from locustfiles.suite.core import catalogue, knee, thresholds
from locustfiles.suite.figures import ceiling, cpu, results, scalability
from locustfiles.suite.profiles.base import Behaviour


class Capacity(Behaviour, catalogue.Capacity):
    def background(self, run) -> list:
        return [functools.partial(search, run, self.knee(run.env))]

    def figures(self, summary: dict, rules: list, read: dict | None = None) -> dict:
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

    def judge(self, summary: dict, rules: list) -> tuple[list[dict], list[str]]:
        """Passed when a step held; the thresholds shown are those of the step that broke at the
        top of the search's interval (what capacity measures), else the last judged step's."""
        judged = results.broke_row(summary) or {}
        reasons = [] if summary["capacity_rpm"] is not None else ["no step held the thresholds"]
        return thresholds.judge(rules, judged)["checks"], reasons


def search(run, resolution: float) -> None:
    """Judge each step once its grace has passed; once one broke, probe between the highest
    rate that held and it (core/knee.py) until the interval is narrow, then end the plan. The
    plan is revised a margin ahead, so the users' side has it before it applies."""
    climb = [s for s in run.plan.steps if s.judged and not s.warm_up]
    found = knee.KneeSearch(climb[0].seconds if climb else 1, run.plan.grace, resolution)
    judged_up_to, probe = 0, None  # the next step to judge; the probe awaiting its judgement
    while True:
        now = time.time()
        for step in run.plan.steps[judged_up_to:]:
            if not run.judgeable(step, now):
                break
            judged_up_to = step.index + 1
            if step.judged and not step.warm_up:
                found.judged(step.target_rpm, run.held(step))
                probe = None if step.index == probe else probe
        boundary = math.ceil(now - run.t0) + knee.MARGIN
        if found.done or (found.upper is None and judged_up_to >= len(run.plan.steps) - 1):
            run.revise_plan(boundary, [])  # the knee is found, or every step held: the run ends
            run.progress(_searched(found))
            return
        if found.upper is not None and probe is None:
            run.revise_plan(boundary, found.next_steps())
            probe = next(s.index for s in run.plan.steps if s.start >= boundary)
            rate = run.plan.steps[probe].target_rpm
            run.progress(f"capacity: between {found.lower:g} and {found.upper:g} RPM, probing {rate:g}")
        gevent.sleep(0.5)


def _searched(found: knee.KneeSearch) -> str:
    if found.upper is None:
        return "capacity: every step held"
    if found.lower is None:
        return f"capacity: the first step, {found.upper:g} RPM, broke"
    return f"capacity: {found.lower:g} RPM held, {found.upper:g} RPM broke"
