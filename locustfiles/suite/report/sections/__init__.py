"""The report as data: one function per section, each reading the summary once and returning
a section ({"id", "title", "blocks"}) or None when the run has nothing for it. The blocks are
the suite's one report model (locustfiles/suite/core/blocks.py); the templates turn them into
HTML and Markdown.
"""

from locustfiles.suite.core import refusals
from locustfiles.suite.core.blocks import cell, fmt, image, links, section, table, tally, text
from locustfiles.suite.core.histogram import PERCENTILES
from locustfiles.suite.core.text import label, plural, shorten
from locustfiles.suite.figures import scalability
from locustfiles.suite.figures.cpu import mix_words
from locustfiles.suite.figures.time_split import TIME_SPLIT, locust_percent, time_split
from locustfiles.suite.report.terminal import payment_words
from locustfiles.suite.verdict.findings import NEAR_FULL_CORE, machine_cores

PERCENTILE_KEYS = [f"p{p}" for p in PERCENTILES]
THIN_NOTE = (
    "† the percentile rests on fewer than 5 samples above it (requests × (1 − N/100) < 5): "
    "read it as indicative only."
)
REPORTED_FRAMES = 10  # top frames per table in "Where the CPU goes"
SQL_LIMIT = 300  # characters of a statement shown in a table (cut at a word boundary)


def percentile_cells(row: dict, keys=PERCENTILE_KEYS) -> list[dict]:
    thin = set(row.get("thin") or [])
    return [cell(row.get(k), "num", "thin" if k in thin else None) for k in keys]


def _has_thin(rows: list[dict]) -> bool:
    return any(row.get("thin") for row in rows)


# --- the top ------------------------------------------------------------------------------


def _named(check: dict) -> str:
    """A threshold check as the report names it: "p95<2000", "p95<2000 (accepted purchases)"."""
    return check["threshold"] + (f" ({check['scope']})" if check.get("scope") else "")


def _broken(summary: dict, broken: list[str]) -> list[str]:
    """The broken thresholds under the badge; a capacity run's are those of the step that ended
    it, which is what it measures, not a failure."""
    if "capacity_rpm" in summary and broken and summary["steps"]:
        return [f"{summary['steps'][-1].get('label')} broke {', '.join(broken)}: the run ended there"]
    return [f"threshold {b} broken" for b in broken]


def database_at_start(summary: dict) -> str | None:
    start = (summary.get("config") or {}).get("database_at_start")
    if not start:
        return None
    return f"{start['preloaded_purchases']:,} preloaded purchases; {fmt(start['size_mb'])} MB on disk"


def header(summary: dict) -> dict:
    """Title, when, how long, and the verdict with every reason it failed."""
    verdict = summary["verdict"]
    broken = [f"{_named(c)} (measured {fmt(c['value'])})" for c in verdict["thresholds"] if not c["ok"]]
    other = [r for r in verdict["reasons"] if not r.startswith("thresholds failed")]
    labels = [row.get("label") or "" for row in summary["steps"]]
    steps = f": {', '.join(labels)}" if 0 < len(labels) <= 4 else f", {plural(len(labels), 'step')}"
    started_from = summary.get("started_from", "headless")
    preloaded = ((summary.get("config") or {}).get("database_at_start") or {}).get("preloaded_purchases")
    on = f", on {preloaded:,} preloaded purchases" if preloaded else ""
    warm = summary.get("warm_up")
    after = f", after a {fmt(warm['seconds'])} s warm-up" if warm else ""
    return {
        "title": f"Load test report: {summary['profile']} run ({started_from}){steps}{after}{on}",
        "when": f"{summary['started']} to {summary['finished']} ({fmt(summary['seconds'])} s)",
        "passed": verdict["passed"],
        "badge": "verdict: PASS" if verdict["passed"] else "verdict: FAIL",
        "reasons": _broken(summary, broken) + other,
    }


# --- sections -----------------------------------------------------------------------------


def provenance(summary: dict) -> dict:
    """What ran, on what, from which commit: small key/value tables."""
    found = summary.get("provenance")
    if not found:
        config = summary.get("config") or {}
        return section(
            "provenance",
            "Test setup",
            text("The run recorded no provenance; its configuration:"),
            table(["setting", "value"], [[k, v] for k, v in sorted(config.items())]),
        )
    git, machine, versions = found["git"], found["host"], found["versions"]
    load = found["load"]
    dirty = {True: "yes (uncommitted changes)", False: "no"}.get(git["dirty"], git["dirty"])
    services = found["services"]
    per_service = {k: v for k, v in services.items() if isinstance(v, dict)}
    shared = {k: v for k, v in services.items() if not isinstance(v, dict)}
    service_keys = sorted({k for v in per_service.values() for k in v})
    think = load.get("think_time") or {}
    weights = load.get("weights") or {}
    return section(
        "provenance",
        "Test setup",
        table(
            ["source", ""],
            [["commit", cell(git["commit"], "code")], ["uncommitted changes", dirty]]
            + _changed_during_run(git.get("changed_during_run")),
        ),
        table(
            ["host", ""],
            [
                ["name", machine["hostname"]],
                ["cores", machine["cores"]],
                ["memory", f"{fmt(machine['memory_gb'])} GB"],
                ["CPU", machine["cpu_model"]],
                ["OS", machine["os"]],
            ],
        ),
        table(["versions", ""], [[k, "not reachable" if v is None else v] for k, v in versions.items()]),
        table(
            ["services", *per_service],
            [[k, *[per_service[s].get(k) for s in per_service]] for k in service_keys],
        ),
        table(["shared service settings", ""], [[k, v] for k, v in shared.items()]),
        table(
            ["load", ""],
            [
                ["profile", load["profile"]],
                ["started from", load["started_from"]],
                ["target host", load["host"]],
                ["users (at most)", load["users"]],
                ["spawn rate", load["spawn_rate"]],
                ["think time", f"{fmt(think.get('min_seconds'))}–{fmt(think.get('max_seconds'))} s"],
                ["task weights", _weights(weights)],
                ["courses bought", load["courses"]],
                ["Locust workers", load["locust_workers"] or "none (one local process)"],
                ["database at start", database_at_start(summary) or "not recorded"],
            ],
        ),
    )


def _changed_during_run(at_end: dict | None) -> list[list]:
    """A row saying how the checkout differed when the run ended from when it began."""
    if not at_end:
        return []
    dirty = "with uncommitted changes" if at_end.get("dirty") is True else "clean"
    return [["changed during the run", cell(f"at the end: {at_end.get('commit')} ({dirty})", "code")]]


def steps(summary: dict) -> dict:
    """The order endpoint, one row per step and one for the whole run, and its plot."""
    rows = [*summary["steps"], {**summary["overall"], "label": "all"}]
    headers = [
        "step",
        "users",
        "target RPM",
        "RPS",
        "RPM",
        "requests",
        "failures",
        "missed",
        *PERCENTILE_KEYS,
    ]

    def line(row: dict) -> list:
        return [
            label(row),
            row.get("users"),
            row.get("target_rpm"),
            row.get("rps"),
            row.get("rpm"),
            row.get("requests"),
            row.get("failures"),
            row.get("missed"),
            *percentile_cells(row),
        ]

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
            table(headers, [line(warm)], [THIN_NOTE] if warm.get("thin") else []),
        ]
    return section(
        "steps",
        "Order endpoint per step (ms)",
        text(
            "Percentiles are exact (millisecond histograms of every request, by start time, merged "
            "across Locust workers) for POST /api/commerce/v0/baskets/."
        ),
        *warm_up_blocks,
        table(headers, [line(row) for row in rows], [THIN_NOTE] if _has_thin(rows) else []),
        image("percentiles.png", "Order endpoint percentiles per step"),
    )


def timeline(summary: dict) -> dict:
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


def endpoints(summary: dict) -> dict:
    """Every endpoint, per step and for the whole run, with its sample counts."""
    keys = ["p50", "p75", "p95", "p99", "p100"]
    rows, thin = [], False
    names = sorted(summary["overall"].get("endpoints") or {})
    for name in names:
        for row in [*summary["steps"], {**summary["overall"], "label": "all"}]:
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


def _error_rows(name: str, row: dict) -> list[list]:
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


def errors(summary: dict) -> dict:
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


def time_split_section(summary: dict) -> dict | None:
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


def resources(summary: dict) -> dict:
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
        *per_host(rows),
        image("resources.png", "Server resources per step"),
    )


def per_host(rows: list[dict]) -> list[dict]:
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


CPU_COLUMNS = {  # header: cpu_ms_per_purchase key
    "ecommerce": "ecommerce",
    "lms_stub": "lms_stub",
    "mariadb": "mariadb",
    "rollup": "rollup",
    "haproxy": "haproxy",  # shown where a load balancer was read
    "services": "services",
    "Locust": "locust",
    "other": "other",
    "machine": "machine",
}


def cpu_definition(summary: dict) -> str:
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


def cpu_per_purchase(summary: dict) -> dict | None:
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

    def line(row: dict) -> list:
        figures = row.get("cpu_ms_per_purchase") or {}
        return [label(row), row.get("purchases"), *[figures.get(key) for key in columns.values()]]

    services = (summary.get("cpu_ms_per_purchase") or {}).get("services")
    return section(
        "cpu-per-purchase",
        "CPU per purchase (ms of CPU)",
        text(
            f"The services spent {fmt(services)} ms of CPU per purchase over the run"
            + ("" if warm is None else " (its steps, not the warm-up)")
            + "."
            if services is not None
            else "No purchase was completed, so no CPU per purchase can be given."
        ),
        table(["step", "purchases", *columns], [line(row) for row in every], [cpu_definition(summary)]),
    )


def load_generator(summary: dict) -> dict:
    rows = summary["steps"]
    processes = sorted({p for row in rows for p in row.get("locust_cpu") or {}})
    generator = summary.get("load_generator") or {}
    if not processes:
        return section("load-generator", "Load generator", text("The load generator's CPU was not measured."))

    def cpu(row, process):
        value = (row.get("locust_cpu") or {}).get(process)
        return cell(value, "num", "warn" if value is not None and value >= NEAR_FULL_CORE else None)

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
            [[label(row), *[cpu(row, p) for p in processes], row.get("suite_rss_mb")] for row in rows],
            notes,
        ),
    )


def load_balancer(summary: dict) -> dict | None:
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


def database(summary: dict) -> dict:
    rows = summary["steps"]
    delta_keys = sorted({k for row in rows for k in row.get("db_deltas") or {}})
    level_keys = sorted({k for row in rows for k in row.get("db_levels") or {}})
    blocks = []
    if delta_keys:
        blocks.append(
            table(
                ["step", *delta_keys],
                [[label(r), *[(r.get("db_deltas") or {}).get(k) for k in delta_keys]] for r in rows],
                caption="Counters: the change during each step (MariaDB's global status, end minus start).",
            )
        )
    if level_keys or any(r.get("db_size_mb") is not None for r in rows):
        blocks.append(
            table(
                ["step", *level_keys, "database size MB"],
                [
                    [label(r), *[(r.get("db_levels") or {}).get(k) for k in level_keys], r.get("db_size_mb")]
                    for r in rows
                ],
                caption="Levels: the value at the end of each step (the size: data and indexes of the "
                "stack's databases).",
            )
        )
    slow = (summary.get("sql") or {}).get("slow_query_seconds")
    if slow is not None:
        blocks.append(
            text(f"A statement counts as slow (Slow_queries) above MariaDB's long_query_time, {fmt(slow)} s.")
        )
    if not blocks:
        blocks.append(text("MariaDB's counters were not read in this run."))
    return section("database", "Database", *blocks)


def _statements(statements: list[dict], caption: str) -> dict:
    return table(
        ["schema", "statement", "calls", "total ms", "mean ms", "rows examined per call"],
        [
            [
                s["schema"],
                cell(shorten(s["statement"], SQL_LIMIT), "code"),
                s["count"],
                s["total_ms"],
                s["mean_ms"],
                s["rows_examined_per_call"],
            ]
            for s in statements
        ],
        caption=caption,
    )


def sql(summary: dict) -> dict:
    found = summary.get("sql") or {}
    if "top" not in found:
        return section("sql", "SQL statements", text("The statement digests were not read in this run."))
    no_index = found.get("no_index") or []
    background = found.get("background")
    return section(
        "sql",
        "SQL statements",
        _statements(found["top"], "The requests' costliest statements (by total time):")
        if found["top"]
        else text("The requests ran no statement."),
        table(
            ["schema", "statement", "calls", "no index", "no good index"],
            [
                [
                    s["schema"],
                    cell(shorten(s["statement"], SQL_LIMIT), "code"),
                    s["count"],
                    s["no_index"],
                    s["no_good_index"],
                ]
                for s in no_index
            ],
            caption="The requests' statements that used no index, or no good one:",
        )
        if no_index
        else text("Every statement of the requests used an index."),
        _statements(background, "The background job's statements (the counter rollup loop):")
        if background
        else text("The background job ran no statement.")
        if background is not None
        else None,
    )


def _weights(weights: dict) -> str:
    """free purchases : paid ones : reads (a run from before the paid journey has no "pay")."""
    parts = [("buy", "buy"), ("pay", "pay"), ("read", "read")]
    return " : ".join(f"{label} {fmt(weights[key])}" for key, label in parts if key in weights) or "–"


def audit(summary: dict) -> dict:
    found = summary["audit"]
    keys = ["successes", "orders", "enrollments", "lost", "duplicates", "unanswered", "passed"]
    headers = [
        "answered 2xx",
        "orders committed",
        "enrollments",
        "lost",
        "duplicates",
        "unanswered",
        "passed",
    ]
    return section(
        "audit",
        "Audit: nothing lost",
        text(f"The audit could not run: {found['error']}.") if found.get("error") else None,
        table(headers, [[found.get(k) for k in keys]]),
        *_payment_blocks(found.get("payments")),
    )


def _payment_blocks(paid: dict | None) -> list[dict]:
    """The payments' part of the audit: paid orders and their payments, paid seats enrolled,
    the payments the processor accepted and what became of them, notifications by outcome."""
    if not paid:
        return []
    known = paid.get("accepted") is not None
    columns = [
        ("paid orders", "paid_orders"),
        ("settled", "settled"),
        ("not settled", "unsettled"),
        ("paid seats enrolled", "paid_enrollments"),
        ("enrolled unpaid", "enrolled_unpaid"),
        ("payments accepted", "accepted"),
        ("placed", "placed"),
        ("refund owed", "refund_owed"),
        ("without order", "without_order"),
    ]

    def shown(key: str) -> dict:
        failing = key in ("unsettled", "enrolled_unpaid", "without_order") and paid.get(key)
        return cell(paid.get(key), mark="warn" if failing else None)

    examples = {**(paid.get("examples") or {}), "without_order": paid.get("without_order_examples") or []}
    listed = "; ".join(f"{key}: {', '.join(map(str, found))}" for key, found in examples.items() if found)
    before = paid.get("taken_before")
    return [
        table(
            [header for header, _ in columns],
            [[shown(key) for _, key in columns]],
            caption="Payments: every paid order settled once (one source debited with its total, one Paid "
            "event), every paid seat enrolled backed by a payment, every accepted payment placed its order "
            "or owes a refund:",
        ),
        text(
            "Notifications by outcome: "
            + (tally(paid.get("notifications") or {}) if known else "not recorded (no watermark)")
            + (f". Replays of payments accepted before the run: {before}" if before else "")
            + (f". Examples: {listed}" if listed else "")
            + "."
        ),
    ]


def thresholds(summary: dict) -> dict:
    checks = summary["verdict"]["thresholds"]
    return section(
        "thresholds",
        "Thresholds",
        table(
            ["threshold", "measured", "result"],
            [
                [
                    _named(c),
                    c["value"],
                    cell("ok" if c["ok"] else "BROKEN", mark=None if c["ok"] else "warn"),
                ]
                for c in checks
            ],
        )
        if checks
        else text("No threshold was set."),
    )


# --- profile sections (chosen by summary["profile_sections"]) ------------------------------


def capacity(summary: dict) -> dict:
    capacity_rpm = summary.get("capacity_rpm")
    verdict = (
        f"Capacity: {fmt(capacity_rpm)} RPM, the highest target that held every threshold."
        if capacity_rpm is not None
        else "No step held the thresholds."
    )
    return section(
        "capacity",
        "Capacity",
        text(verdict),
        table(
            ["step", "target RPM", "achieved RPM", "p95", "held"],
            [
                [label(r), r.get("target_rpm"), r.get("rpm"), r.get("p95"), r.get("held")]
                for r in summary["steps"]
            ],
        ),
        image("capacity.png", "Achieved RPM against p95"),
        *scalability_blocks(summary.get("scalability")),
    )


def scalability_blocks(found: dict | None) -> list:
    """The Universal Scalability Law fitted to the steps: what N and X are, the parameters, the
    predicted peak beside the measured capacity, the caveats, the points and the plot."""
    if not found:
        return []
    fitted = found.get("fitted")
    intro = text(
        "The knee, modelled: the Universal Scalability Law, X(N) = λN / (1 + σ(N − 1) + κN(N − 1)), "
        "fitted by least squares to the steps. N is each step's mean concurrency by Little's law: "
        "order requests per second × their mean response time, the purchases in flight. X is the "
        "order requests answered 2xx per minute. λ is the throughput of one purchase in flight "
        "alone, σ the share that serialises (contention), κ the cost of every request in flight "
        "slowing the others (coherency); with κ > 0 throughput peaks at N* = √((1 − σ)/κ)."
    )
    rows = []
    if fitted:
        rows = [
            ["λ (RPM at N = 1)", found["lambda_rpm"]],
            ["σ (contention)", found["sigma"]],
            ["κ (coherency)", found["kappa"]],
            ["N* (purchases in flight at the peak)", found["n_star"]],
            ["predicted peak RPM, X(N*)", found["peak_rpm"] if found["peak_rpm"] is not None else "no peak"],
            ["measured capacity RPM", found.get("measured_capacity_rpm")],
            ["R² of the fit (X)", found.get("r_squared")],
            ["RMS error of the fit (RPM)", found.get("rmse_rpm")],
        ]
        if found.get("ceiling_rpm") is not None:
            rows.insert(5, ["ceiling λ/σ (RPM, κ = 0)", found["ceiling_rpm"]])
    fitted_rpm = found.get("fitted_rpm") or [None] * len(found["points"])
    return [
        intro,
        text(scalability.words(found) + "."),
        table(["Universal Scalability Law", ""], rows) if rows else None,
        # (not fitted: the line above says why, and that is the only caveat)
        *[text("⚠ " + caveat) for caveat in (found.get("caveats") or []) if fitted],
        table(
            ["step", "target RPM", "N (in flight)", "X measured (RPM)", "X fitted (RPM)"],
            [
                [p["label"], p["target_rpm"], p["n"], p["x_rpm"], model]
                for p, model in zip(found["points"], fitted_rpm, strict=True)
            ],
            caption="The steps as points of the model:",
        )
        if found["points"]
        else None,
        image("scalability.png", "Measured throughput against concurrency, with the fitted USL curve")
        if fitted
        else None,
    ]


def _rss_note(summary: dict, trend: dict) -> str:
    skipped = trend.get("warm_up_buckets", 1)
    if skipped:
        first = "bucket 1" if skipped == 1 else f"buckets 1–{skipped}"
        return f"Peak RSS from bucket {skipped + 1} on ({first} filled pools and caches; no warm-up ran)."
    warm = summary.get("warm_up") or {}
    after = f" after the {fmt(warm.get('seconds'))} s warm-up" if warm else ""
    return f"Peak RSS of every bucket{after}."


def soak(summary: dict) -> dict:
    trend = summary.get("trend") or {}
    lines = [
        f"p95 over {plural(trend.get('buckets', 0), 'bucket')}: {fmt(trend.get('p95_first'))} → "
        f"{fmt(trend.get('p95_last'))} ms ({fmt(trend.get('p95_change_pct'))} %), fitted trend "
        f"{fmt(trend.get('p95_ms_per_bucket'))} ms per bucket."
    ]
    growth = trend.get("rss_after_warm_up") or {}
    rows = [[group, g["mb_per_bucket"], g["first_mb"], g["last_mb"]] for group, g in growth.items()]
    lines.append(
        "Server processes replaced during the run (worker recycling, crashes): "
        f"{trend.get('processes_replaced', 0)}."
    )
    return section(
        "soak",
        "Soak: trends over the buckets",
        *[text(line) for line in lines],
        table(
            ["process group", "MB per bucket", "first MB", "last MB"],
            rows,
            [_rss_note(summary, trend)],
        )
        if rows
        else None,
        image("soak.png", "p95 and database size per bucket"),
        *database_growth(trend.get("size") or {}),
    )


def database_growth(size: dict) -> list:
    """The database at size: what each order costs on disk, where a 64-hour run would take it,
    and how each table grew (InnoDB's figures, rows estimated)."""
    if not size:
        return []
    lines = [
        f"Database: {fmt(size['first_mb'])} MB at the end of the first bucket, {fmt(size['last_mb'])} MB "
        f"at the end of the last, after {size['orders']:,} orders placed in between."
    ]
    projected = size.get("projected")
    if size.get("bytes_per_order") and projected:
        lines.append(
            f"At {size['bytes_per_order']:,} bytes per order, a {projected['hours']}-hour run at "
            f"{projected['rpm']:,} purchases per minute ({projected['orders']:,} orders) would reach about "
            f"{projected['size_mb']:,} MB."
        )
    else:
        lines.append("The database did not grow measurably, so no bytes per order can be given.")
    rows = [
        [
            cell(t["table"], "code"),
            f"{t['rows'][0]:,} → {t['rows'][1]:,}",
            f"{fmt(t['file_mb'][0])} → {fmt(t['file_mb'][1])}",
            fmt(t["data_mb"]),
            fmt(t["index_mb"]),
        ]
        for t in size.get("tables", [])
    ]
    return [
        *[text(line) for line in lines],
        table(
            ["table", "rows (first → last bucket)", "file MB (first → last)", "data MB", "index MB"],
            rows,
            [
                "Rows are InnoDB's running estimate; file MB is the table's file on disk, exact. Data "
                "and index MB are InnoDB's statistics at the last bucket, which it recalculates only "
                "after a tenth of a table has changed."
            ],
        )
        if rows
        else None,
        image("soak_size.png", "p95 against database size"),
    ]


def reliability(summary: dict) -> dict:
    """The chaos profile's table: one row per fault, then each fault's checks."""
    rows = summary["reliability"]
    retried = summary.get("retry_fulfillment") or {}
    return section(
        "reliability",
        "Reliability (one row per fault)",
        table(
            [
                "fault",
                "order requests",
                "orders answered",
                "errors by status (all endpoints)",
                "lost",
                "duplicates",
                "partial",
                "time to recover (s)",
                "outcome",
            ],
            [
                [
                    row["fault"],
                    row["requests"],
                    tally(row["orders_answered"]),
                    tally(row["errors_by_status"]),
                    row["lost"],
                    row["duplicates"],
                    row["partial"],
                    row["recovery_seconds"],
                    cell("pass" if row["passed"] else "FAIL", mark=None if row["passed"] else "warn"),
                ]
                for row in rows
            ],
        ),
        text(
            "Time to recover: from the end of the fault to the end of the last second in which a "
            "request failed or an order was answered 202 (placed, enrollment to be retried); – if "
            "the step ended still disturbed. After the run `retry_fulfillment --all` said: "
            f"{retried.get('summary', '–')}; orders by status after it: "
            f"{tally(summary['audit'].get('orders_by_status', {}))}."
        ),
        table(
            ["fault", "check", "result", "detail"],
            [
                [
                    row["fault"],
                    check["check"],
                    "ok" if check["ok"] else "FAILED",
                    shorten(check["detail"], 200),
                ]
                for row in rows
                for check in row["checks"]
            ],
            caption="Expected outcomes, checked:",
        ),
    )


def client(summary: dict) -> dict | None:
    """The edx2015 profile's figures: edX's 2015 client against this stack."""
    figures = summary.get("client") or {}
    if not figures:
        return None
    payments = figures.get("payments")
    return section(
        "client",
        "edX's 2015 client",
        table(
            ["figure", "value"],
            [
                ["locustfile", cell(figures["locustfile"], "code")],
                ["task set", figures["task_set"]],
                ["users", figures["users"]],
                ["seconds", figures["seconds"]],
                ["requests (every endpoint)", figures["requests"]],
                ["failed requests", figures["failures"]],
                ["task exceptions", figures["task_exceptions"]],
                ["free purchases answered 2xx (LMS)", figures["free_purchases"]],
                ["paid purchases answered 2xx (payment notifications)", figures["paid_purchases"]],
                ["orders committed", figures.get("orders")],
                ["payments", payment_words(payments)],
            ],
        ),
        table(
            ["count", "task exception"],
            [[e["count"], shorten(e["message"], 300)] for e in figures.get("exception_examples", [])],
        )
        if figures.get("exception_examples")
        else None,
    )


PROFILE_READING = (
    "How to read it: py-spy sampled with --gil, so a sample is a thread holding Python's GIL, "
    "running Python code; time in system calls and C code that let go of the GIL (a socket's "
    "send and recv, libev waiting for I/O) is not in the samples. A process the kernel preempted "
    "while it held the GIL is still sampled where it stopped: where the busy processes outnumber "
    "the cores, a group's sampled seconds (samples ÷ rate) exceed the CPU seconds it used over the "
    "same window, and its shares are of time holding the GIL, which is CPU time only as far as "
    'the process had a core. "Event loop" is gevent\'s hub dispatching between greenlets, shown '
    "as its own frame. Self: the frame on top of the stack; inclusive: anywhere on it (itself and "
    "what it called); % of all the group's samples."
)
PREEMPTED = 1.25  # sampled seconds above this many times the CPU seconds: say the group waited


def _frame_rows(rows: list[dict]) -> list[list]:
    return [
        [
            i,
            cell("event loop (gevent hub)" if row["event_loop"] else row["function"], "code"),
            cell(f"{row['file']}:{row['line']}" if row["line"] else row["file"], "code"),
            row["samples"],
            row["percent"],
        ]
        for i, row in enumerate(rows[:REPORTED_FRAMES], start=1)
    ]


def _group_blocks(group: str, figures: dict, rate) -> list:
    if figures.get("error"):
        return [text(f"{group}: no profile ({figures['error']}).")]
    samples = figures["samples"]
    processes = len(figures.get("processes") or {}) or 1
    event_loop = round(100 * figures["event_loop_samples"] / samples, 1) if samples else 0.0
    line = (
        f"{group}: {samples:,} samples from {plural(processes, 'process', 'processes')} "
        f"({fmt(figures['sampled_seconds'])} s sampled at {fmt(rate)} Hz, against "
        f"{fmt(figures['cpu_seconds'])} s of CPU used); event loop {fmt(event_loop)} % of the samples."
    )
    if figures["cpu_seconds"] and figures["sampled_seconds"] > PREEMPTED * figures["cpu_seconds"]:
        line += (
            f" It held the GIL {fmt(round(figures['sampled_seconds'] - figures['cpu_seconds'], 1))} s "
            "longer than it ran: preempted, ready but without a core."
        )
    if figures.get("behind_seconds"):
        line += (
            f" py-spy fell up to {fmt(figures['behind_seconds'])} s behind in sampling: read the "
            "shares as rough."
        )
    if figures.get("sampling_errors"):
        line += f" {figures['sampling_errors']} samples could not be read."

    def top(key: str, caption: str) -> dict | None:
        if not figures[key]:
            return None
        headers = ["#", "frame", "file:line", "samples", "%"]
        return table(headers, _frame_rows(figures[key]), caption=f"{group}, {caption}:")

    return [
        text(line),
        links(
            (figures["svg"], f"{group} flame graph ({figures['svg']})"),
            (figures["stacks"], f"collapsed stacks ({figures['stacks']})"),
        ),
        top("top_self", "top frames by self samples"),
        top("top_inclusive", "top frames by inclusive samples"),
        top("top_own", "our own code by inclusive samples"),
    ]


def profiling(summary: dict) -> dict:
    """make profile's flame graphs and top frames, per process group."""
    found = summary.get("profiling") or {}
    if not found.get("taken"):
        return section(
            "profiling",
            "Where the CPU goes",
            text(f"No profile was taken: {found.get('reason') or 'the run recorded none'}."),
            *[
                text(f"{group}: {figures['error']}.")
                for group, figures in (found.get("groups") or {}).items()
                if figures.get("error")
            ],
        )
    intro = (
        f"{found.get('tool') or 'py-spy'} sampled the Python stacks of each process group at "
        f"{fmt(found['rate_hz'])} Hz for {fmt(found['seconds'])} s, the measured step (after the "
        "warm-up). Each flame graph is an SVG beside this report: hover a frame for its samples, "
        "click to zoom."
    )
    blocks = [text(intro), text(PROFILE_READING)]
    for group, figures in found["groups"].items():
        blocks += _group_blocks(group, figures, found["rate_hz"])
    return section("profiling", "Where the CPU goes", *blocks)


def overload(summary: dict) -> dict | None:
    found = summary.get("overload")
    if not found:
        return None
    refusal_rows = [
        [cell(name, "code"), refusals.label(refusal), n]
        for name, kinds in found["refusals"].items()
        for refusal, n in sorted(kinds.items())
    ]
    return section(
        "overload",
        "Past capacity",
        text(
            f"Purchases arrived at {fmt(found['target_rpm'])} RPM and were answered at "
            f"{fmt(found['achieved_rpm'])} RPM: {fmt(found['accepted'])} of {fmt(found['purchases'])} "
            f"accepted. A service past its in-flight limit refuses new work at once with 503 overloaded "
            "and Retry-After, before it writes anything (shed)."
        ),
        table(
            ["figure", "value"],
            [
                ["p95, every answer of the order endpoint (ms)", found["p95"]],
                ["p95, its accepted purchases only (ms)", found["p95_accepted"]],
                ["failures that were not a JSON 503 or 429", found["unshed_failures"]],
                ["orders committed", found["orders_committed"]],
                ["orders without a 2xx answer", found["unanswered_orders"]],
                ["paid journeys that failed after the payment was taken", found["failed_after_payment"]],
                ["orders left by refused purchases (must be 0)", found["orders_left_by_refusals"]],
            ],
        ),
        table(["endpoint", "refusal", "count"], refusal_rows, caption="Refusals by endpoint:")
        if refusal_rows
        else text("Nothing was refused."),
    )


PROFILE_SECTIONS = {
    "capacity": capacity,
    "soak": soak,
    "reliability": reliability,
    "client": client,
    "profiling": profiling,
    "overload": overload,
}


def build(summary: dict, findings: list[dict]) -> dict:
    """The whole report as data, in reading order."""
    chosen = [PROFILE_SECTIONS[name](summary) for name in summary.get("profile_sections", [])]
    parts = [
        provenance(summary),
        steps(summary),
        timeline(summary),
        *chosen,
        endpoints(summary),
        errors(summary),
        time_split_section(summary),
        resources(summary),
        cpu_per_purchase(summary),
        load_generator(summary),
        load_balancer(summary),
        database(summary),
        sql(summary),
        audit(summary),
        thresholds(summary),
    ]
    return {"header": header(summary), "findings": findings, "sections": [p for p in parts if p]}
