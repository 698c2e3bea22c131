"""Comparing two runs: ``python -m locustfiles.suite.report.compare A B`` (make compare A=... B=...).

Each step of A is set beside the step of B that carried the same load (the same target RPM,
or the same users: report/loads.py), never by position or name; a step with no step of its
load in the other run is shown alone. Where the loads differ (profile, load model, the steps'
rates or users, the learners' mix), a banner says how before any figure, and the whole run's
figures are shown but not judged. For every percentile the report gives B - A in ms and in %,
and marks a difference significant only when it is beyond the noise floor, at least NOISE_PCT
percent (default 10) and at least NOISE_MS milliseconds (default 5), and when both runs have
samples enough for that percentile (figures/results.thin, the report's † rule; p100, the
slowest request alone, never). Two runs of the same configuration on this machine differed by
up to about 8 % (docs/decisions/README.md), so smaller differences say nothing. The settings and the
stack's configuration that differ follow as a table (setting, A, B). When both runs measured
it, each process group's CPU per purchase over the run follows, A to B (significant at
NOISE_PCT percent): in calibration units where both runs calibrated the machine, and then the
ms are shown unjudged; a banner says when the machines' calibrations differ
(report/calibrated.py). The comparison goes to var/runs/<timestamp>-compare/ (compare.json,
compare.md, and compare.html: the same sections of the report model with plots of their own,
inline) and its path is the last line printed.
"""

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from common.environment import get
from locustfiles.suite.core import run_folders
from locustfiles.suite.core.blocks import (
    DASH,
    bullets,
    cell,
    fmt,
    image,
    markdown_document,
    section,
    table,
    text,
)
from locustfiles.suite.core.histogram import PERCENTILE_KEYS
from locustfiles.suite.core.summary import Summary
from locustfiles.suite.figures.cpu import BALANCER, SERVICES
from locustfiles.suite.figures.cpu import KEYS as CPU_KEYS
from locustfiles.suite.figures.results import TAIL_SAMPLES, thin
from locustfiles.suite.report import HTML, calibrated, configuration, loads, plots, versus
from locustfiles.suite.verdict.noise import NOISE_MS, NOISE_PCT, delta

KEYS = PERCENTILE_KEYS  # the figures compared
SCHEDULED = "p95_from_schedule"  # an open model's, shown beside them (not counted as a change)
TITLE = "Run comparison"


def load(run: str | Path) -> Summary:
    """A run's summary.json, of this schema or an older one (its readers take a key it lacks)."""
    path = Path(run)
    path = path / "summary.json" if path.is_dir() else path
    if not path.exists():
        raise FileNotFoundError(f"no summary.json in {run}")
    return json.loads(path.read_text())


def compare(a: Summary, b: Summary, noise_pct: float = NOISE_PCT, noise_ms: float = NOISE_MS) -> dict:
    """B against A: each step of A beside B's step of the same load (report/loads.py), the whole
    run, CPU per purchase, and how the loads and the configuration differ. Where the loads
    differ, the whole run's figures (its "all" row, CPU per purchase) are shown but not judged:
    a change there may be the load's."""
    pairs = loads.match(a["steps"], b["steps"])
    differ = loads.differences(a, b)
    floor = (noise_pct, noise_ms)
    rows = [_row(loads.pair_name(row_a, row_b), row_a or {}, row_b or {}, *floor) for row_a, row_b in pairs]
    overall = _row("all", a["overall"], b["overall"], *floor, judged=not differ)
    differing = configuration.differing(a, b)
    in_cal = cpu_per_purchase(a, b, noise_pct, judged=not differ, figure=calibrated.FIGURE)
    return {
        "a": {"profile": a["profile"], "started": a["started"], "config": a["config"]},
        "b": {"profile": b["profile"], "started": b["started"], "config": b["config"]},
        "loads": {"differences": differ, "matched": loads.matched_words(pairs)},
        "configuration": differing,
        "configuration_notes": configuration.notes(a, b, differing),
        "noise_floor": {"pct": noise_pct, "ms": noise_ms},
        "steps": rows,
        "overall": overall,
        "significant": sum(1 for row in [*rows, overall] for key in KEYS if row[key]["significant"]),
        "machines": calibrated.machines(a, b),
        "cpu_cal_per_purchase": in_cal,  # judged where both have it, the ms then not
        "cpu_ms_per_purchase": cpu_per_purchase(a, b, noise_pct, judged=not differ and in_cal is None),
        "cpu_purchases": [_purchases(a), _purchases(b)],
    }


def _row(
    name: str,
    row_a: Mapping[str, Any],
    row_b: Mapping[str, Any],
    noise_pct: float,
    noise_ms: float,
    judged: bool = True,
) -> dict:
    """One line of the comparison: B − A for the RPS and each percentile (none significant
    unless ``judged``), the errors of each, and the p95 from the schedule where both have it."""
    percentiles = {key: _percentile(row_a, row_b, key, noise_pct, noise_ms) for key in KEYS}
    scheduled = _scheduled(row_a, row_b, noise_pct, noise_ms)
    if not judged:
        for found in (*percentiles.values(), scheduled):
            if found:
                found["significant"] = False
    return {
        "step": name,
        "rps": delta(row_a.get("rps"), row_b.get("rps"), noise_pct, 0),
        "errors": {"a": row_a.get("errors"), "b": row_b.get("errors")},
        **percentiles,
        SCHEDULED: scheduled,
    }


def too_few(row: Mapping[str, Any]) -> set[str]:
    """The percentile keys a row's samples cannot support (figures/results.thin: the report's
    † rule, on its requests), and p100 whatever the count: the slowest request alone."""
    return {*(row.get("thin") or ()), *thin(row.get("requests") or 0), "p100"}


def _percentile(
    row_a: Mapping[str, Any], row_b: Mapping[str, Any], key: str, noise_pct: float, noise_ms: float
) -> dict:
    """B − A for one percentile; significant only beyond the noise floor and where both runs
    have samples enough for it: one that too few samples support in either run is marked thin
    and never called significant (a few requests move it)."""
    d = delta(row_a.get(key), row_b.get(key), noise_pct, noise_ms)
    if d["ms"] is not None and (key in too_few(row_a) or key in too_few(row_b)):
        d.update(thin=True, significant=False)
    return d


def _scheduled(
    row_a: Mapping[str, Any], row_b: Mapping[str, Any], noise_pct: float, noise_ms: float
) -> dict | None:
    """B − A for an open-model row's p95 from the schedule (None unless both runs have it),
    thin as its samples say in either run."""
    found_a, found_b = row_a.get("from_schedule"), row_b.get("from_schedule")
    if not found_a or not found_b:
        return None
    shown = {"p95": found_a["p95"], "requests": found_a["samples"]}
    other = {"p95": found_b["p95"], "requests": found_b["samples"]}
    return _percentile(shown, other, "p95", noise_pct, noise_ms)


# CPU per purchase is judged for the services only: Locust's is the load generator's, and the
# machine's and "other" hold whatever else ran on it. And only over purchases enough: the
# kernel counts CPU in 10 ms ticks, read at both ends of each of a group's processes, so over
# a few dozen purchases one tick moves a group's figure by a tenth of a millisecond or more.
CPU_JUDGED = (*SERVICES, BALANCER, "services")
CPU_MIN_PURCHASES = 200


def cpu_per_purchase(
    a: Summary,
    b: Summary,
    noise_pct: float = NOISE_PCT,
    judged: bool = True,
    figure: Literal["cpu_ms_per_purchase", "cpu_cal_per_purchase"] = "cpu_ms_per_purchase",
) -> dict | None:
    """Each group's CPU per purchase (``figure``: in ms, or in cal), A against B, when both runs
    measured it; a change is significant at noise_pct % (the milliseconds floor is for response
    times, not CPU), for the services' groups (CPU_JUDGED), where both runs counted
    CPU_MIN_PURCHASES purchases, and only where ``judged`` (the same load)."""
    found_a, found_b = a.get(figure), b.get(figure)
    if not found_a or not found_b:
        return None
    found = {key: delta(found_a.get(key), found_b.get(key), noise_pct, 0) for key in CPU_KEYS}
    enough = min(_purchases(a), _purchases(b)) >= CPU_MIN_PURCHASES
    for key, d in found.items():
        d["significant"] = d["significant"] and judged and enough and key in CPU_JUDGED
    return found


def _purchases(summary: Summary) -> int:
    """The purchases a run's CPU per purchase is counted over (0: not said)."""
    accounting = summary.get("cpu_accounting")
    return (accounting.get("purchases") if accounting else None) or 0


def _pct(d: dict) -> str:
    return DASH if d.get("pct") is None else f"{fmt(d['pct'], '+g')} %"  # no % of a step with 0 RPS


def _alone(d: dict) -> dict:
    """A cell for a figure one run has and the other has not: A → B, either a dash."""
    missing = d.get("a") is None and d.get("b") is None
    return cell(None if missing else f"{fmt(d.get('a'))} → {fmt(d.get('b'))}", "text")


def _change(d: dict) -> dict:
    """A percentile's cell: A → B (B − A in ms, in %), marked beyond the noise floor; only
    A → B when one side has no figure (a step with no step of its load in the other run)."""
    if d.get("ms") is None:
        return _alone(d)
    shown = f"{fmt(d['a'])} → {fmt(d['b'])} ({fmt(d['ms'], '+g')} ms, {_pct(d)})" + (
        "†" if d.get("thin") else ""
    )
    return cell(shown, "text", "significant" if d["significant"] else None)


def _rps(d: dict) -> dict:
    return _alone(d) if d.get("ms") is None else cell(f"{fmt(d['a'])} → {fmt(d['b'])} ({_pct(d)})", "text")


def _cpu(d: dict) -> dict:
    """A group's CPU per purchase, A → B (B − A in ms, in %); only A → B when one side is missing."""
    if d.get("ms") is None:
        return _alone(d)
    pct = "" if d["pct"] is None else f", {fmt(d['pct'], '+g')} %"
    shown = f"{fmt(d['a'])} → {fmt(d['b'])} ({fmt(d['ms'], '+g')} ms{pct})"
    return cell(shown, "text", "significant" if d["significant"] else None)


def _loads_differ(result: dict) -> dict | None:
    """The banner above the figures when the two runs' loads differ, saying how."""
    differ = result["loads"]["differences"]
    if not differ:
        return None
    return section(
        "loads-differ",
        "The loads differ: these runs are not like for like",
        bullets(differ),
        text(
            "Only steps of the same load are set side by side. The whole run's figures (the "
            '"all" row, CPU per purchase) are shown but never marked significant: a change '
            "there may be the load's, not the system's."
        ),
    )


def _legend(result: dict) -> str:
    floor = result["noise_floor"]
    needs = ", ".join(f"{key} {TAIL_SAMPLES * 100 // (100 - int(key[1:]))}" for key in ("p50", "p95", "p99"))
    return (
        f"Each cell: A → B (B − A in ms, in %). ! marks a difference beyond the noise floor "
        f"(≥ {floor['pct']:g} % and ≥ {floor['ms']:g} ms) where both runs have samples enough for "
        f"that percentile; {result['significant']} cells are. † marks a percentile that too few "
        f"samples support in either run (fewer than {TAIL_SAMPLES} at or above it: requests "
        f"needed {needs}), and p100 always (the slowest request alone): never called significant."
    )


def _runs(result: dict, a_path: str, b_path: str) -> dict:
    rows = result["configuration"]
    differing = (
        table(
            ["setting", "A", "B"],
            [[cell(name, "code"), cell(a, "text"), cell(b, "text")] for name, a, b in rows],
            notes=result["configuration_notes"],
            caption="Configuration that differs (the run's settings as resolved, then the stack's):",
        )
        if rows
        else text(" ".join(["Configuration that differs: none.", *result["configuration_notes"]]))
    )
    same = "" if result["loads"]["differences"] else "Both runs put the same load on the system. "
    return section(
        "runs",
        "The runs",
        text(f"A: {a_path} ({result['a']['profile']}, {result['a']['started']})"),
        text(f"B: {b_path} ({result['b']['profile']}, {result['b']['started']})"),
        text(same + result["loads"]["matched"]),
        differing,
        text(_legend(result)),
    )


def _cpu_section(result: dict) -> dict:
    found, in_cal = result.get("cpu_ms_per_purchase"), result.get("cpu_cal_per_purchase")
    title = "CPU per purchase over the run (ms of CPU)"
    if not found:
        return section("cpu", title, text("CPU per purchase: not compared (not measured in both runs)."))
    fewest = min(result.get("cpu_purchases") or [0])
    if result["loads"]["differences"]:
        judged = "not judged: the loads differ"
    elif fewest < CPU_MIN_PURCHASES:
        judged = f"not judged: {fewest} purchases in a run, under {CPU_MIN_PURCHASES}"
    else:
        judged = f"! at ≥ {result['noise_floor']['pct']:g} % for the services' groups"
    in_ms = "not judged: in cal above" if in_cal else judged
    caption = f"CPU ms per purchase, the whole run (each cell: A → B; {in_ms}):"
    return section(
        "cpu",
        title,
        text(calibrated.summary_line(result)),
        calibrated.cal_table(in_cal, judged) if in_cal else None,
        table(list(CPU_KEYS), [[_cpu(found[key]) for key in CPU_KEYS]], caption=caption),
        image("cpu.png", "CPU ms per purchase of each process group, A beside B"),
    )


def sections(result: dict, a_path: str, b_path: str) -> list[dict]:
    """The comparison as the report model's sections (core/blocks.py), in reading order."""
    every = [*result["steps"], result["overall"]]
    found = [
        _loads_differ(result),
        calibrated.banner(result),
        _runs(result, a_path, b_path),
        section(
            "percentiles",
            "Order endpoint per step, A against B (ms)",
            image("percentiles.png", "p50, p95 and p99 per step, A beside B"),
            _percentile_table(every),
        ),
        section(
            "changes",
            "B against A per step, and the noise floor",
            image("changes.png", "B − A in % per step, beyond or within the noise floor")
            if any(row["p50"]["ms"] is not None for row in result["steps"])
            else text("No step of the same load ran in both runs: no step is set against another."),
        ),
        _cpu_section(result),
    ]
    return [part for part in found if part]


def _percentile_table(every: list[dict]) -> dict:
    """Each step's RPS and percentiles, A → B; with the p95 from the schedule after p95 when
    both runs are open-model."""
    scheduled = any(row[SCHEDULED] for row in every)
    at = KEYS.index("p95") + 1
    headers = ["step", "RPS", *KEYS[:at], *(["p95 from schedule"] if scheduled else []), *KEYS[at:]]

    def line(row: dict) -> list:
        changes = [_change(row[k]) for k in KEYS]
        extra = [_change(row[SCHEDULED]) if row[SCHEDULED] else None] if scheduled else []
        return [row["step"], _rps(row["rps"]), *changes[:at], *extra, *changes[at:]]

    return table(headers, [line(row) for row in every])


def markdown(result: dict, a_path: str, b_path: str) -> str:
    """compare.md: every section's title and blocks but the plots (which compare.html carries),
    under one title."""
    parts = []
    for part in sections(result, a_path, b_path):
        shown = [block for block in part["blocks"] if block["kind"] != "image"]
        parts += [text(f"## {part['title']}"), *shown] if shown else []
    return markdown_document(TITLE, parts)


def html(result: dict, a_path: str, b_path: str) -> str:
    """compare.html: the same sections with their plots inline; a plot without data is left out."""
    drawn = versus.draw(result)
    shown = []
    for part in sections(result, a_path, b_path):
        part["blocks"] = [b for b in part["blocks"] if b["kind"] != "image" or b["file"] in drawn]
        shown.append(part)

    def inline(file: str) -> str:
        return plots.data_uri(drawn[file])

    return HTML.get_template("page.html.j2").render(title=TITLE, sections=shown, inline=inline)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m locustfiles.suite.report.compare RUN_A RUN_B", file=sys.stderr)
        return 2
    try:
        a, b = load(argv[0]), load(argv[1])
    except (FileNotFoundError, json.JSONDecodeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    result = compare(a, b, get("NOISE_PCT"), get("NOISE_MS"))
    folder = run_folders.stamped(run_folders.runs(get("VAR_DIR")), "compare")
    folder.mkdir(parents=True, exist_ok=True)
    written = markdown(result, argv[0], argv[1])
    (folder / "compare.json").write_text(json.dumps(result, indent=2))
    (folder / "compare.md").write_text(written)
    (folder / "compare.html").write_text(html(result, argv[0], argv[1]))
    print(written)
    print(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
