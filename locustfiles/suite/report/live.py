"""The run as the web UI's live tabs show it while it goes (run/webpages.py serves them through
Locust's extended tabs): the per-step table as it grows, and the checks (thresholds, the load
generator, the answers so far; at the end the verdict, the audit and the report).

The rows are the summary's: each step that began is figures/results.step_row over the
recorder's exact histograms, labelled and CPU-accounted as run/summary.py does it, the step
under way cut at "now" (its rates over the seconds it has run); once the run's summary is
written, its rows and verdict are shown as they are. A Locust table cell is text only, so each
cell is its report text with the report's mark (the thin percentile's †, the warning's ⚠).
"""

import copy
import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from locustfiles.suite.core import thresholds
from locustfiles.suite.core.blocks import MARKS, cell, figure_cell, fmt
from locustfiles.suite.core.plan import Plan, Step
from locustfiles.suite.core.summary import LoadGenerator, OverallRow, StepRow, Summary
from locustfiles.suite.core.text import label
from locustfiles.suite.figures import results
from locustfiles.suite.profiles import Behaviour
from locustfiles.suite.record.recorder import Recorder
from locustfiles.suite.report.sections.machine import locust_cell
from locustfiles.suite.report.sections.traffic import THIN_NOTE, from_schedule_cell, has_thin, with_whole_run
from locustfiles.suite.verdict import findings

STEPS, CHECKS = "suite", "suite_checks"  # the tabs' keys (?tab= in the web UI's address)
TABS = [{"key": STEPS, "title": "Suite"}, {"key": CHECKS, "title": "Suite checks"}]
PERCENTILES = ("p50", "p95", "p99")
FROM_SCHEDULE_KEY = "p95_from_schedule"


@dataclasses.dataclass
class Live:
    """What the process that keeps the results holds at ``now`` (run/keeper.py's KeptRun)."""

    profile: Behaviour
    plan: Plan
    recorder: Recorder
    readings: dict[int, dict]  # the servers' reading of each step that ended
    rules: list[thresholds.Threshold]
    t0: float | None  # None before the first run, and once one ended
    now: float
    stopping: bool = False  # stopped: the audit and the report are under way
    answered: int = 0  # order numbers answered 2xx so far (the audit looks for each)
    written: dict[str, int] | None = None  # rows written so far, by watermark (verdict/facts.py)
    summary: Summary | None = None  # the run's summary.json, once written
    run_name: str | None = None  # its folder's name
    # Rows made before: step index -> (what the row is made of, the row).
    cache: dict[int, tuple[tuple, StepRow]] = dataclasses.field(default_factory=dict)


class UnderWay(StepRow):
    """The step under way, as the Suite tab shows it (never in summary.json)."""

    under_way: bool


def so_far(plan: Plan, offset: float) -> Plan:
    """The steps begun ``offset`` seconds after t0, the one under way cut there: its seconds are
    those it has run, so its rates are too (a live plan's open step closes here, as at a stop)."""
    cut = copy.deepcopy(plan)
    cut.stop(offset)
    steps = [step for step in cut.steps if step.start <= offset]
    if steps and steps[-1].end > offset:
        steps[-1] = dataclasses.replace(steps[-1], seconds=round(offset - steps[-1].start, 3))
    return Plan(plan.profile, steps, plan.open_model, plan.users)


def rows(live: Live) -> list[OverallRow]:
    """The summary's rows: a warm-up's, each step's and "all" (the measured steps so far; once
    the run is written, as its report has them: a run of one step has no "all")."""
    if live.summary is not None:
        found = live.summary
        return [*filter(None, [found.get("warm_up")]), *with_whole_run(found)]
    if live.t0 is None or live.now < live.t0:
        return []
    offset = live.now - live.t0
    cut = so_far(live.plan, offset)
    out = [_step_row(live, step) for step in cut.steps]
    if out and live.plan.step_end(out[-1]["index"]) > offset and not live.stopping:
        under_way: UnderWay = {**out[-1], "under_way": True}
        out[-1] = under_way
    return [*out, results.whole_run_row(cut, live.recorder.steps)]


def _step_row(live: Live, step: Step) -> StepRow:
    """A step's row, made again only when what it is made of changed (a step that ended is
    not, once its last requests and its reading are in): the page asks every 2 s."""
    stats = live.recorder.steps.get(step.index)
    # A purchase sent late is counted in the step it was sent in, and from the schedule in the
    # step it was due in: a step that ended still changes when one due in it is answered.
    requests = (
        sum(e.histogram.total + e.from_schedule.total for e in stats.endpoints.values()) if stats else 0
    )
    missed = stats.missed if stats else 0
    key = (live.t0, step.index, step.start, step.seconds, requests, missed, step.index in live.readings)
    kept = live.cache.get(step.index)
    if kept is None or kept[0] != key:
        live.cache[step.index] = kept = (key, live.profile.step_row(live.recorder.steps, step, live.readings))
    return kept[1]


def shown(found: dict) -> str:
    """A cell's text with its mark, as the report's Markdown shows it."""
    return found["text"] + (MARKS[found["mark"]][0] if found["mark"] else "")


def step_columns(groups: tuple[str, ...]) -> list[dict]:
    """The Suite tab's columns (Locust's extended table structure), with a CPU column for
    each process group read (``groups``). An open-model step's label is its target RPM."""
    titles = {
        "step": "step",
        "users": "users",
        "rpm": "RPM",
        "requests": "order requests (samples)",
        "failures": "order failures",
        "missed": "missed",
        "p50": "p50 ms",
        "p95": "p95 ms",
        FROM_SCHEDULE_KEY: "p95 from schedule ms",  # open model, as the report's table shows it
        "p99": "p99 ms",
        **{f"cpu_{group}": f"CPU % {group}" for group in groups},
        "cpu_locust": "CPU % Locust",
        "cpu_machine": "CPU % machine",
    }
    return [{"key": key, "title": title} for key, title in titles.items()]


def step_line(row: Mapping[str, Any], groups: tuple[str, ...]) -> dict[str, str]:
    """One row of the Suite tab, each cell as the report writes it."""
    name = label(row) + (f" (under way, {row['seconds']:.0f} s)" if row.get("under_way") else "")
    line = {"step": name, **{key: fmt(row.get(key)) for key in ("users", "rpm")}}
    line.update({key: fmt(row.get(key)) for key in ("requests", "failures", "missed")})
    line.update({key: shown(figure_cell(row, key)) for key in PERCENTILES})
    line[FROM_SCHEDULE_KEY] = shown(from_schedule_cell(row))
    groups_read = row.get("cpu_percent") or {}
    line.update({f"cpu_{group}": fmt(groups_read.get(group)) for group in groups})
    processes = sorted(row.get("locust_cpu") or {})
    line["cpu_locust"] = " · ".join(f"{p} {shown(locust_cell(row, p))}" for p in processes) or fmt(None)
    line["cpu_machine"] = fmt(row.get("machine_cpu_percent"))
    return line


CHECK_COLUMNS = [{"key": key, "title": key} for key in ("check", "value", "state")]


def check_lines(
    live: Live, found: list[OverallRow], report_url: Callable[[str], str], runs_url: str
) -> list[dict]:
    """The Suite checks tab: the run's state, each threshold, the load generator, the answers;
    at the end the verdict, the audit's counts and the report."""
    lines = [_line("run", *_state(live))]
    if live.summary is not None:
        lines += _finished(live.summary)
    else:
        lines += _thresholds(live.rules, found)
        lines += _running_counts(live)
        lines += _findings_so_far(live, found)
    generator = live.summary["load_generator"] if live.summary else findings.load_generator(found)
    lines.append(_generator(generator))
    if has_thin(found):
        lines.append(_line("†", "", THIN_NOTE))
    if live.summary is not None and live.run_name:
        lines.append(_line("report", report_url(live.run_name), "open it at this address"))
    lines.append(_line("every run", runs_url, "reports and comparisons"))
    return lines


def _line(check: str, value, state: str = "") -> dict[str, str]:
    return {"check": check, "value": value if isinstance(value, str) else fmt(value), "state": state}


def _state(live: Live) -> tuple[str, str]:
    name = f"{live.profile.name} ({live.run_name})" if live.run_name else live.profile.name
    if live.summary is not None:
        return name, "finished"
    if live.t0 is None:
        return "none yet", "start one from the form"
    # Locust's page stops polling once the test stopped: it shows the verdict when loaded again.
    state = "stopped: audit and report under way (load the page again for the verdict)"
    return name, state if live.stopping else "running"


# The rows each watermark's table has written so far (verdict/facts.py), as the tab names them.
WRITTEN = {
    "order_id": "orders written so far",
    "enrollment_id": "enrollments written so far",
    "notification_id": "payment notifications received so far",
}


def _running_counts(live: Live) -> list[dict]:
    """The audit's counts while the run goes: the order numbers answered 2xx, and the rows each
    database has written since the start (committed or rolled back: which were committed, and
    which payments settled, the audit reads from the services at the end)."""
    lines = [_line("orders answered 2xx so far", live.answered, "the audit looks each up at the end")]
    written = live.written or {}
    read = "read every 5 s; committed or rolled back (the audit counts the committed at the end)"
    for mark, name in WRITTEN.items():
        lines.append(_line(name, written.get(mark), read if mark in written else "not read yet"))
    return lines


def _findings_so_far(live: Live, found: list[OverallRow]) -> list[dict]:
    """What the measured steps that ended and the run so far (``found``: what rows() made)
    already say (verdict/findings' so_far), one line each."""
    if not found:
        return []
    warm_up = {step.index for step in live.plan.steps if step.warm_up}
    ended = [row for row in found[:-1] if not row.get("under_way") and row.get("index") not in warm_up]
    said = findings.so_far({"steps": ended, "overall": found[-1]})
    return [_line(f"finding so far ({f['level']})", "", f["text"]) for f in said]


def _thresholds(rules: list[thresholds.Threshold], found: list[OverallRow]) -> list[dict]:
    """Each threshold on the measured steps so far ("all") and on the step under way."""
    if not found:
        return []
    run = found[-1]
    step: Mapping[str, Any] = found[-2] if len(found) > 1 else {}  # {}: no step yet
    lines = []
    for rule in rules:
        ok, value = rule.check(run)
        state = "holds" if ok else ("no data yet" if value is None else "broken")
        _, now_value = rule.check(step)
        lines.append(
            _line(f"threshold {rule}", value, f"{state} (all so far); {label(step)}: {fmt(now_value)}")
            if step
            else _line(f"threshold {rule}", value, state)
        )
    return lines


def _finished(summary: Summary) -> list[dict]:
    verdict = summary["verdict"]
    words = "; ".join(failure["text"] for failure in verdict["failures"])
    lines = [_line("verdict", "PASS" if verdict["passed"] else "FAIL", words)]
    for check in verdict["thresholds"]:  # as the profile judged them (capacity: the step that broke above it)
        state = ("held" if check["ok"] else "broken") + (f" ({check['scope']})" if check.get("scope") else "")
        lines.append(_line(f"threshold {check['threshold']}", check["value"], state))
    found = summary.get("audit") or {}
    if "orders" in found:
        counts = ", ".join(f"{key} {fmt(found.get(key))}" for key in ("successes", "orders", "enrollments"))
        lines.append(
            _line(
                "audit", counts, f"lost {fmt(found.get('lost'))}, duplicates {fmt(found.get('duplicates'))}"
            )
        )
    else:
        lines.append(_line("audit", "not run", found.get("error") or ""))
    lines += [_line(f"finding ({f['level']})", "", f["text"]) for f in summary.get("findings") or []]
    return lines


def _generator(generator: LoadGenerator) -> dict[str, str]:
    peak = generator.get("peak_cpu_percent")
    if peak is None:
        return _line("load generator CPU %", None, "read at each step's end")
    value = shown(cell(peak, "num", "warn" if generator["saturated"] else None))
    state = (
        f"{generator['process']} neared a full core: the times include the client's own delays"
        if generator["saturated"]
        else f"busiest: {generator['process']}"
    )
    return _line("load generator CPU %", value, state)


def payload(
    live: Live, groups: tuple[str, ...], report_url: Callable[[str], str], runs_url: str
) -> list[dict]:
    """Locust's ``extended_stats``: each tab's rows."""
    found = rows(live)
    return [
        {"key": STEPS, "data": [step_line(row, groups) for row in found]},
        {"key": CHECKS, "data": check_lines(live, found, report_url, runs_url)},
    ]
