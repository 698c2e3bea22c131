"""make profile: py-spy records the services beside the load; the run fails when no profile
was taken."""

from typing import Any

from common.environment import get as setting
from locustfiles.suite.core import catalogue
from locustfiles.suite.core import summary as summary_types
from locustfiles.suite.core.summary import PROFILING, Failure, Summary
from locustfiles.suite.profiles.base import Behaviour, Figures, RunContext
from locustfiles.suite.profiling.pyspy import Profiler


class Profiling(Behaviour, catalogue.Profiling):
    def new_state(self, run: RunContext) -> Profiler:
        """The test's py-spy recordings (profiling/pyspy.py), into its run folder."""
        return Profiler(run.run_dir, setting("VAR_DIR", run.env), self.rate(run.env), run.distributed)

    def background(self, run: RunContext) -> list:
        measured = run.plan.measured
        start, end = run.t0 + measured[0].start, run.t0 + measured[-1].end
        return [lambda: run.profile_state.record(start, end)]

    def read(self, run: RunContext) -> dict:
        return {"profiling": run.profile_state.results()}

    def figures(self, summary: Summary, rules: list, read: dict | None = None) -> Figures:
        return {"profiling": read["profiling"]} if read else {}

    def judge(self, summary: Summary, rules: list) -> tuple[list[dict], list[Failure]]:
        checks, failures = super().judge(summary, rules)
        profiling: summary_types.Profiling | dict[str, Any] = summary.get("profiling") or {}
        if not profiling.get("taken"):
            text = f"no profile was taken: {profiling.get('reason') or 'unknown'}"
            failures.append(Failure(kind=PROFILING, about=None, text=text))
        return checks, failures
