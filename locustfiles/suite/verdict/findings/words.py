"""The findings' shared words: a finding, milliseconds, a threshold metric's value with its unit;
and what the findings a running run supports read of it (SoFar)."""

from collections.abc import Sequence
from typing import Any, NotRequired, TypedDict

from locustfiles.suite.core.summary import Finding, OverallRow


class SoFar(TypedDict):
    """A running run's rows (report/live.py): its measured steps that ended and the run so far.
    The findings of findings.so_far read no more of a summary than these."""

    steps: Sequence[OverallRow]
    overall: OverallRow
    trend: NotRequired[dict[str, Any]]  # a soak's, once it is summarised: never while it runs


def finding(level: str, text: str) -> Finding:
    return {"level": level, "text": text}


def ms(value) -> str:
    return f"{value:g} ms"


def metric_value(metric: str, value) -> str:
    """A threshold metric's value with its unit: percentiles and the mean are milliseconds."""
    if value is None:
        return "not measured"
    return ms(value) if metric == "mean" or metric.startswith("p") else f"{value:g}"
