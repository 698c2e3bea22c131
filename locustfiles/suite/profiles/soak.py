"""make soak: the trend of latency and memory over the buckets."""

from locustfiles.suite.core import catalogue
from locustfiles.suite.core.summary import Summary
from locustfiles.suite.figures import results
from locustfiles.suite.profiles.base import Behaviour, Figures


class Soak(Behaviour, catalogue.Soak):
    def figures(self, summary: Summary, rules: list, read: dict | None = None) -> Figures:
        # Memory is read from the first bucket on when a warm-up ran before it; otherwise the
        # first bucket is the warm-up.
        return {"trend": results.soak_trend(summary["steps"], 0 if summary.get("warm_up") else 1)}
