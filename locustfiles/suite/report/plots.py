"""The report's plots, one function per PNG, drawn so a reader can trust them: every series
has its own colour, marker and line style (so p95 stays visible when it equals p99), steps
are categories drawn as bars (never two dots joined by a line), and the timeline marks where
each step began."""

import base64
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

import matplotlib

from locustfiles.suite.core.summary import Summary

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from locustfiles.suite.core.text import label  # noqa: E402
from locustfiles.suite.figures.scalability import usl  # noqa: E402
from locustfiles.suite.figures.time_split import TIME_SPLIT, locust_percent, time_split  # noqa: E402

DPI = 90
# p99 is the widest line and lies lowest, p50 the thinnest and on top, so a lower percentile
# that equals a higher one is drawn over it and stays visible.
SERIES: dict[str, dict[str, Any]] = {  # each percentile's line: matplotlib's plot() keywords
    "p99": {"color": "tab:red", "marker": "s", "linestyle": "-", "linewidth": 2.6, "zorder": 2},
    "p95": {"color": "tab:orange", "marker": "o", "linestyle": "--", "linewidth": 1.8, "zorder": 3},
    "p50": {"color": "tab:blue", "marker": "^", "linestyle": ":", "linewidth": 1.4, "zorder": 4},
}
MAX_STEP_LABELS = 12  # more step names than this on the timeline would overlap


def save(fig, target: Path | BinaryIO) -> None:
    """The figure as a PNG into a file or a buffer (compare.html's plots), then closed."""
    fig.tight_layout()
    fig.savefig(target, format="png", dpi=DPI)
    plt.close(fig)


def data_uri(png: bytes) -> str:
    """A PNG as a data: URI, for an HTML page that carries its plots inline."""
    return "data:image/png;base64," + base64.b64encode(png).decode()


def ticks(ax, names: list[str]) -> None:
    """Step names under the bars, slanted when more than four would crowd; a light y grid."""
    many = len(names) > 4
    ax.set_xticks(range(len(names)), names, rotation=30 if many else 0, ha="right" if many else "center")
    ax.grid(alpha=0.3, axis="y")


def _bars(ax, rows: list[dict], series: dict[str, list], ylabel: str) -> None:
    """Grouped bars: one group per step, one bar per series."""
    width = 0.8 / max(len(series), 1)
    x = range(len(rows))
    for i, (name, values) in enumerate(series.items()):
        offset = (i - (len(series) - 1) / 2) * width
        ax.bar(
            [p + offset for p in x],
            [v if v is not None else 0 for v in values],
            width,
            label=name,
            color=SERIES.get(name, {}).get("color"),
            hatch=None if i % 2 == 0 else "//",
            edgecolor="white",
        )
    ticks(ax, [label(r) for r in rows])
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)


def _lines(ax, rows: Sequence[Mapping[str, Any]], series: dict[str, list], ylabel: str) -> None:
    """One line per series over many steps (soak buckets), each with its own style."""
    x = list(range(len(rows)))
    for i, (name, values) in enumerate(series.items()):
        style = SERIES.get(name) or {"marker": "os^vD"[i % 5], "linestyle": ["-", "--", ":", "-."][i % 4]}
        ax.plot(x, values, label=name, markersize=4, **style)
    step = max(1, len(rows) // 12)
    ax.set_xticks(x[::step], [label(r) for r in rows][::step], rotation=30, ha="right")
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)


def _per_step(ax, rows, series, ylabel) -> None:
    (_bars if len(rows) <= 8 else _lines)(ax, rows, series, ylabel)


def percentiles(summary: Summary, path: Path) -> bool:
    rows = summary["steps"]
    if not rows:
        return False
    fig, ax = plt.subplots(figsize=(9, 4.2))
    _per_step(ax, rows, {k: [r.get(k) for r in rows] for k in ("p50", "p95", "p99")}, "ms")
    ax.set_title("Order endpoint: p50, p95 and p99 per step")
    save(fig, path)
    return True


def _rate(ax, points: list[dict], width: float) -> None:
    """The timeline's top panel: requests per second, and failures per second as bars."""
    t = [p["t"] for p in points]
    ax.plot(t, [p.get("rps") for p in points], color="tab:green", marker=".", label="requests/s")
    failed = [p.get("failures") or 0 for p in points]
    if any(failed):
        ax.bar(
            t,
            [f / width for f in failed],
            width=width,
            color="tab:red",
            alpha=0.6,
            label="failures/s",
            align="edge",
        )
    ax.set_ylabel("per second")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.005, 1))


def timeline(summary: Summary, path: Path) -> bool:
    found = summary.get("timeline") or {}
    points = found.get("points") or []
    if not points:
        return False
    t = [p["t"] for p in points]
    with_users = any(p.get("users") is not None for p in points)
    fig, axes = plt.subplots(
        3 if with_users else 2,
        1,
        figsize=(11, 7.5 if with_users else 6),
        sharex=True,
        gridspec_kw={"height_ratios": [2, 3, 1.3][: 3 if with_users else 2]},
    )
    rate, latency = axes[0], axes[1]
    _rate(rate, points, found.get("bucket_seconds", 1))
    for key, style in SERIES.items():
        latency.plot(t, [p.get(key) for p in points], label=key, markersize=3, **style)
    latency.set_ylabel("ms")
    latency.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.005, 1))
    if with_users:
        axes[2].step(t, [p.get("users") for p in points], where="post", color="tab:purple", label="users")
        axes[2].set_ylabel("users")
        axes[2].set_ylim(bottom=0, top=max(p.get("users") or 0 for p in points) * 1.15 + 0.5)
        axes[2].yaxis.set_major_locator(MaxNLocator(integer=True))
    axes[-1].set_xlabel("seconds since the start")
    for ax in axes:
        ax.grid(alpha=0.3)
        for start in found.get("step_starts", []):
            ax.axvline(start, color="grey", linestyle=":", linewidth=1)
    starts = found.get("step_starts", [])
    names = found.get("step_labels", []) if len(starts) <= MAX_STEP_LABELS else []
    for start, name in zip(starts, names, strict=False):
        rate.annotate(
            name,
            (start, 1),
            xycoords=("data", "axes fraction"),
            xytext=(3, -10),
            textcoords="offset points",
            fontsize=7,
            color="dimgrey",
        )
    rate.set_title(
        "The whole run: rate and failures (every endpoint), order endpoint percentiles"
        + (", users" if with_users else "")
    )
    save(fig, path)
    return True


def capacity(summary: Summary, path: Path) -> bool:
    points = [
        (rpm, p95, r)
        for r in summary["steps"]
        if (rpm := r.get("rpm")) is not None and (p95 := r.get("p95")) is not None
    ]
    if not points:
        return False
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.plot(
        [rpm for rpm, _, _ in points],
        [p95 for _, p95, _ in points],
        marker="o",
        linestyle="-" if len(points) > 1 else "none",
    )
    for rpm, p95, row in points:
        ax.annotate(label(row), (rpm, p95), xytext=(4, 4), textcoords="offset points", fontsize=7)
    ax.set_xlabel("achieved RPM")
    ax.set_ylabel("p95 ms")
    ax.set_title("Capacity: achieved RPM against p95 (labels: steps)")
    ax.grid(alpha=0.3)
    save(fig, path)
    return True


def soak(summary: Summary, path: Path) -> bool:
    rows = summary["steps"]
    if not rows:
        return False
    fig, ax = plt.subplots(figsize=(9, 4.2))
    _lines(ax, rows, {"p95": [r.get("p95") for r in rows]}, "p95 ms")
    if any(r.get("db_size_mb") is not None for r in rows):
        other = ax.twinx()
        other.plot(
            range(len(rows)),
            # NaN, not None, for a bucket without a size: the same gap in the line, and a float.
            [math.nan if (mb := r.get("db_size_mb")) is None else mb for r in rows],
            marker="D",
            markersize=3,
            linestyle="-.",
            color="tab:grey",
            label="database MB",
        )
        other.set_ylabel("database MB")
        other.legend(fontsize=8, loc="lower right")
    ax.set_title("Soak: p95 and database size per bucket")
    save(fig, path)
    return True


def soak_size(summary: Summary, path: Path) -> bool:
    """p95 against the database's size at the end of each bucket: flat if size costs nothing."""
    points = [
        (mb, p95)
        for mb, p95 in ((summary.get("trend") or {}).get("size") or {}).get("p95_by_size", [])
        if p95 is not None
    ]
    if len(points) < 2:
        return False
    fig, ax = plt.subplots(figsize=(9, 4.2))
    ax.plot([mb for mb, _ in points], [p95 for _, p95 in points], marker="o", markersize=4, label="p95")
    ax.set_xlabel("database MB (end of bucket)")
    ax.set_ylabel("p95 ms")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("Soak: p95 against database size")
    save(fig, path)
    return True


def time_split_plot(summary: Summary, path: Path) -> bool:
    rows = summary["steps"]
    splits = [time_split(r) or {} for r in rows]
    if not any(splits):
        return False
    fig, ax = plt.subplots(figsize=(9, 4.2))
    bottom = [0.0] * len(rows)
    for i, part in enumerate([*TIME_SPLIT, "network and queues"]):
        heights = [split.get(part, 0.0) for split in splits]
        ax.bar(
            range(len(rows)),
            heights,
            bottom=bottom,
            label=part,
            hatch=["", "//", "..", "xx"][i % 4],
            edgecolor="white",
        )
        bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    ax.set_xticks(list(range(len(rows))), [label(r) for r in rows], rotation=30, ha="right")
    ax.set_ylabel("mean ms")
    ax.set_title("Order request: where the time went per step (Server-Timing)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, axis="y")
    save(fig, path)
    return True


def _cpu_stack(ax, rows: Sequence[Mapping[str, Any]], groups: list[str], cores: int | None) -> None:
    """Each step's CPU as a stack: the server groups, Locust and the rest of the machine, whose
    top is the machine's busy time; a line at the machine's cores (100 % each)."""
    parts = {g: [(r.get("cpu_percent") or {}).get(g) or 0.0 for r in rows] for g in groups}
    parts["Locust"] = [locust_percent(r) or 0.0 for r in rows]
    machine = [r.get("machine_cpu_percent") for r in rows]
    if any(m is not None for m in machine):
        parts["other"] = [r.get("other_cpu_percent") or 0.0 for r in rows]
    x = list(range(len(rows)))
    bottom = [0.0] * len(rows)
    for i, (name, heights) in enumerate(parts.items()):
        ax.bar(
            x,
            heights,
            0.6,
            bottom=bottom,
            label=name,
            color="lightgrey" if name == "other" else None,
            hatch=["", "//", "..", "xx", "\\\\"][i % 5],
            edgecolor="white",
        )
        bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    if any(m is not None for m in machine):
        ax.plot(x, machine, "k_", markersize=22, markeredgewidth=2, linestyle="none", label="machine (busy)")
    if cores:
        ax.axhline(100 * cores, color="tab:red", linestyle="--", linewidth=1, label=f"{cores} cores")
        ax.set_ylim(top=max(100 * cores, *bottom) * 1.1)
    step = max(1, len(rows) // 12)
    ax.set_xticks(
        x[::step], [label(r) for r in rows][::step], rotation=30 if len(rows) > 4 else 0, ha="right"
    )
    ax.set_ylabel("% of one core")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.005, 1))


def resources(summary: Summary, path: Path) -> bool:
    rows = summary["steps"]
    groups = sorted({g for r in rows for g in r.get("cpu_percent") or {}})
    if not groups:
        return False
    cores = ((summary.get("provenance") or {}).get("host") or {}).get("cores")
    fig, (cpu, rss) = plt.subplots(1, 2, figsize=(13, 4.4), gridspec_kw={"width_ratios": [1.15, 1]})
    _cpu_stack(cpu, rows, groups, cores)
    _per_step(rss, rows, {g: [(r.get("rss_mb") or {}).get(g) for r in rows] for g in groups}, "MB")
    cpu.set_title("CPU per step: process groups, Locust, the rest of the machine")
    rss.set_title("Peak RSS per process group")
    save(fig, path)
    return True


def scalability(summary: Summary, path: Path) -> bool:
    """The steps' measured throughput against their concurrency, the fitted USL curve, its
    peak, and the measured capacity."""
    found = summary.get("scalability") or {}
    points = found.get("points") or []
    if not found.get("fitted") or not points:
        return False
    lam, sigma, kappa = found["lambda_rpm"], found["sigma"], found["kappa"]
    n = [p["n"] for p in points]
    top = max(n) * 1.15
    if found.get("n_star") is not None:
        top = max(top, min(found["n_star"] * 1.3, max(n) * 4))
    curve_n = [top * i / 200 for i in range(1, 201)]
    fig, ax = plt.subplots(figsize=(7.5, 4.4))
    ax.plot(curve_n, [usl(v, lam, sigma, kappa) for v in curve_n], color="tab:blue", label="USL fit")
    ax.plot(n, [p["x_rpm"] for p in points], "o", color="tab:orange", label="steps (measured)")
    for p in points:
        ax.annotate(p["label"], (p["n"], p["x_rpm"]), xytext=(4, -10), textcoords="offset points", fontsize=7)
    if found.get("n_star") is not None and found["n_star"] <= top:
        ax.plot(
            [found["n_star"]],
            [found["peak_rpm"]],
            "*",
            color="tab:red",
            markersize=12,
            label="predicted peak",
        )
    if found.get("measured_capacity_rpm") is not None:
        ax.axhline(
            found["measured_capacity_rpm"],
            color="tab:green",
            linestyle="--",
            linewidth=1,
            label="measured capacity",
        )
    ax.set_xlabel("N: purchases in flight (Little's law)")
    ax.set_ylabel("X: purchases answered per minute")
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("Universal Scalability Law fitted to the steps")
    save(fig, path)
    return True


PLOTS = {
    "percentiles.png": percentiles,
    "timeline.png": timeline,
    "capacity.png": capacity,
    "soak.png": soak,
    "soak_size.png": soak_size,
    "time_split.png": time_split_plot,
    "resources.png": resources,
    "scalability.png": scalability,
}


def draw(summary: Summary, file: str, folder: Path) -> bool:
    """Draw the plot ``file`` into ``folder``; False when the run has no data for it."""
    return PLOTS[file](summary, folder / file)
