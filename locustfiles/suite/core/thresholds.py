"""Pass/fail thresholds in the style of k6: ``THRESHOLDS="p95<460 errors<0.01 missed<0.01"``.

Metrics: p50 ... p100 (ms), mean (ms), errors and missed (fractions of requests and of
arrivals), rpm and rps (achieved), unshed (failures of any endpoint that were not a JSON 503 or
429, the services' refusals, as a fraction of all requests: locustfiles/suite/core/refusals.py).
Operators: < <= > >=. A threshold is judged on a step (or on the whole run); one that cannot be
judged (no data) fails.
"""

import operator
import re
from collections.abc import Mapping
from dataclasses import dataclass

OPERATORS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
METRICS = (
    "p50",
    "p66",
    "p75",
    "p80",
    "p90",
    "p95",
    "p98",
    "p99",
    "p100",
    "mean",
    "errors",
    "missed",
    "rpm",
    "rps",
    "unshed",
)
FIELDS = {"missed": "missed_rate"}  # a threshold on missed arrivals reads their fraction
PATTERN = re.compile(r"^(?P<metric>[a-z0-9]+)(?P<op><=|>=|<|>)(?P<limit>-?\d+(\.\d+)?)$")


@dataclass(frozen=True)
class Threshold:
    metric: str
    op: str
    limit: float

    def __str__(self) -> str:
        return f"{self.metric}{self.op}{self.limit:g}"

    def check(self, row: Mapping[str, object]) -> tuple[bool, float | None]:
        """On a results row (core/summary.py's Row) or a part of one (its accepted percentiles)."""
        value = row.get(FIELDS.get(self.metric, self.metric))
        if not isinstance(value, int | float):  # None: not measured
            return False, None
        return OPERATORS[self.op](value, self.limit), value


def parse(text: str) -> list[Threshold]:
    thresholds = []
    for part in (text or "").replace(",", " ").split():
        match = PATTERN.match(part.strip())
        if not match or match["metric"] not in METRICS:
            raise ValueError(
                f"cannot read threshold {part!r}: write metric, operator and number, e.g. p95<460; "
                f"metrics: {', '.join(METRICS)}"
            )
        thresholds.append(Threshold(match["metric"], match["op"], float(match["limit"])))
    return thresholds


def judge(thresholds: list[Threshold], row: Mapping[str, object]) -> dict:
    """{"passed": bool, "checks": [{"threshold", "value", "ok"}]} for one row of results."""
    checks = []
    for threshold in thresholds:
        ok, value = threshold.check(row)
        checks.append({"threshold": str(threshold), "value": value, "ok": ok})
    return {"passed": all(c["ok"] for c in checks), "checks": checks}
