"""What every profile does in the process that keeps the results, and the profiles that do
nothing more: work beside the load (background), the stop rule, what runs after the load and
before the audit (settle), what it reads after the audit (read), the figures it adds from the
summary (read, then figures, computed by figures/) and its judging, which only reads. What a profile is
(name, defaults, plan, labels) is the catalogue's (core/catalogue.py): each class is its
catalogue entry with the ``Behaviour`` of its kind of run.
"""

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol, TypedDict, cast

from locustfiles.suite.core import catalogue, thresholds
from locustfiles.suite.core.plan import Plan, Step
from locustfiles.suite.core.summary import (
    THRESHOLDS,
    THRESHOLDS_AT_RUN,
    CapacitySearch,
    Ceiling,
    Failure,
    Profiling,
    RetryFulfillment,
    StepRow,
    Summary,
    ThresholdsAt,
)
from locustfiles.suite.figures import cpu, results
from locustfiles.suite.record.recorder import Recorder, StepStats

# A threshold's scope (its check's "scope"): judged on the purchases answered 2xx alone.
ACCEPTED = "accepted purchases"


class Figures(TypedDict, total=False):
    """The keys of a summary (core/summary.py's Summary, as typed there) that profiles write:
    what settle() did and what figures() computed. run/summary.py adds them to the summary."""

    retry_fulfillment: RetryFulfillment
    reliability: list[dict[str, Any]]
    profiling: Profiling
    overload: dict[str, Any]
    capacity_rpm: float | None
    capacity_steps_held: int
    capacity_search: CapacitySearch
    ceiling: Ceiling | None
    scalability: dict[str, Any]
    trend: dict[str, Any]
    client: dict[str, Any]


class RunContext(Protocol):
    """What a profile may use of the run that keeps the results (run/keeper.py's KeptRun),
    while it runs: the test's plan and start, its environment and folder, the watermarks the
    audit counts from, and ``profile_state``, the profile's own for this test (new_state)."""

    plan: Plan
    t0: float
    env: Mapping[str, str]
    run_dir: Path
    marks: dict | None
    distributed: bool
    profile_state: Any
    recorder: Recorder  # the users' requests, by step
    environment: Any  # Locust's: its own totals and exceptions (edX's client reads them)

    def progress(self, line: str) -> None: ...
    def log(self, message: str) -> None: ...
    def judgeable(self, step: Step, now: float) -> bool: ...
    def held(self, step: Step) -> bool: ...
    def ceiling_of(self, step: Step) -> float | None: ...
    def revise_plan(self, boundary: int, following: list[Step]) -> None: ...
    def step_of_second(self, second: int) -> int | None: ...


class Behaviour(catalogue.Profile):
    """A catalogue entry as the keeping process runs it. By default a profile does nothing
    beside the load and is judged on the whole run."""

    thresholds_at: ThresholdsAt = THRESHOLDS_AT_RUN  # where judge()'s threshold checks were judged

    def new_state(self, run: RunContext) -> Any:
        """What this profile keeps of one test (chaos: its faults' events; profile: py-spy's
        recordings), made as the test starts, its folder known; the run holds it as
        ``profile_state``."""
        return None

    def step_row(self, steps: dict[int, StepStats], step: Step, readings: dict[int, dict]) -> StepRow:
        """A step's row as the summary has it (and the live tab shows it): results.step_row,
        labelled as this profile labels it, its CPU accounted per purchase."""
        row = results.step_row(steps, step, readings)
        row["label"] = self.label(step)
        cpu.account(row, self.purchase_endpoints)
        # Whole here, with its last keys: results.step_row writes its keys one by one (the
        # percentiles by name, the readings as read), which no TypedDict literal takes; the tests
        # check every summary against the schema.
        return cast(StepRow, row)

    def should_stop(self, run: RunContext, now: float) -> bool:
        """Whether the run should end before its plan does (capacity: a step broke)."""
        return False

    def background(self, run: RunContext) -> list:
        """Functions to run as greenlets beside the load in the process that keeps results."""
        return []

    def figures(self, summary: Summary, rules: list, read: dict | None = None) -> Figures:
        """What this profile adds to the summary before it is judged, from the summary and what
        it read (figures/ computes it): capacity, the overload's or the soak's figures, chaos's
        reliability, the profile's recordings, edX's client's run."""
        return {}

    def judge(self, summary: Summary, rules: list) -> tuple[list[dict], list[Failure]]:
        """(threshold checks, the failures of the run) beyond the audit, read from the summary
        (its figures included); it writes nothing. By default the whole run is judged against
        the thresholds."""
        judged = thresholds.judge(rules, summary["overall"])
        return judged["checks"], broken_thresholds([c["threshold"] for c in judged["checks"] if not c["ok"]])

    def settle(self, run: RunContext) -> Figures:
        """Work done after the load stops and before the audit (its result joins the summary)."""
        return {}

    def read(self, run: RunContext) -> dict:
        """What this profile reads after the audit (its own files, Locust's totals, the
        databases), for its figures; nothing is computed here."""
        return {}


def broken_thresholds(broken: list[str], scope: str | None = None) -> list[Failure]:
    """The thresholds broken on ``scope`` (None: where the profile judges them) as one failure,
    or none."""
    text = "thresholds failed: " + ", ".join(broken)
    return [Failure(kind=THRESHOLDS, about=scope, text=text)] if broken else []


class Ramp(Behaviour, catalogue.Ramp):
    pass


class Smoke(Behaviour, catalogue.Smoke):
    pass


class Rpm(Behaviour, catalogue.Rpm):
    pass


class Manual(Behaviour, catalogue.Manual):
    pass
