"""Writing a run's folder: summary.json, report.md, report.html and PNG plots.

The report follows the shape of the 2015 tables (one row per step: users or target RPM, RPS,
RPM, percentiles 50 to 100) and of professional load reports (errors by status, resource use
per service, the costliest SQL, the audit, the verdict). Markdown and HTML come from the same
sections, so they never disagree.
"""

import base64
import html
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from locustfiles.suite.histogram import PERCENTILES  # noqa: E402

PERCENTILE_KEYS = [f"p{p}" for p in PERCENTILES]


def step_label(row: dict, profile: str) -> str:
    if row.get("fault"):
        return row["fault"]
    if row.get("users") is not None:
        return f"{row['users']} users"
    if profile == "soak":
        return f"bucket {row['index'] + 1}"
    return f"{row['target_rpm']:g} RPM"


# The order request's time, as the services' Server-Timing headers split it (the New Relic
# breakdown of 2015: "Python", "MySQL other", "External"): part -> the entry it comes from.
TIME_SPLIT = {
    "LMS app": "app",
    "LMS db": "db",
    "ecommerce app": "ecommerce-app",
    "ecommerce db": "ecommerce-db",
    "enrollment call": "ecommerce-lms",
}


def time_split(row: dict) -> dict[str, float] | None:
    """Mean ms of each part of the order request in a step, plus what no service timed (the
    network and the time waiting in gunicorn's and the kernel's queues); None without timings."""
    timings = row.get("server_timing") or {}
    if "total" not in timings or row.get("mean") is None:
        return None
    split = {part: timings.get(entry, 0.0) for part, entry in TIME_SPLIT.items()}
    untimed = row["mean"] - timings["total"]
    if "ecommerce" in timings and "ecommerce-total" in timings:
        untimed += timings["ecommerce"] - timings["ecommerce-total"]
    split["network and queues"] = round(max(untimed, 0.0), 1)
    return split


def _counts(counts: dict) -> str:
    return ", ".join(f"{status}×{n}" for status, n in sorted(counts.items())) or "–"


def reliability_sections(summary: dict) -> list[tuple[str, str, object]]:
    """The chaos profile's table: one row per fault, then each fault's checks."""
    rows = summary["reliability"]
    table = [
        [
            row["fault"],
            row["requests"],
            _counts(row["orders_answered"]),
            _counts(row["errors_by_status"]),
            row["lost"],
            row["duplicates"],
            row["partial"],
            row["recovery_seconds"],
            "pass" if row["passed"] else "FAIL",
        ]
        for row in rows
    ]
    headers = [
        "fault",
        "order requests",
        "orders answered",
        "errors by status (all endpoints)",
        "lost",
        "duplicates",
        "partial",
        "time to recover (s)",
        "outcome",
    ]
    retried = summary.get("retry_fulfillment") or {}
    note = (
        "Time to recover: from the end of the fault to the end of the last second in which a "
        "request failed or an order was answered 202 (placed, enrollment to be retried); – if "
        "the step ended still disturbed. After the run `retry_fulfillment --all` said: "
        f"{retried.get('summary', '–')}; orders by status after it: "
        f"{_counts(summary['audit'].get('orders_by_status', {}))}."
    )
    checks = [
        [row["fault"], check["check"], "ok" if check["ok"] else "FAILED", check["detail"][:200]]
        for row in rows
        for check in row["checks"]
    ]
    return [
        ("Reliability (one row per fault)", "table", (headers, table)),
        ("How the reliability table is read", "text", note),
        ("Expected outcomes, checked", "table", (["fault", "check", "result", "detail"], checks)),
    ]


def _fmt(value) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def sections(summary: dict) -> list[tuple[str, str, object]]:
    """(title, kind, content): kind is "text", "table" ((headers, rows)) or "image" (file name)."""
    profile = summary["profile"]
    rows = summary["steps"]
    out: list[tuple[str, str, object]] = []
    verdict = summary["verdict"]
    config = summary["config"]
    lines = [
        f"Profile **{profile}**, {summary['started']} to {summary['finished']} ({summary['seconds']} s); "
        f"verdict: **{'PASS' if verdict['passed'] else 'FAIL'}**"
        + (f" ({'; '.join(verdict['reasons'])})" if verdict["reasons"] else "")
        + ".",
        "Configuration: " + ", ".join(f"{k}={v}" for k, v in sorted(config.items())) + ".",
        "Percentiles are exact (millisecond histograms of every request, by start time, merged "
        "across Locust workers) for the order endpoint " + "`POST /api/commerce/v0/baskets/`.",
    ]
    if "capacity_rpm" in summary:
        lines.append(f"Capacity: **{_fmt(summary['capacity_rpm'])} RPM** held every threshold.")
    if "trend" in summary:
        trend = summary["trend"]
        lines.append(
            f"p95 trend over {trend['buckets']} buckets: {_fmt(trend['p95_ms_per_bucket'])} ms per bucket "
            f"({_fmt(trend.get('p95_first'))} → {_fmt(trend.get('p95_last'))} ms, "
            f"{_fmt(trend.get('p95_change_pct'))} %)."
        )
        growth = trend.get("rss_after_warm_up") or {}
        if growth:
            lines.append(
                f"Memory after the first {trend.get('warm_up_buckets', 1)} bucket(s), peak RSS per bucket: "
                + ", ".join(
                    f"{group} {_fmt(g['mb_per_bucket'])} MB/bucket "
                    f"({_fmt(g['first_mb'])} → {_fmt(g['last_mb'])} MB)"
                    for group, g in growth.items()
                )
                + f"; server processes replaced during the run (worker recycling, crashes): "
                f"{trend.get('processes_replaced', 0)}."
            )
    out.append(("Summary", "text", "\n\n".join(lines)))
    if "reliability" in summary:
        out += reliability_sections(summary)

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
    table = []
    for row in [*rows, {**summary["overall"], "index": None}]:
        label = "all" if row.get("index") is None else step_label(row, profile)
        table.append(
            [
                label,
                row.get("users"),
                row.get("target_rpm"),
                row.get("rps"),
                row.get("rpm"),
                row.get("requests"),
                row.get("failures"),
                row.get("missed"),
                *[row.get(k) for k in PERCENTILE_KEYS],
            ]
        )
    out.append(("Response times per step (ms)", "table", (headers, table)))
    out.append(("Percentiles per step", "image", "percentiles.png"))
    splits = [(row, time_split(row)) for row in rows]
    if any(split for _, split in splits):
        parts = [*TIME_SPLIT, "network and queues"]
        out.append(
            (
                "Where the order request's time went (mean ms per step, from the services' Server-Timing)",
                "table",
                (
                    ["step", "mean", *parts],
                    [
                        [step_label(row, profile), row.get("mean"), *[(split or {}).get(p) for p in parts]]
                        for row, split in splits
                    ],
                ),
            )
        )
        out.append(("Time split per step", "image", "time_split.png"))
    if profile == "capacity":
        out.append(("Achieved RPM against p95", "image", "capacity.png"))
    if profile == "soak":
        out.append(("p95 and database size per bucket", "image", "soak.png"))

    endpoint_rows = []
    for name, row in summary["overall"]["endpoints"].items():
        endpoint_rows.append(
            [
                name,
                row["requests"],
                row["failures"],
                row["mean"],
                row["p50"],
                row["p95"],
                row["p99"],
                row["p100"],
            ]
        )
    endpoint_rows.sort(key=lambda r: -(r[5] or 0))
    out.append(
        (
            "Endpoints, slowest first (whole run)",
            "table",
            (["endpoint", "requests", "failures", "mean", "p50", "p95", "p99", "max"], endpoint_rows),
        )
    )
    status_rows = [
        [name, status, count]
        for name, row in summary["overall"]["endpoints"].items()
        for status, count in row["statuses"].items()
        if not status.startswith("2")
    ]
    out.append(
        (
            "Errors by status (whole run)",
            "table" if status_rows else "text",
            (["endpoint", "status", "count"], status_rows) if status_rows else "No request failed.",
        )
    )

    examples = summary.get("error_examples") or {}
    if examples:
        out.append(
            (
                "What failing requests were answered (first few of each kind)",
                "table",
                (
                    ["endpoint and status", "answer"],
                    [[kind, text] for kind, texts in examples.items() for text in texts],
                ),
            )
        )

    groups = sorted({g for row in rows for g in row.get("cpu_percent", {})})
    if groups:
        resource_rows = [
            [
                step_label(row, profile),
                *[row.get("cpu_percent", {}).get(g) for g in groups],
                *[row.get("rss_mb", {}).get(g) for g in groups],
                row.get("suite_rss_mb"),
                row.get("db_size_mb"),
            ]
            for row in rows
        ]
        out.append(
            (
                "Resource use per step (CPU % of one core; peak RSS MB)",
                "table",
                (
                    [
                        "step",
                        *[f"CPU {g}" for g in groups],
                        *[f"RSS {g}" for g in groups],
                        "RSS locust",
                        "DB MB",
                    ],
                    resource_rows,
                ),
            )
        )
        out.append(("Resource use", "image", "resources.png"))
        db_keys = sorted({k for row in rows for k in row.get("db", {})})
        out.append(
            (
                "MariaDB counters per step",
                "table",
                (
                    ["step", *db_keys],
                    [[step_label(r, profile), *[r.get("db", {}).get(k) for k in db_keys]] for r in rows],
                ),
            )
        )

    sql = summary.get("sql", {})
    if sql.get("top"):
        out.append(
            (
                "Costliest SQL statements (total time)",
                "table",
                (
                    ["schema", "statement", "calls", "total ms", "mean ms", "rows examined/call"],
                    [
                        [
                            s["schema"],
                            s["statement"][:120],
                            s["count"],
                            s["total_ms"],
                            s["mean_ms"],
                            s["rows_examined_per_call"],
                        ]
                        for s in sql["top"]
                    ],
                ),
            )
        )
    no_index = sql.get("no_index", [])
    out.append(
        (
            "Statements that used no index",
            "table" if no_index else "text",
            (
                ["schema", "statement", "calls", "no index", "no good index"],
                [
                    [s["schema"], s["statement"][:120], s["count"], s["no_index"], s["no_good_index"]]
                    for s in no_index
                ],
            )
            if no_index
            else "None.",
        )
    )

    audit = summary["audit"]
    out.append(
        (
            "Audit: nothing lost",
            "table",
            (
                [
                    "answered 2xx",
                    "orders committed",
                    "enrollments",
                    "lost",
                    "duplicates",
                    "unanswered",
                    "passed",
                ],
                [
                    [
                        audit.get("successes"),
                        audit.get("orders"),
                        audit.get("enrollments"),
                        audit.get("lost"),
                        audit.get("duplicates"),
                        audit.get("unanswered"),
                        audit.get("passed"),
                    ]
                ],
            ),
        )
    )
    out.append(
        (
            "Thresholds",
            "table",
            (
                ["threshold", "value", "ok"],
                [[c["threshold"], c["value"], c["ok"]] for c in verdict["thresholds"]],
            ),
        )
    )
    return out


def render_markdown(summary: dict, parts) -> str:
    lines = [f"# Load test report: {summary['profile']}", ""]
    for title, kind, content in parts:
        lines += [f"## {title}", ""]
        if kind == "text":
            lines.append(content)
        elif kind == "image":
            lines.append(f"![{title}]({content})")
        else:
            headers, rows = content
            lines.append("| " + " | ".join(headers) + " |")
            lines.append("|" + "|".join(" --- " for _ in headers) + "|")
            for row in rows:
                lines.append("| " + " | ".join(_fmt(v).replace("|", "\\|") for v in row) + " |")
        lines.append("")
    return "\n".join(lines)


def render_html(summary: dict, parts, folder: Path) -> str:
    body = [f"<h1>Load test report: {html.escape(summary['profile'])}</h1>"]
    for title, kind, content in parts:
        body.append(f"<h2>{html.escape(title)}</h2>")
        if kind == "text":
            for paragraph in content.split("\n\n"):
                text = html.escape(paragraph).replace("**", "")
                body.append(f"<p>{text}</p>")
        elif kind == "image":
            path = folder / content
            if path.exists():
                data = base64.b64encode(path.read_bytes()).decode()
                body.append(f'<img alt="{html.escape(title)}" src="data:image/png;base64,{data}">')
        else:
            headers, rows = content
            body.append("<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in headers) + "</tr>")
            for row in rows:
                body.append("<tr>" + "".join(f"<td>{html.escape(_fmt(v))}</td>" for v in row) + "</tr>")
            body.append("</table>")
    style = (
        "body{font-family:sans-serif;margin:2em;max-width:1200px}"
        "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.25em .6em;"
        "text-align:right}th{background:#f3f3f3}td:first-child{text-align:left}img{max-width:100%}"
    )
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(summary['profile'])} report"
        f"</title><style>{style}</style></head><body>{''.join(body)}</body></html>"
    )


def plot(summary: dict, folder: Path) -> None:
    profile, rows = summary["profile"], summary["steps"]
    labels = [step_label(r, profile) for r in rows]
    x = list(range(len(rows)))

    fig, ax = plt.subplots(figsize=(9, 4.5))
    for key in ("p50", "p95", "p99"):
        ax.plot(x, [r.get(key) for r in rows], marker="o", label=key)
    ax.set_xticks(x, labels, rotation=30, ha="right")
    ax.set_ylabel("ms")
    ax.set_title("Order endpoint: response time percentiles per step")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(folder / "percentiles.png", dpi=90)
    plt.close(fig)

    if profile == "capacity":
        fig, ax = plt.subplots(figsize=(7, 4.5))
        ax.plot([r.get("rpm") for r in rows], [r.get("p95") for r in rows], marker="o")
        for row in rows:
            if row.get("rpm") is not None and row.get("p95") is not None:
                ax.annotate(f"{row['target_rpm']:g}", (row["rpm"], row["p95"]), fontsize=7)
        ax.set_xlabel("achieved RPM")
        ax.set_ylabel("p95 ms")
        ax.set_title("Capacity: achieved RPM against p95 (labels: target RPM)")
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(folder / "capacity.png", dpi=90)
        plt.close(fig)

    if profile == "soak":
        fig, ax = plt.subplots(figsize=(9, 4.5))
        ax.plot(x, [r.get("p95") for r in rows], marker="o", color="tab:red", label="p95 ms")
        ax.set_ylabel("p95 ms")
        ax.set_xlabel("bucket")
        other = ax.twinx()
        other.plot(x, [r.get("db_size_mb") for r in rows], marker=".", color="tab:blue", label="DB MB")
        other.set_ylabel("database MB")
        ax.set_title("Soak: p95 and database size per bucket")
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(folder / "soak.png", dpi=90)
        plt.close(fig)

    splits = [time_split(r) or {} for r in rows]
    if any(splits):
        fig, ax = plt.subplots(figsize=(9, 4.5))
        bottom = [0.0] * len(rows)
        for part in [*TIME_SPLIT, "network and queues"]:
            heights = [split.get(part, 0.0) for split in splits]
            ax.bar(x, heights, bottom=bottom, label=part)
            bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
        ax.set_xticks(x, labels, rotation=30, ha="right")
        ax.set_ylabel("mean ms")
        ax.set_title("Order request: where the time went per step (Server-Timing)")
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3, axis="y")
        fig.tight_layout()
        fig.savefig(folder / "time_split.png", dpi=90)
        plt.close(fig)

    groups = sorted({g for r in rows for g in r.get("cpu_percent", {})})
    if groups:
        fig, (cpu, rss) = plt.subplots(1, 2, figsize=(12, 4.5))
        for group in groups:
            cpu.plot(x, [r.get("cpu_percent", {}).get(group) for r in rows], marker="o", label=group)
            rss.plot(x, [r.get("rss_mb", {}).get(group) for r in rows], marker="o", label=group)
        cpu.set_title("CPU % of one core")
        rss.set_title("peak RSS MB")
        for axis in (cpu, rss):
            axis.set_xticks(x, labels, rotation=30, ha="right")
            axis.grid(alpha=0.3)
            axis.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(folder / "resources.png", dpi=90)
        plt.close(fig)


def write(summary: dict, folder: Path) -> None:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
    plot(summary, folder)
    parts = sections(summary)
    (folder / "report.md").write_text(render_markdown(summary, parts))
    (folder / "report.html").write_text(render_html(summary, parts, folder))
