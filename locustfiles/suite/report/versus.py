"""make compare's plots, drawn from a comparison (``compare.compare``'s result) into PNG bytes
that compare.html carries inline (the comparison's folder holds no PNG files): the order
endpoint's percentiles of A beside B per step, B − A per step against the noise floor, and each
process group's CPU per purchase (the services on a scale of their own, the machine's totals on
another). Steps are categories drawn as bars, as in the run's report."""

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from locustfiles.suite.figures.cpu import BALANCER, SERVICES  # noqa: E402
from locustfiles.suite.report.plots import SERIES, save, ticks  # noqa: E402

SHOWN = ("p50", "p95", "p99")


def _png(fig) -> bytes:
    out = io.BytesIO()
    save(fig, out)
    return out.getvalue()


def _tick(name: str) -> str:
    """A step's name under its bars, on two lines where it names a run ("4 users (B only)",
    "A: bucket 3, B: 600 RPM"), so that neighbouring names do not run into each other."""
    return name.replace(" (", "\n(").replace(", B: ", "\nB: ")


def percentiles(result: dict) -> bytes | None:
    """One panel per percentile: A's bar beside B's for every step, B's marked "!" when the
    change is beyond the noise floor."""
    rows = result["steps"]
    if not rows:
        return None
    fig, axes = plt.subplots(1, len(SHOWN), figsize=(12, 4), sharey=True)
    for ax, key in zip(axes, SHOWN, strict=True):
        color = SERIES[key]["color"]
        for i, row in enumerate(rows):
            d = row[key]
            ax.bar(i - 0.2, d["a"] or 0, 0.4, color=color, alpha=0.35, label="A" if i == 0 else None)
            ax.bar(
                i + 0.2,
                d["b"] or 0,
                0.4,
                color=color,
                hatch="//",
                edgecolor="white",
                label="B" if i == 0 else None,
            )
            if d["significant"]:
                ax.annotate(
                    "!", (i + 0.2, d["b"]), ha="center", va="bottom", fontweight="bold", color="#8b1a1a"
                )
        ticks(ax, [_tick(row["step"]) for row in rows])
        ax.set_title(f"{key}: A (pale) against B (hatched)")
        ax.legend(fontsize=8)
    axes[0].set_ylabel("ms")
    return _png(fig)


def changes(result: dict) -> bytes | None:
    """B − A in % per step and percentile, over the noise floor's band: a bar beyond the floor
    (in % and in ms) is solid, one within it pale."""
    rows = [row for row in result["steps"] if any(row[key]["pct"] is not None for key in SHOWN)]
    if not rows:
        return None
    floor = result["noise_floor"]
    fig, ax = plt.subplots(figsize=(10, 4))
    ax.axhspan(-floor["pct"], floor["pct"], color="#999", alpha=0.18)
    ax.axhline(0, color="#444", linewidth=0.8)
    width = 0.8 / len(SHOWN)
    for j, key in enumerate(SHOWN):
        offset = (j - (len(SHOWN) - 1) / 2) * width
        for i, row in enumerate(rows):
            d = row[key]
            ax.bar(
                i + offset,
                d["pct"] or 0,
                width,
                color=SERIES[key]["color"],
                alpha=1.0 if d["significant"] else 0.35,
            )
    ticks(ax, [_tick(row["step"]) for row in rows])
    ax.set_ylabel("B − A (%)")
    band = Patch(color="#999", alpha=0.18, label=f"noise floor ±{floor['pct']:g} %")
    ax.legend(handles=[band, *[Patch(color=SERIES[key]["color"], label=key) for key in SHOWN]], fontsize=8)
    ax.set_title(
        f"B against A per step: solid beyond the noise floor "
        f"(≥ {floor['pct']:g} % and ≥ {floor['ms']:g} ms), "
        "pale within it",
        fontsize=10,
    )
    return _png(fig)


def _cpu_panel(ax, found: dict, groups: list[str], title: str) -> None:
    """A beside B for each of ``groups`` on the panel's own scale."""
    x = range(len(groups))
    ax.bar([i - 0.2 for i in x], [found[g]["a"] or 0 for g in groups], 0.4, color="#7a9cc6", label="A")
    ax.bar([i + 0.2 for i in x], [found[g]["b"] or 0 for g in groups], 0.4, color="#2b5d9b", label="B")
    for i, group in enumerate(groups):
        if found[group]["significant"]:
            ax.annotate("!", (i + 0.2, found[group]["b"]), ha="center", va="bottom", fontweight="bold")
    ticks(ax, groups)
    ax.set_title(title, fontsize=10)
    ax.set_ylabel("ms of CPU per purchase")
    ax.legend(fontsize=8)


def cpu_figure(result: dict):
    """Each process group's CPU ms per purchase over the run, A beside B: the services under
    test on a scale of their own, the machine's totals (the services summed, Locust, everything
    else, the whole machine) on another, so a busy machine does not flatten the services. None
    when neither run measured any."""
    found = result.get("cpu_ms_per_purchase") or {}
    measured = [key for key, d in found.items() if d.get("a") is not None or d.get("b") is not None]
    services = [g for g in measured if g in (*SERVICES, BALANCER)]
    machine = [g for g in measured if g not in services]
    panels = [
        (groups, title)
        for groups, title in (
            (services, "The services under test"),
            (machine, "The machine: the services summed, Locust, the rest"),
        )
        if groups
    ]
    if not panels:
        return None
    widths = [len(groups) + 1 for groups, _ in panels]
    fig, axes = plt.subplots(1, len(panels), figsize=(12, 3.8), squeeze=False, width_ratios=widths)
    for ax, (groups, title) in zip(axes[0], panels, strict=True):
        _cpu_panel(ax, found, groups, title)
    return fig


def cpu(result: dict) -> bytes | None:
    fig = cpu_figure(result)
    return None if fig is None else _png(fig)


PLOTS = {"percentiles.png": percentiles, "changes.png": changes, "cpu.png": cpu}


def draw(result: dict) -> dict[str, bytes]:
    """The plots the comparison has data for, by name."""
    drawn = {name: plot(result) for name, plot in PLOTS.items()}
    return {name: png for name, png in drawn.items() if png is not None}
