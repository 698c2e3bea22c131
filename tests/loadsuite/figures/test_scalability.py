"""The Universal Scalability Law fitted to a capacity run's steps: the fit recovers known
parameters from points made with them, refuses what cannot determine them, says when no peak is
predicted, and the report, the terminal and the findings put the prediction beside the measured
capacity (no Locust, no stack)."""

import math

import numpy as np
import pytest

from locustfiles.suite import profiles, report
from locustfiles.suite.figures import scalability
from locustfiles.suite.report import terminal
from locustfiles.suite.verdict import findings
from tests.loadsuite import synthetic

N = np.array([0.5, 1, 2, 4, 8, 12, 16, 24, 32, 48])


def test_the_fit_recovers_the_parameters_the_points_were_made_with():
    x = scalability.usl(N, 600.0, 0.05, 0.002)
    found = scalability.fit(N, x)
    assert (found["lam"], found["sigma"], found["kappa"]) == pytest.approx((600.0, 0.05, 0.002), rel=1e-6)
    assert found["free"] == ["sigma", "kappa"] and found["sse"] < 1e-12
    n_star, peak = scalability.peak(found["lam"], found["sigma"], found["kappa"])
    assert n_star == pytest.approx(math.sqrt(0.95 / 0.002), rel=1e-6)
    assert peak == pytest.approx(scalability.usl(n_star, 600.0, 0.05, 0.002), rel=1e-6)


def test_the_fit_recovers_them_through_measurement_noise():
    x = scalability.usl(N, 600.0, 0.05, 0.002)
    noisy = x * (1 + np.random.default_rng(7).normal(0, 0.02, len(x)))  # 2 %, like two runs apart
    found = scalability.fit(N, noisy)
    assert found["lam"] == pytest.approx(600.0, rel=0.07)
    assert found["sigma"] == pytest.approx(0.05, abs=0.02)
    assert found["kappa"] == pytest.approx(0.002, rel=0.2)
    _, peak = scalability.peak(found["lam"], found["sigma"], found["kappa"])
    assert peak == pytest.approx(scalability.peak(600.0, 0.05, 0.002)[1], rel=0.03)


def test_points_on_a_bound_keep_it_exactly():
    # Amdahl (no coherency cost): κ is 0, not 1e-19, and no peak is predicted.
    found = scalability.fit(N, scalability.usl(N, 500.0, 0.1, 0.0))
    assert found["kappa"] == 0.0 and found["sigma"] == pytest.approx(0.1, rel=1e-6)
    assert scalability.peak(found["lam"], found["sigma"], found["kappa"]) == (None, None)
    # Linear scaling: neither contention nor coherency.
    found = scalability.fit(N, 300.0 * N)
    assert (found["lam"], found["sigma"], found["kappa"]) == (pytest.approx(300.0), 0.0, 0.0)
    # Pure coherency cost: σ held at 0, κ recovered.
    found = scalability.fit(N, scalability.usl(N, 500.0, 0.0, 0.01))
    assert found["sigma"] == 0.0 and found["kappa"] == pytest.approx(0.01, rel=1e-6)


def test_points_that_cannot_determine_three_parameters_are_refused():
    with pytest.raises(scalability.Degenerate, match="fewer than 3 distinct concurrencies"):
        scalability.fit([2.0, 2.0, 4.0], [100.0, 101.0, 150.0])
    with pytest.raises(scalability.Degenerate, match="above 0"):
        scalability.fit([1.0, 2.0, 0.0], [100.0, 150.0, 10.0])
    # Throughput falling as concurrency grows from the start: σ cannot exceed 1, and the best fit
    # inside the bounds is found rather than an impossible one.
    found = scalability.fit([1.0, 2.0, 4.0, 8.0], [100.0, 60.0, 30.0, 10.0])
    assert 0.0 <= found["sigma"] <= 1.0 and found["kappa"] >= 0.0 and found["lam"] > 0


def rows_from(n_values, x_values, seconds=60) -> list[dict]:
    """Capacity steps whose order endpoint made the points: rps × mean = N, 2xx per minute = X."""
    rows = []
    for i, (n, x) in enumerate(zip(n_values, x_values, strict=True)):
        answered = round(x * seconds / 60)
        rps = answered / seconds
        rows.append(
            {
                "index": i,
                "label": f"{300 * (i + 1)} RPM",
                "target_rpm": 300.0 * (i + 1),
                "seconds": seconds,
                "rps": rps,
                "mean": 1000 * n / rps,
                "statuses": {"201": answered},
            }
        )
    return rows


def test_a_steps_point_is_its_concurrency_by_littles_law_and_its_answered_rate():
    row = {"label": "600 RPM", "target_rpm": 600, "seconds": 60, "rps": 10.0, "mean": 250.0}
    row["statuses"] = {"201": 570, "202": 10, "503": 20}
    assert scalability.point(row) == {"label": "600 RPM", "target_rpm": 600, "n": 2.5, "x_rpm": 580.0}
    assert scalability.point({**row, "statuses": {"503": 600}}) is None  # no purchase completed
    assert scalability.point({**row, "mean": None, "rps": None}) is None


def test_the_analysis_states_the_predicted_peak_beside_the_measured_capacity():
    n = [0.5, 1.5, 3, 6, 10, 16, 30]
    found = scalability.analyse(rows_from(n, scalability.usl(np.array(n), 600.0, 0.05, 0.004)), 2100)
    assert found["fitted"] and found["measured_capacity_rpm"] == 2100
    assert found["lambda_rpm"] == pytest.approx(600.0, rel=0.01)
    assert found["sigma"] == pytest.approx(0.05, abs=0.005)
    assert found["kappa"] == pytest.approx(0.004, rel=0.05)
    assert found["n_star"] == pytest.approx(math.sqrt(0.95 / 0.004), rel=0.05)
    assert found["peak_rpm"] == pytest.approx(scalability.peak(600.0, 0.05, 0.004)[1], rel=0.01)
    assert found["r_squared"] > 0.999 and len(found["fitted_rpm"]) == len(n)
    assert found["caveats"] == []  # the peak lies among the steps, seven points for three parameters
    params = f"λ {found['lambda_rpm']:g} RPM, σ {found['sigma']:g}, κ {found['kappa']:g}"
    assert scalability.words(found) == (
        f"USL ({params}): predicted peak {found['peak_rpm']:g} RPM at N* = {found['n_star']:g} purchases "
        "in flight; measured capacity 2100 RPM"
    )


def test_the_analysis_says_why_it_predicts_no_peak_or_did_not_fit():
    few = scalability.analyse(rows_from([1, 2], [100, 190]), 600)
    assert not few["fitted"] and "lambda_rpm" not in few
    assert (
        few["not_fitted"] == "2 steps completed purchases, and the model's three parameters need at least 3"
    )
    assert scalability.words(few) == (
        "USL not fitted (2 steps completed purchases, and the model's three parameters need at least 3); "
        "measured capacity 600 RPM"
    )
    alike = scalability.analyse(rows_from([2, 2, 2], [100, 101, 99]), None)
    assert alike["not_fitted"] == "fewer than 3 distinct concurrencies"

    n = [0.5, 1, 2, 4, 8]
    amdahl = scalability.analyse(rows_from(n, scalability.usl(np.array(n), 600.0, 0.2, 0.0)), 1500)
    assert (
        amdahl["fitted"] and amdahl["kappa"] == 0 and (amdahl["n_star"], amdahl["peak_rpm"]) == (None, None)
    )
    assert amdahl["ceiling_rpm"] == pytest.approx(3000, rel=0.01)
    assert amdahl["caveats"][0].startswith(
        "No peak predicted within the model: the fit found no coherency cost"
    )
    assert "no peak predicted within the model; measured capacity 1500 RPM" in scalability.words(amdahl)

    # Still climbing at the last step: the peak is beyond what was measured, and said to be.
    n = [0.5, 1, 2, 3]
    climbing = scalability.analyse(rows_from(n, scalability.usl(np.array(n), 600.0, 0.05, 0.004)), 1200)
    assert climbing["n_star"] > 3
    assert climbing["caveats"][:1] == [
        f"The peak is an extrapolation: N* = {climbing['n_star']:g} lies beyond the highest concurrency "
        "measured (3).",
    ]
    # Steps below the knee scale linearly: σ and κ stay at 0, λ alone is fitted (two steps to
    # spare, so no "only N steps" caveat), and the caveat says the steps showed no contention.
    n = [0.4, 0.8, 1.2]
    linear = scalability.analyse(rows_from(n, [120.0 * v / 0.4 for v in n]), 360)
    assert linear["parameters_fitted"] == 1 and (linear["sigma"], linear["kappa"]) == (0, 0)
    assert linear["caveats"] == [
        "No peak predicted within the model: the fit found no coherency cost (κ = 0), so throughput "
        "does not turn down as concurrency grows and the steps show no contention either (σ = 0): "
        "they stayed below the knee."
    ]
    # As many steps as parameters fitted: the curve passes through them and checks nothing.
    n = [1, 2, 3]
    exact = scalability.analyse(rows_from(n, [100.0, 180.0, 240.0]), 1200)
    assert exact["parameters_fitted"] == 3 and exact["rmse_rpm"] == 0
    assert "Only 3 steps for 3 fitted parameters: the curve passes through them" in exact["caveats"][-1]
    # Four steps, three parameters: one to spare.
    n = [0.5, 1, 2, 4]
    spare = scalability.analyse(rows_from(n, scalability.usl(np.array(n), 600.0, 0.1, 0.05)), 1200)
    assert spare["parameters_fitted"] == 3
    assert spare["caveats"][-1].startswith("Only 4 steps for 3 fitted parameters: one step's worth checks")


def capacity_summary(n, x, capacity=2100) -> dict:
    p, recorder, _, log = synthetic.recorded("capacity", {"RPM": "600 1200 1800", "STEP_SECONDS": "10"})
    summary = synthetic.summary_for(p, recorder, {"profile_sections": ["capacity"]}, log=log)
    summary["capacity_rpm"] = capacity
    summary["scalability"] = scalability.analyse(rows_from(n, x), capacity)
    return summary


def test_a_capacity_run_is_judged_with_its_scalability():
    p, recorder, _, _ = synthetic.recorded("capacity", {"RPM": "600 1200 1800", "STEP_SECONDS": "10"})
    summary = synthetic.summary_for(p, recorder, {"profile_sections": ["capacity"]})
    capacity = profiles.get("capacity")
    summary.update(capacity.figures(summary, []))
    assert capacity.judge(summary, [])[1] == []
    found = summary["scalability"]
    assert found["measured_capacity_rpm"] == summary["capacity_rpm"] == 1800
    assert [pt["label"] for pt in found["points"]] == ["600 RPM", "1200 RPM", "1800 RPM"]
    row = summary["steps"][0]
    assert found["points"][0]["n"] == round(row["rps"] * row["mean"] / 1000, 3)


def test_the_capacity_report_shows_the_fit_its_plot_and_the_terminal_its_line(tmp_path):
    n = [0.5, 1.5, 3, 6, 10, 16, 30]
    summary = capacity_summary(n, scalability.usl(np.array(n), 600.0, 0.05, 0.004))
    found = summary["scalability"]
    report.write(summary, tmp_path)
    text = (tmp_path / "report.md").read_text()
    part = text.split("## Capacity")[1].split("\n## ")[0]
    assert scalability.words(found) + "." in part
    assert "N is each step's mean concurrency by Little's law" in part
    assert f"| predicted peak RPM, X(N*) | {found['peak_rpm']:g} |" in part
    assert "| measured capacity RPM | 2100 |" in part
    assert "| step | target RPM | N (in flight) | X measured (RPM) | X fitted (RPM) |" in part
    assert (tmp_path / "scalability.png").stat().st_size > 0
    assert scalability.words(found) in terminal.lines(summary)
    said = [f["text"] for f in findings.findings(summary) if "Universal Scalability Law" in f["text"]]
    params = f"λ {found['lambda_rpm']:g} RPM, σ {found['sigma']:g}, κ {found['kappa']:g}"
    assert said == [
        f"The Universal Scalability Law fitted to the steps ({params}) predicts a peak of "
        f"{found['peak_rpm']:g} RPM at {found['n_star']:g} purchases in flight, against 2100 RPM measured."
    ]


def test_a_capacity_report_without_a_fit_says_why_and_draws_no_curve(tmp_path):
    summary = capacity_summary([1, 2], [100, 190], capacity=600)
    report.write(summary, tmp_path)
    part = (tmp_path / "report.md").read_text().split("## Capacity")[1].split("\n## ")[0]
    assert part.count("2 steps completed purchases") == 1  # said once: "USL not fitted (…)"
    assert "USL not fitted (2 steps completed purchases" in part and "⚠" not in part
    assert "| Universal Scalability Law |" not in part and not (tmp_path / "scalability.png").exists()
    said = [f["text"] for f in findings.findings(summary) if "Universal Scalability Law" in f["text"]]
    assert said == [
        "The Universal Scalability Law was not fitted to the steps: 2 steps completed purchases, and the "
        "model's three parameters need at least 3."
    ]
