"""Findings about the machine and the measurement: the load generator's own limit, the
busiest process, a shared machine, CPU per purchase, statements without an index, percentiles
on too few samples, missed arrivals, purchases sent later than their arrivals were due."""

from collections.abc import Mapping, Sequence
from typing import Any

from locustfiles.suite.core.summary import Finding, LoadGenerator, Summary
from locustfiles.suite.core.text import label, plural, shorten
from locustfiles.suite.figures.cpu import machine_cores
from locustfiles.suite.verdict.findings.words import SoFar, finding, ms
from locustfiles.suite.verdict.noise import NOISE_MS, NOISE_PCT, delta

NEAR_FULL_CORE = 90.0  # % of one core at which a process (a Locust process, say) is saturated
SHARED_MACHINE_PCT = 25.0  # % of the machine's CPU outside the stack and Locust worth a warning


def load_generator(rows: Sequence[Mapping[str, Any]]) -> LoadGenerator:
    """The busiest Locust process of the rows (a run's steps, or the live tab's so far), and
    whether it neared a full core (then the figures measure the load generator as much as the
    service): summary.json's ``load_generator``, and the web UI's live tab."""
    peak, process = 0.0, None
    for row in rows:
        for name, percent in (row.get("locust_cpu") or {}).items():
            if percent >= peak:
                peak, process = percent, name
    return {
        "peak_cpu_percent": peak if process else None,
        "process": process,
        "saturated": peak >= NEAR_FULL_CORE,
        "threshold_percent": NEAR_FULL_CORE,
    }


def load_generator_findings(summary: Summary) -> list[Finding]:
    generator = summary.get("load_generator")
    peak = generator.get("peak_cpu_percent") if generator else None
    if not generator or peak is None:
        return [finding("warning", "The load generator's CPU was not measured in this run.")]
    process = generator.get("process") or "Locust"
    if generator.get("saturated") or peak >= NEAR_FULL_CORE:
        return [
            finding(
                "problem",
                f"The load generator was saturated: its process {process!r} used {peak:g} % of one "
                "core at its peak, so the response times include the client's own delays and the "
                "request rate may be the client's limit. Add Locust workers (WORKERS=N).",
            )
        ]
    return [
        finding(
            "info",
            f"The load generator kept headroom: its busiest process ({process}) peaked at {peak:g} % "
            "of one core.",
        )
    ]


def busiest_process_findings(summary: Summary) -> list[Finding]:
    """The busiest server process group and its share of a core; the host's cores if known."""
    peaks = [
        (cpu, group, row)
        for row in summary.get("steps", [])
        for group, cpu in (row.get("cpu_percent") or {}).items()
        if cpu is not None
    ]
    if not peaks:
        return [finding("warning", "The servers' CPU was not measured in this run.")]
    cpu, group, row = max(peaks, key=lambda p: p[0])
    text = f"The busiest server process was {group}: {cpu:g} % of one core at {label(row)}"
    cores = machine_cores(summary, row)
    level = "info"
    if cores:
        stack = sum((row.get("cpu_percent") or {}).values()) + sum((row.get("locust_cpu") or {}).values())
        machine = row.get("machine_cpu_percent")
        if machine is None:  # a run from before the machine was read: the stack's share only
            share = stack / cores
            text += f"; the whole stack with Locust used {share:.0f} % of the host's {plural(cores, 'core')}"
        else:  # the machine's busy time: the kernel's share and any other process count too
            share = machine / cores
            text += (
                f"; the machine's {plural(cores, 'core')} were {share:.0f} % busy then (the stack "
                f"with Locust {stack / cores:.0f} %, everything else {max(machine - stack, 0) / cores:.0f} %)"
            )
        if share >= NEAR_FULL_CORE:
            level = "warning"
            text += ", so the host's CPU was nearly full"
        else:
            text += f", so {100 - share:.0f} % of the host's CPU was to spare"
    return [finding(level, text + ".")]


def shared_machine_findings(summary: Summary) -> list[Finding]:
    """Whether something outside the stack and Locust took a real share of the machine's CPU
    (the kernel's own work for the traffic, a profiler, another job on the machine)."""
    cores = machine_cores(summary)
    others = [(other, row) for row in summary.get("steps", []) if (other := row.get("other_cpu_percent"))]
    if not cores or not others:
        return []
    other, row = max(others, key=lambda o: o[0])
    share = other / cores
    if share < SHARED_MACHINE_PCT:
        return []
    return [
        finding(
            "warning",
            f"Processes outside the stack and Locust used {share:.0f} % of the machine's CPU at "
            f"{label(row)} ({other:g} % of one core: the kernel's own work, a profiler or another job): "
            "the run shared the machine, and its response times may show it.",
        )
    ]


def cpu_findings(summary: Summary) -> list[Finding]:
    """The run's CPU per purchase: the services' total and split, Locust's and the machine's."""
    figures = summary.get("cpu_ms_per_purchase")
    if not figures:
        return []
    if figures.get("services") is None:
        return [finding("warning", "No CPU per purchase: the run completed no purchase in its steps.")]
    split = ", ".join(
        f"{group} {figures[group]:g}"
        for group in ("ecommerce", "lms_stub", "mariadb", "rollup")
        if figures.get(group) is not None
    )
    text = f"The services spent {figures['services']:g} ms of CPU per purchase ({split})"
    extra = [
        f"{name} {figures[key]:g} ms"
        for name, key in (("Locust", "locust"), ("the whole machine", "machine"))
        if figures.get(key) is not None
    ]
    if extra:
        text += "; " + ", ".join(extra)
    mix = (summary.get("cpu_accounting") or {}).get("mix") or {}
    if mix:
        text += f", over {mix.get('free', 0)} free and {mix.get('paid', 0)} paid purchases"
    return [finding("info", text + ".")]


# A statement that reads at most this many rows a call without an index reads small lookup
# tables (the product classes, the partners, a course's seats): no index would make it cheaper,
# and none of them grows with the orders (make index-audit holds the growing ones to a limit).
SMALL_READ_ROWS = 100


def index_findings(summary: Summary) -> list[Finding]:
    sql = summary.get("sql")
    if not sql or "no_index" not in sql:
        return [
            finding("warning", "The statement digests were not read, so missing indexes were not checked.")
        ]
    statements = sql["no_index"]
    if not statements:
        return [finding("info", "Every statement the requests ran used an index.")]
    small = [s for s in statements if (s.get("rows_examined_per_call") or 0) <= SMALL_READ_ROWS]
    larger = [s for s in statements if s not in small]
    if not larger:
        return [
            finding(
                "info",
                f"{plural(len(small), 'statement')} of the requests ran without a (good) index, reading "
                f"at most {SMALL_READ_ROWS} rows a call (small lookup tables, which no index would make "
                "cheaper).",
            )
        ]
    worst = max(larger, key=lambda s: s["count"])
    besides = f" ({len(small)} more read at most {SMALL_READ_ROWS} rows a call)" if small else ""
    return [
        finding(
            "warning",
            f"{plural(len(larger), 'statement')} of the requests ran without a (good) index{besides}; "
            f"the most frequent, {worst['count']} calls, {worst.get('rows_examined_per_call'):g} rows "
            "read a call: "
            f"{shorten(worst['statement'], 120)}",
        )
    ]


def thin_findings(summary: Summary | SoFar) -> list[Finding]:
    """Percentiles of the order endpoint resting on fewer than 5 samples above them."""
    rows = [r for r in summary.get("steps", []) if r.get("thin")]
    if not rows:
        return []
    keys = sorted({k for r in rows for k in r["thin"]}, key=lambda k: int(k[1:]))
    named = ", ".join(f"{label(r)} ({plural(r['requests'], 'order request')})" for r in rows[:4])
    more = f" and {len(rows) - 4} more" if len(rows) > 4 else ""
    return [
        finding(
            "warning",
            f"{'/'.join(keys)} of the order endpoint rest on fewer than 5 samples above them in "
            f"{plural(len(rows), 'step')}: {named}{more}; they are marked † in the tables. Longer "
            "steps or more load give them weight.",
        )
    ]


def missed_findings(summary: Summary | SoFar) -> list[Finding]:
    overall = summary.get("overall") or {}
    missed, arrivals = overall.get("missed") or 0, overall.get("arrivals") or 0
    if not missed or not arrivals:
        return []
    return [
        finding(
            "warning",
            f"{plural(missed, 'arrival')} of {arrivals} could not start on time and were skipped "
            f"({100 * missed / arrivals:.1f} %): the users could not keep up with the target rate.",
        )
    ]


def from_schedule_findings(summary: Summary | SoFar) -> list[Finding]:
    """The steps whose purchases' p95 measured from their arrivals' due times exceeds their p95
    from when they were sent by more than the noise floor: the purchases waited for a free user
    or a busy Locust process before they were sent (coordinated omission)."""
    apart = []
    for row in summary.get("steps", []):
        schedule = row.get("from_schedule")
        change = delta(row.get("p95"), schedule.get("p95") if schedule else None)
        if change["significant"] and change["ms"] > 0:
            apart.append(f"{label(row)} {ms(change['b'])} against {ms(change['a'])} ({change['ms']:+g} ms)")
    if not apart:
        return []
    return [
        finding(
            "warning",
            f"In {plural(len(apart), 'step')} the purchases' p95 measured from their arrivals' due times "
            f"exceeded the p95 from when they were sent by more than the noise floor ({NOISE_PCT:g} % and "
            f"{NOISE_MS:g} ms): {'; '.join(apart)}. The gap is time purchases waited for a free user or a "
            "busy Locust process before they were sent (coordinated omission): learners met the "
            "latency from the schedule.",
        )
    ]


def shed_machine_findings(summary: Summary) -> list[Finding]:
    """Whether a shed request came in a second the machine had CPU to spare
    (figures/shed_seconds.py): the services refusing work the machine could still do."""
    found = summary.get("shed_by_machine")
    if not found or not found.get("shed"):
        return []
    cores, limit = found["cores"], found["busy_limit_cpu_percent"]
    seconds = found["resolution_seconds"]
    per = "second" if seconds == 1 else f"{seconds:g}-second bucket"
    unread = found.get("unmeasured") or 0
    unread_text = f"; {plural(unread, 'shed request')} came when the machine was not read" if unread else ""
    if found["with_cpu_to_spare"] and (first := found["first_with_cpu_to_spare"]):
        many = plural(found["seconds_with_cpu_to_spare"], per)
        return [
            finding(
                "warning",
                f"{found['with_cpu_to_spare']} of {plural(found['shed'], 'shed request')} came in a {per} "
                f"when the machine had more than {found['spare_pct']:g} % of its CPU to spare (under "
                f"{limit:g} % of {100 * cores:g} %; {many} in all, the first {first['t']:g} s into the run "
                f"at {first['machine_cpu_percent']:g} %){unread_text}: the services refused work the "
                "machine could still have done.",
            )
        ]
    if unread == found["shed"]:
        return [finding("info", f"The machine was not read in any {per} with a shed request.")]
    return [
        finding(
            "info",
            f"Every shed request ({found['shed'] - unread}) came in a {per} when the machine's "
            f"{plural(cores, 'core')} were at least {100 - found['spare_pct']:g} % busy (the least busy such "
            f"{per}: {found['least_busy_cpu_percent']:g} % of {100 * cores:g} %){unread_text}.",
        )
    ]
