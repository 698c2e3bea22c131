"""make compare across the machine's drift (report/calibrated.py): it says when the two runs'
calibrations differ by more than 10 %, and judges CPU per purchase in calibration units where
both runs calibrated the machine, the milliseconds then shown unjudged."""

from locustfiles.suite.report import compare
from tests.loadsuite import synthetic


def cpu_runs(a_ms: float, b_ms: float, b_slower: float = 1.0, b_code: float = 1.0) -> tuple[dict, dict]:
    """Two runs calibrated at ``a_ms`` and ``b_ms``, B's CPU ms per purchase A's times
    ``b_slower`` (the machine) times ``b_code`` (the code), over purchases enough to judge."""
    a, b = synthetic.cpu_summary(), synthetic.cpu_summary()
    b["cpu_ms_per_purchase"] = {
        key: None if value is None else value * b_slower * b_code
        for key, value in a["cpu_ms_per_purchase"].items()
    }
    for run in (a, b):
        run["cpu_accounting"]["purchases"] = 1000
    return synthetic.calibrated(a, a_ms), synthetic.calibrated(b, b_ms)


def section(result: dict, name: str) -> str:
    text = compare.markdown(result, "a", "b")
    return text.split(f"## {name}")[1].split("\n## ")[0]


def test_a_slower_machine_is_named_and_its_cpu_judged_in_cal_not_ms():
    # The case: the same code, the machine 70 % slower (4.4 → 7.5 ms an order).
    a, b = cpu_runs(4.4, 7.48, b_slower=1.7)
    result = compare.compare(a, b)
    assert result["machines"] == {"a_ms": 4.4, "b_ms": 7.48, "change_pct": 70.0, "differ": True}
    text = compare.markdown(result, "a", "b")
    assert "## The machines differed: A calibrated at 4.40 ms, B at 7.48 ms (+70.0 %)" in text
    assert text.index("## The machines differed") < text.index("## The runs")
    # In ms every group is 70 % dearer; in cal nothing changed, and nothing is called significant.
    ecommerce = result["cpu_ms_per_purchase"]["ecommerce"]
    assert ecommerce["pct"] == 70.0 and not ecommerce["significant"]
    in_cal = result["cpu_cal_per_purchase"]
    assert in_cal["services"]["pct"] == 0.0
    assert not any(d["significant"] for d in [*in_cal.values(), *result["cpu_ms_per_purchase"].values()])
    cpu = section(result, "CPU per purchase over the run (ms of CPU)")
    assert "The machines differed: A calibrated at 4.40 ms, B at 7.48 ms (+70.0 %); CPU per purchase " in cpu
    assert "CPU per purchase in cal, the whole run (each cell: A → B, B − A in %; ! at ≥ 10 %" in cpu
    assert "CPU ms per purchase, the whole run (each cell: A → B; not judged: in cal above):" in cpu
    assert "**!**" not in cpu


def test_a_dearer_commit_on_a_machine_as_fast_is_judged_in_cal():
    a, b = cpu_runs(4.4, 4.5, b_code=1.5)
    result = compare.compare(a, b)
    assert result["machines"]["differ"] is False
    text = compare.markdown(result, "a", "b")
    assert "The machines differed" not in text
    cpu = section(result, "CPU per purchase over the run (ms of CPU)")
    assert "The machines' speeds were within 10 %: A calibrated at 4.40 ms, B at 4.50 ms (+2.3 %)" in cpu
    services = result["cpu_cal_per_purchase"]["services"]
    assert services["significant"] and services["pct"] == round((1.5 * 4.4 / 4.5 - 1) * 100, 1)
    assert f"| {services['a']:g} → {services['b']:g} ({services['pct']:+g} %) **!** |" in cpu
    assert not any(d["significant"] for d in result["cpu_ms_per_purchase"].values())


def test_a_machine_that_slowed_within_a_run_moves_its_unit_to_the_mean():
    a, b = cpu_runs(4.0, 4.0)
    b = synthetic.calibrated(b, 4.0, 5.0)  # B's machine slowed by a quarter during its load
    result = compare.compare(a, b)
    assert result["machines"] == {"a_ms": 4.0, "b_ms": 4.5, "change_pct": 12.5, "differ": True}


def test_without_a_calibration_in_both_runs_cpu_is_judged_in_ms_as_before():
    a, b = cpu_runs(4.4, 4.4, b_code=1.5)
    del a["calibration"], a["cpu_cal_per_purchase"]  # a run from before issue 45
    result = compare.compare(a, b)
    assert result["machines"] is None and result["cpu_cal_per_purchase"] is None
    assert result["cpu_ms_per_purchase"]["services"]["significant"]
    cpu = section(result, "CPU per purchase over the run (ms of CPU)")
    assert "CPU per purchase is judged in ms: the two runs were not both calibrated" in cpu
    assert "in cal" not in cpu.replace("judged in ms", "")
