"""Comparing two runs: ``python -m locustfiles.suite.report.compare A B`` (make compare A=... B=...).

Steps are matched by position. For every percentile the report gives B - A in ms and in %,
and marks a difference significant only when it is beyond the noise floor: at least
NOISE_PCT percent (default 10) and at least NOISE_MS milliseconds (default 5). Two runs of
the same configuration on this machine differed by up to about 8 % (docs/decisions.md), so
smaller differences say nothing. When both runs measured it, each process group's CPU ms per
purchase over the run follows, A to B (significant at NOISE_PCT percent). The comparison goes
to var/runs/<timestamp>-compare/ and its path is the last line printed.
"""

import datetime
import html
import json
import sys
from pathlib import Path

from common.environment import get
from locustfiles.suite.core.histogram import PERCENTILES
from locustfiles.suite.core.text import label
from locustfiles.suite.figures.cpu import KEYS as CPU_KEYS
from locustfiles.suite.verdict.noise import NOISE_MS, NOISE_PCT, delta

KEYS = [f"p{p}" for p in PERCENTILES]


def load(run: str | Path) -> dict:
    path = Path(run)
    path = path / "summary.json" if path.is_dir() else path
    if not path.exists():
        raise FileNotFoundError(f"no summary.json in {run}")
    return json.loads(path.read_text())


def compare(a: dict, b: dict, noise_pct: float = NOISE_PCT, noise_ms: float = NOISE_MS) -> dict:
    rows = []
    for index in range(max(len(a["steps"]), len(b["steps"]))):
        row_a = a["steps"][index] if index < len(a["steps"]) else {}
        row_b = b["steps"][index] if index < len(b["steps"]) else {}
        rows.append(
            {
                "step": label(row_a or row_b),
                "rps": delta(row_a.get("rps"), row_b.get("rps"), noise_pct, 0),
                "errors": {"a": row_a.get("errors"), "b": row_b.get("errors")},
                **{key: delta(row_a.get(key), row_b.get(key), noise_pct, noise_ms) for key in KEYS},
            }
        )
    overall = {
        "step": "all",
        "rps": delta(a["overall"].get("rps"), b["overall"].get("rps"), noise_pct, 0),
        "errors": {"a": a["overall"].get("errors"), "b": b["overall"].get("errors")},
        **{key: delta(a["overall"].get(key), b["overall"].get(key), noise_pct, noise_ms) for key in KEYS},
    }
    return {
        "a": {"profile": a["profile"], "started": a["started"], "config": a["config"]},
        "b": {"profile": b["profile"], "started": b["started"], "config": b["config"]},
        "noise_floor": {"pct": noise_pct, "ms": noise_ms},
        "steps": rows,
        "overall": overall,
        "significant": sum(1 for row in [*rows, overall] for key in KEYS if row[key]["significant"]),
        "cpu_ms_per_purchase": cpu_per_purchase(a, b, noise_pct),
    }


def cpu_per_purchase(a: dict, b: dict, noise_pct: float = NOISE_PCT) -> dict | None:
    """Each group's CPU ms per purchase, A against B, when both runs measured it; a change is
    significant at noise_pct % (the milliseconds floor is for response times, not CPU)."""
    found_a, found_b = a.get("cpu_ms_per_purchase"), b.get("cpu_ms_per_purchase")
    if not found_a or not found_b:
        return None
    return {key: delta(found_a.get(key), found_b.get(key), noise_pct, 0) for key in CPU_KEYS}


def _cpu_cell(d: dict) -> str:
    if d.get("ms") is None:
        return "–" if d.get("a") is None and d.get("b") is None else f"{_g(d.get('a'))} → {_g(d.get('b'))}"
    pct = f", {d['pct']:+g} %" if d["pct"] is not None else ""
    return f"{d['a']:g} → {d['b']:g} ({d['ms']:+g} ms{pct}){' **!**' if d['significant'] else ''}"


def _g(value) -> str:
    return "–" if value is None else f"{value:g}"


def _cell(d: dict) -> str:
    if d.get("ms") is None:
        return "–"
    mark = " **!**" if d["significant"] else ""
    pct = f"{d['pct']:+g} %" if d["pct"] is not None else "–"
    return f"{d['a']:g} → {d['b']:g} ({d['ms']:+g} ms, {pct}){mark}"


def markdown(result: dict, a_path: str, b_path: str) -> str:
    differing = {k: v for k, v in result["b"]["config"].items() if result["a"]["config"].get(k) != v}
    lines = [
        "# Run comparison",
        "",
        f"A: `{a_path}` ({result['a']['profile']}, {result['a']['started']})",
        f"B: `{b_path}` ({result['b']['profile']}, {result['b']['started']})",
        "",
        "Configuration that differs: "
        + (", ".join(f"{k}: {result['a']['config'].get(k)} → {v}" for k, v in differing.items()) or "none")
        + ".",
        "",
        f"Each cell: A → B (B − A in ms, in %). **!** marks a difference beyond the noise floor "
        f"(≥ {result['noise_floor']['pct']:g} % and ≥ {result['noise_floor']['ms']:g} ms); "
        f"{result['significant']} cells are.",
        "",
        "| step | RPS | " + " | ".join(KEYS) + " |",
        "|" + "|".join(" --- " for _ in range(len(KEYS) + 2)) + "|",
    ]
    for row in [*result["steps"], result["overall"]]:
        rps = row["rps"]
        pct = "–" if rps.get("pct") is None else f"{rps['pct']:+g} %"  # no % of a step with 0 RPS
        rps_cell = "–" if rps.get("ms") is None else f"{rps['a']:g} → {rps['b']:g} ({pct})"
        lines.append(f"| {row['step']} | {rps_cell} | " + " | ".join(_cell(row[k]) for k in KEYS) + " |")
    cpu = result.get("cpu_ms_per_purchase")
    if cpu:
        lines += [
            "",
            "CPU ms per purchase, the whole run (each cell: A → B; **!** at ≥ "
            f"{result['noise_floor']['pct']:g} %):",
            "",
            "| " + " | ".join(CPU_KEYS) + " |",
            "|" + "|".join(" --- " for _ in CPU_KEYS) + "|",
            "| " + " | ".join(_cpu_cell(cpu[key]) for key in CPU_KEYS) + " |",
        ]
    else:
        lines += ["", "CPU per purchase: not compared (not measured in both runs)."]
    return "\n".join(lines) + "\n"


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
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    folder = Path(get("VAR_DIR")) / "runs" / f"{stamp}-compare"
    folder.mkdir(parents=True, exist_ok=True)
    text = markdown(result, argv[0], argv[1])
    (folder / "compare.json").write_text(json.dumps(result, indent=2))
    (folder / "compare.md").write_text(text)
    body = html.escape(text).replace("**!**", "<b>!</b>")
    (folder / "compare.html").write_text(
        f"<!doctype html><meta charset='utf-8'><title>comparison</title><pre>{body}</pre>"
    )
    print(text)
    print(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
