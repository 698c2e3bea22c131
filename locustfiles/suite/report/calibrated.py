"""Two runs' machines, as their calibrations tell them (common/calibration), for `make compare`.

This VM's speed drifts by more than the changes a comparison looks for (the same commit's order
took 4.4 ms of CPU, then 7.5 ms within the hour), so each run carries the machine's calibration
taken before its load and after it, and its CPU per purchase in that unit (cal). A comparison
says when the two runs' calibrations differ by more than calibration.DIFFER_PCT ("the machines
differed"), and judges CPU per purchase in cal where both runs have it: the milliseconds are
then shown, not judged.
"""

from typing import Final

from common import calibration
from locustfiles.suite.core.blocks import DASH, cell, fmt, section, table, text
from locustfiles.suite.core.summary import Summary
from locustfiles.suite.figures.cpu import KEYS as CPU_KEYS

FIGURE: Final = "cpu_cal_per_purchase"  # the summary's key, and the comparison's


def machines(a: Summary, b: Summary) -> dict | None:
    """Each run's calibration (its ms, the mean of the two it took), how far B's is from A's,
    and whether they differ beyond calibration.DIFFER_PCT; None unless both were calibrated."""
    ms_a, ms_b = _ms(a), _ms(b)
    if ms_a is None or ms_b is None:
        return None
    return {
        "a_ms": ms_a,
        "b_ms": ms_b,
        "change_pct": calibration.change_pct(ms_a, ms_b),
        "differ": calibration.differ(ms_a, ms_b),
    }


def _ms(summary: Summary) -> float | None:
    sitting = summary.get("calibration")
    return sitting["ms"] if sitting else None


def words(found: dict) -> str:
    """ "the machines differed: A calibrated at 4.41 ms, B at 5.20 ms (+17.9 %)", or that they
    did not."""
    said = (
        f"A calibrated at {found['a_ms']:.2f} ms, B at {found['b_ms']:.2f} ms ({found['change_pct']:+.1f} %)"
    )
    if found["differ"]:
        return f"the machines differed: {said}"
    return f"the machines' speeds were within {calibration.DIFFER_PCT:g} %: {said}"


def banner(result: dict) -> dict | None:
    """The banner above the figures when the two runs' machines differed."""
    found = result.get("machines")
    if not found or not found["differ"]:
        return None
    return section(
        "machines-differ",
        words(found)[0].upper() + words(found)[1:],
        text(
            "Each run calibrated the machine before its load and after it (the same fixed interpreter "
            "work and MariaDB statements; 1 cal is that calibration's CPU). Response times and CPU "
            "in ms are each machine's own: a change in them may be the machine's. CPU per purchase "
            "is judged in cal, which divides each machine's speed out."
        ),
    )


def summary_line(result: dict) -> str:
    """The CPU section's sentence on the runs' calibrations."""
    found = result.get("machines")
    if found:
        return words(found)[0].upper() + words(found)[1:] + "; CPU per purchase is judged in cal."
    return (
        "CPU per purchase is judged in ms: the two runs were not both calibrated (a run made before "
        "summary.json's schema_version 9 was not, nor one whose calibration failed)."
    )


def cal_cell(d: dict) -> dict:
    """A group's CPU per purchase in cal, A → B (B − A in %); only A → B when one is missing."""
    if d.get("a") is None or d.get("b") is None:
        missing = d.get("a") is None and d.get("b") is None
        return cell(None if missing else f"{fmt(d.get('a'))} → {fmt(d.get('b'))}", "text")
    pct = DASH if d.get("pct") is None else f"{fmt(d['pct'], '+g')} %"
    return cell(f"{fmt(d['a'])} → {fmt(d['b'])} ({pct})", "text", "significant" if d["significant"] else None)


def cal_table(found: dict, judged: str) -> dict:
    """CPU per purchase in cal, the whole run, A → B for each group."""
    caption = f"CPU per purchase in cal, the whole run (each cell: A → B, B − A in %; {judged}):"
    return table(list(CPU_KEYS), [[cal_cell(found[key]) for key in CPU_KEYS]], caption=caption)
