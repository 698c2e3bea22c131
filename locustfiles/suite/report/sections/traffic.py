"""The requests: the order endpoint per step, the timeline, every endpoint, errors by status,
and where the order request's time went.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from locustfiles.suite.core import refusals
from locustfiles.suite.core.blocks import cell, figure_cell, fmt, image, section, table, text
from locustfiles.suite.core.histogram import PERCENTILE_KEYS
from locustfiles.suite.core.summary import OverallRow, Row, Summary
from locustfiles.suite.core.text import label, plural
from locustfiles.suite.figures.results import thin
from locustfiles.suite.figures.time_split import TIME_SPLIT, time_split

THIN_NOTE = (
    "† the percentile rests on fewer than 5 samples above it (requests × (1 − N/100) < 5): "
    "read it as indicative only."
)
FROM_SCHEDULE = "p95 from schedule"
FROM_SCHEDULE_NOTE = (
    "p95 from schedule: the purchases' p95 measured from their arrivals' due times (less the "
    "learner's login before each), by the step each was due in; above p95, purchases waited for "
    "a free user or a busy Locust process before they were sent (coordinated omission)."
)


def percentile_cells(row: Mapping[str, Any], keys=PERCENTILE_KEYS) -> list[dict]:
    return [figure_cell(row, k) for k in keys]


def from_schedule_cell(row: Mapping[str, Any], key: str = "p95") -> dict:
    """An open-model row's percentile from the schedule, marked thin as its samples say."""
    found = row.get("from_schedule") or {}
    value = found.get(key)
    return cell(value, "num", "thin" if value is not None and key in thin(found["samples"]) else None)


def has_thin(rows: Sequence[Mapping[str, Any]]) -> bool:
    """Whether a percentile of the rows, their p95 from the schedule too, is marked thin (†)."""
    return any(row.get("thin") or from_schedule_cell(row)["mark"] for row in rows)


def with_whole_run(summary: Summary) -> Sequence[OverallRow]:
    """The steps' rows and the whole run's ("all"); a run of one step has no other row: its
    step is the whole run (a warm-up is in neither)."""
    rows = summary["steps"]
    return rows if len(rows) == 1 else [*rows, {**summary["overall"], "label": "all"}]


STEP_HEADERS = ["step", "users", "target RPM", "RPS", "RPM", "requests", "failures", "missed"]


def step_table(rows: Sequence[Mapping[str, Any]], scheduled: bool) -> dict:
    """The order endpoint's rows; in an open-model run (``scheduled``) with the p95 from the
    schedule beside p95."""
    at = len(STEP_HEADERS) + PERCENTILE_KEYS.index("p95") + 1
    headers = [*STEP_HEADERS, *PERCENTILE_KEYS]
    keys = ("users", "target_rpm", "rps", "rpm", "requests", "failures", "missed")
    lines = [[label(row), *(row.get(key) for key in keys), *percentile_cells(row)] for row in rows]
    notes = [THIN_NOTE] if has_thin(rows) else []
    if scheduled:
        headers.insert(at, FROM_SCHEDULE)
        for line, row in zip(lines, rows, strict=True):
            line.insert(at, from_schedule_cell(row))
        notes.append(FROM_SCHEDULE_NOTE)
    return table(headers, lines, notes)


def steps(summary: Summary) -> dict:
    """The order endpoint, one row per step and one for the whole run, and its plot."""
    rows = with_whole_run(summary)
    scheduled = "from_schedule" in summary["overall"]  # an open-model run
    warm = summary.get("warm_up")
    warm_up_blocks = []
    if warm:
        warm_up_blocks = [
            text(
                f"Warm-up, before the steps: {fmt(warm['seconds'])} s at {fmt(warm.get('target_rpm'))} RPM. "
                "The first minute after a start measures a cold stack (new workers, empty connection "
                "pools, a buffer pool still reading its hot pages), so it is reported here and is in "
                'no step, not in "all", the thresholds or the verdict. Its orders are audited with '
                "the rest."
            ),
            step_table([warm], scheduled),
        ]
    return section(
        "steps",
        "Order endpoint per step (ms)",
        text(
            "Percentiles are exact (millisecond histograms of every request, by start time, merged "
            "across Locust workers) for POST /api/commerce/v0/baskets/."
        ),
        *warm_up_blocks,
        step_table(rows, scheduled),
        image("percentiles.png", "Order endpoint percentiles per step"),
    )


def timeline(summary: Summary) -> dict:
    found = summary.get("timeline")
    if not found or not found.get("points"):
        return section("timeline", "Over time", text("No timeline was recorded for this run."))
    return section(
        "timeline",
        "Over time",
        text(
            f"Every {plural(found['bucket_seconds'], 'second')}: requests per second and failures of "
            "every endpoint, p50/p95/p99 of the order endpoint (by start time), and the users running; "
            "dotted lines mark where each step began."
        ),
        image("timeline.png", "Timeline of the run"),
    )


def endpoints(summary: Summary) -> dict:
    """Every endpoint, per step and for the whole run, with its sample counts."""
    keys = ["p50", "p75", "p95", "p99", "p100"]
    rows, thin = [], False
    names = sorted(summary["overall"].get("endpoints") or {})
    for name in names:
        for row in with_whole_run(summary):
            found = (row.get("endpoints") or {}).get(name)
            if not found:
                continue
            thin = thin or bool(found.get("thin"))
            rows.append(
                [
                    cell(name, "code"),
                    label(row),
                    found["requests"],
                    found["failures"],
                    found.get("mean"),
                    *percentile_cells(found, keys),
                ]
            )
    if not rows:
        return section("endpoints", "Every endpoint", text("No request was recorded."))
    return section(
        "endpoints",
        "Every endpoint per step (ms)",
        table(
            ["endpoint", "step", "requests", "failures", "mean", *keys[:-1], "max"],
            rows,
            [THIN_NOTE] if thin else [],
        ),
    )


def _error_rows(name: str, row: Row) -> list[list]:
    """An endpoint's failures by status; a status's JSON refusals (503 or 429) on rows of their
    own, named by their error code: "503 shed (overloaded)", "503 refused (pool_exhausted)"."""
    rows = []
    found = row.get("refusals") or {}
    for status, count in row["statuses"].items():
        if status.startswith("2"):
            continue
        mine = {refusal: n for refusal, n in found.items() if refusal.split(" ", 1)[0] == status}
        rows += [[cell(name, "code"), refusals.label(refusal), n] for refusal, n in sorted(mine.items())]
        if count > sum(mine.values()):
            rows.append([cell(name, "code"), status, count - sum(mine.values())])
    return rows


def errors(summary: Summary) -> dict:
    status_rows = [
        line
        for name, row in (summary["overall"].get("endpoints") or {}).items()
        for line in _error_rows(name, row)
    ]
    examples = summary.get("error_examples") or {}
    example_rows = [[kind, cell(text_, "code")] for kind, texts in examples.items() for text_ in texts]
    return section(
        "errors",
        "Errors by status (whole run)",
        table(["endpoint", "status", "count"], status_rows) if status_rows else text("No request failed."),
        table(
            ["endpoint and status", "answer"],
            example_rows,
            caption="What failing requests were answered (the first few of each kind):",
        )
        if example_rows
        else None,
    )


def time_split_section(summary: Summary) -> dict | None:
    splits = [(row, time_split(row)) for row in summary["steps"]]
    if not any(split for _, split in splits):
        return None
    parts = [*TIME_SPLIT, "network and queues"]
    return section(
        "time-split",
        "Where the order request's time went (mean ms per step, from the services' Server-Timing)",
        table(
            ["step", "mean", *parts],
            [[label(row), row.get("mean"), *[(split or {}).get(p) for p in parts]] for row, split in splits],
        ),
        image("time_split.png", "Time split per step"),
    )
