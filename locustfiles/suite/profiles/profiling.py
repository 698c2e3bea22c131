"""make profile: py-spy records the services beside the load; the run fails when no profile
was taken."""

from typing import Any

from common.environment import get as setting
from locustfiles.suite.core import catalogue
from locustfiles.suite.core import summary as summary_types
from locustfiles.suite.core.summary import Summary
from locustfiles.suite.profiles.base import Behaviour
from locustfiles.suite.profiling.pyspy import Profiler


class Profiling(Behaviour, catalogue.Profiling):
    def background(self, run) -> list:
        run.profiler = Profiler(run.run_dir, setting("VAR_DIR", run.env), self.rate(run.env), run.distributed)
        measured = run.plan.measured
        start, end = run.t0 + measured[0].start, run.t0 + measured[-1].end
        return [lambda: run.profiler.record(start, end)]

    def read(self, run) -> dict:
        if run.profiler is None:
            return {"profiling": {"taken": False, "reason": "the profiler did not start", "groups": {}}}
        return {"profiling": run.profiler.results()}

    def figures(self, summary: Summary, rules: list, read: dict | None = None) -> dict:
        return {"profiling": read["profiling"]} if read else {}

    def judge(self, summary: Summary, rules: list) -> tuple[list[dict], list[str]]:
        checks, reasons = super().judge(summary, rules)
        profiling: summary_types.Profiling | dict[str, Any] = summary.get("profiling") or {}
        if not profiling.get("taken"):
            reasons.append(f"no profile was taken: {profiling.get('reason') or 'unknown'}")
        return checks, reasons
