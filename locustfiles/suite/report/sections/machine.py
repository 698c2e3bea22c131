"""The machines under the load: server resources per step and per host, the CPU per purchase,
the load generator's CPU and the load balancer.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from locustfiles.suite.core.blocks import cell, fmt, image, section, table, text
from locustfiles.suite.core.summary import Summary
from locustfiles.suite.core.text import label, plural
from locustfiles.suite.figures.cpu import KEYS, calibrated_words, machine_cores, mix_words
from locustfiles.suite.figures.time_split import locust_percent
from locustfiles.suite.verdict.findings import NEAR_FULL_CORE


def resources(summary: Summary) -> dict:
    rows = summary["steps"]
    groups = sorted({g for row in rows for g in row.get("cpu_percent") or {}})
    if not groups:
        return section(
            "resources", "Server resources", text("The servers' CPU and memory were not measured.")
        )
    machine = any(row.get("machine_cpu_percent") is not None for row in rows)
    whole = ["CPU % Locust", "CPU % other", "CPU % machine"] if machine else []
    cores = machine_cores(summary)
    notes = ["CPU is in % of one core (200 % = two cores busy)."]
    if machine:
        notes.append(
            "machine: every core's busy time from /proc/stat (all but idle and iowait: the kernel, "
            "softirqs, a profiler, anything else running)"
            + (f", out of {cores * 100} % for its {plural(cores, 'core')}" if cores else "")
            + "; other: the machine less the groups and Locust."
        )
    return section(
        "resources",
        "Server resources per step",
        table(
            ["step", *[f"CPU % {g}" for g in groups], *whole],
            [
                [
                    label(row),
                    *[(row.get("cpu_percent") or {}).get(g) for g in groups],
                    *(
                        [locust_percent(row), row.get("other_cpu_percent"), row.get("machine_cpu_percent")]
                        if machine
                        else []
                    ),
                ]
                for row in rows
            ],
            notes,
        ),
        table(
            ["step", *[f"peak RSS MB {g}" for g in groups]],
            [[label(row), *[(row.get("rss_mb") or {}).get(g) for g in groups]] for row in rows],
            ["RSS is the peak of each group's processes during the step."],
        ),
        per_worker(rows),
        *per_host(rows),
        image("resources.png", "Server resources per step"),
    )


def per_worker(rows: Sequence[Mapping[str, Any]]) -> dict | None:
    """How evenly each service's gunicorn workers took the load: each worker's CPU per step, and
    the requests it took where they were counted."""
    groups = sorted({g for row in rows for g in row.get("worker_cpu_percent") or {}})
    if not groups:
        return None
    counted = any(row.get("worker_requests") for row in rows)
    columns = [
        column
        for g in groups
        for column in [
            (f"{g} workers, CPU % each", "worker_cpu_percent", g, fmt),
            *([(f"{g} workers, requests each", "worker_requests", g, _count)] if counted else []),
        ]
    ]
    note = "Each worker process's CPU in the step, busiest first: an even load gives equal figures."
    if counted:
        note += (
            " Its requests, in the same order: every request gunicorn handed the service (refusals "
            "and health checks too), counted by the worker (common/worker_counts.py); ? where a "
            "count was not read."
        )
    return table(
        ["step", *[heading for heading, *_ in columns]],
        [
            [
                label(row),
                *[
                    " / ".join(show(v) for v in (row.get(key) or {}).get(g, [])) or None
                    for _, key, g, show in columns
                ],
            ]
            for row in rows
        ],
        [note],
    )


def _count(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


def per_host(rows: Sequence[Mapping[str, Any]]) -> list[dict]:
    """Each host's own figures per step, from its readings agent (READINGS_HOSTS): none else."""
    if not any(row.get("hosts") for row in rows):
        return []
    names = sorted({name for row in rows for name in row.get("hosts") or {}})
    groups = sorted(
        {g for row in rows for h in (row.get("hosts") or {}).values() for g in h.get("cpu_percent") or {}}
    )
    body = []
    for row in rows:
        for name in names:
            host = (row.get("hosts") or {}).get(name)
            if host is None:
                continue
            if not host.get("answered"):
                gap = [None] * (2 + 2 * len(groups))
                body.append([label(row), name + f" (no reading: {host.get('error')})", *gap])
                continue
            cpu, rss = host.get("cpu_percent") or {}, host.get("rss_mb") or {}
            body.append(
                [
                    label(row),
                    name,
                    host.get("machine_cpu_percent"),
                    (row.get("locust_cpu_by_host") or {}).get(name),
                    *[cpu.get(g) for g in groups],
                    *[rss.get(g) for g in groups],
                ]
            )
    kernels = max((row.get("kernels") or 0 for row in rows), default=0)
    notes = [
        "Each host's readings agent (common/hostreadings.py): the CPU % of one core of each process "
        "group on the host over the seconds its clock counted between the step's readings, and the "
        "group's peak RSS; machine: the host's kernel's busy time. Locust: the Locust processes on "
        "the host, as they report themselves to the master.",
        "The groups above add up each group over its hosts. readings: the agent itself; other: a "
        "program the agent does not know.",
    ]
    if kernels and kernels < len(names):
        notes.append(
            f"These {len(names)} hosts ran on {plural(kernels, 'kernel')}: a shared kernel's busy time is "
            "each such host's machine figure, and is counted once in the machine column above."
        )
    return [
        table(
            [
                "step",
                "host",
                "CPU % machine",
                "CPU % Locust",
                *[f"CPU % {g}" for g in groups],
                *[f"peak RSS MB {g}" for g in groups],
            ],
            body,
            notes,
            caption="Per host",
        )
    ]


# header: cpu_ms_per_purchase key. cpu.KEYS in its order but for the machine, shown last: the
# groups, haproxy (where a load balancer was read), the services, Locust, other, the machine.
CPU_COLUMNS = {
    ("Locust" if key == "locust" else key): key for key in [*(k for k in KEYS if k != "machine"), "machine"]
}


def cpu_definition(summary: Summary) -> str:
    """What the figures are per: the sentence under the table (and README's)."""
    accounting = summary.get("cpu_accounting") or {}
    mix = accounting.get("mix") or {}
    words = f" This run's mix: {mix_words(mix)}." if mix else ""
    return (
        "A purchase is one the learners completed in the step (by the step its request started "
        "in): a free one answered 2xx by the LMS, a paid one whose order was read back 200; a step "
        "without one has no figure. The CPU of a group is its CPU % of one core times the seconds "
        "between the step's readings; services = ecommerce + lms_stub + mariadb + rollup (+ haproxy "
        "where a load balancer was read), each summed over the hosts it ran on; Locust: "
        "every Locust process; machine: every core's busy time; other: the machine less the rest. "
        "A paid purchase costs more than a free one, so the figures are per purchase of the run's "
        f"mix.{words}"
    )


def cpu_per_purchase(summary: Summary) -> dict | None:
    """CPU milliseconds per purchase of every process group, per step and for the run."""
    rows = [r for r in summary["steps"] if "cpu_ms_per_purchase" in r]
    if not rows:
        return None
    warm = summary.get("warm_up")
    accounting = summary.get("cpu_accounting") or {}
    run = {
        "label": "all",
        "purchases": accounting.get("purchases"),
        "cpu_ms_per_purchase": summary.get("cpu_ms_per_purchase") or {},
    }
    every = [*rows, run]  # the warm-up's figures are in summary.json, like its resources
    balanced = any((row.get("cpu_ms") or {}).get("haproxy") is not None for row in rows)
    columns = {header: key for header, key in CPU_COLUMNS.items() if balanced or key != "haproxy"}

    def line(name: str, purchases: Any, figures: Any) -> list:
        return [name, purchases, *[figures.get(key) for key in columns.values()]]

    lines = [line(label(row), row.get("purchases"), row.get("cpu_ms_per_purchase") or {}) for row in every]
    calibrated, notes = summary.get("cpu_cal_per_purchase"), [cpu_definition(summary)]
    if any(value is not None for value in (calibrated or {}).values()):  # the run again, in cal
        lines.append(line("all, in cal", accounting.get("purchases"), calibrated or {}))
        notes.append(CAL_NOTE)
    services = (summary.get("cpu_ms_per_purchase") or {}).get("services")
    in_cal = calibrated_words(summary)
    return section(
        "cpu-per-purchase",
        "CPU per purchase (ms of CPU)",
        text(
            f"The services spent {fmt(services)} ms of CPU per purchase over the run"
            + ("" if warm is None else " (its steps, not the warm-up)")
            + (f": {in_cal}." if in_cal else ".")
            if services is not None
            else "No purchase was completed, so no CPU per purchase can be given."
        ),
        table(["step", "purchases", *columns], lines, notes),
    )


CAL_NOTE = (
    "all, in cal: the run's figures over the ms of the machine's calibration (common/calibration: "
    "fixed interpreter work and MariaDB statements, about one free order's CPU), taken before the "
    "load and after it. This machine's speed drifts; a figure in cal moves with the code, not "
    "with the hour."
)


def locust_cell(row: Mapping[str, Any], process: str) -> dict:
    """A Locust process's CPU % in a step, marked when it neared a full core (the report's
    load generator table, and the web UI's live tab)."""
    value = (row.get("locust_cpu") or {}).get(process)
    return cell(value, "num", "warn" if value is not None and value >= NEAR_FULL_CORE else None)


def load_generator(summary: Summary) -> dict:
    rows = summary["steps"]
    processes = sorted({p for row in rows for p in row.get("locust_cpu") or {}})
    generator = summary.get("load_generator") or {}
    if not processes:
        return section("load-generator", "Load generator", text("The load generator's CPU was not measured."))

    near = any((row.get("locust_cpu") or {}).get(p, 0) >= NEAR_FULL_CORE for row in rows for p in processes)
    notes = (
        [f"⚠ at or above {NEAR_FULL_CORE:g} % of one core: that Locust process was saturated."]
        if near
        else []
    )
    peak = generator.get("peak_cpu_percent")
    return section(
        "load-generator",
        "Load generator (Locust) CPU per step",
        text(
            "A Locust process runs on one core; near 100 % it delays its own requests and the "
            "measured times grow with the client, not the service."
            + (f" Peak: {fmt(peak)} % ({generator.get('process')})." if peak is not None else "")
        ),
        table(
            ["step", *[f"CPU % {p}" for p in processes], "Locust RSS MB"],
            [
                [label(row), *[locust_cell(row, p) for p in processes], row.get("suite_rss_mb")]
                for row in rows
            ],
            notes,
        ),
    )


def load_balancer(summary: Summary) -> dict | None:
    """The requests HAProxy sent to each ecommerce server per step and in all, and each
    server's state when the run ended (locustfiles/suite/record/balancer.py); None without a balancer."""
    found = summary.get("balancer")
    if not found:
        return None
    names = found["servers"]
    share = found.get("share_percent") or {}
    steps = [
        [step.get("label") or step["index"], *[(step.get("requests") or {}).get(name) for name in names]]
        for step in found["steps"]
    ]
    notes = []
    if any(step.get("reset") for step in found["steps"]):
        notes.append(
            "HAProxy reloaded during a step: its counters started again from 0, and the requests "
            "before the reload in that step are not counted."
        )
    if found.get("unread_steps"):
        unread = ", ".join(map(str, found["unread_steps"]))
        notes.append(f"Not read at the end of step(s) {unread}: no counts.")
    at_end = found.get("at_end") or {}
    return section(
        "balancer",
        "Load balancer",
        table(
            ["step", *[f"requests {name}" for name in names]],
            [*steps, ["all", *[found["requests"].get(name) for name in names]]],
            notes,
            caption="Requests HAProxy sent to each ecommerce server (its stats page's stot, one per "
            "request); their shares: "
            + ", ".join(f"{name} {fmt(share.get(name))} %" for name in names)
            + ".",
        ),
        table(
            ["server", "status", "check", "sessions", "downtime s"],
            [
                [
                    name,
                    state.get("status"),
                    state.get("check_status") or None,
                    state.get("sessions"),
                    state.get("downtime"),
                ]
                for name, state in sorted(at_end.items())
            ],
            caption="Each server when the run ended: UP, DOWN, DRAIN or MAINT; its last health check "
            "(L7OK: /health/ answered 200; L4CON: connection refused); sessions under way; seconds "
            "DOWN since HAProxy started.",
        )
        if at_end
        else None,
    )
