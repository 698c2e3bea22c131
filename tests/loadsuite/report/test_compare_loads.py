"""Issue 43, item 5: a comparison that cannot mislead. A change is significant only where both
runs have samples enough for that percentile (never p100)."""

from locustfiles.suite.figures.results import thin
from locustfiles.suite.report import compare
from tests.loadsuite import synthetic


def run(profile: str, env: dict, requests: int = 3000, seed: int = 3, slow_after=None) -> dict:
    """A synthetic run of ``profile`` from ``env``, with the settings such a run records."""
    p, recorder, _, log = synthetic.recorded(
        profile, env, seed=seed, requests=requests, slow_after=slow_after
    )
    summary = synthetic.summary_for(p, recorder, log=log, machine_cpu=150.0)
    return synthetic.with_settings(summary, env)


def test_a_change_is_significant_only_where_both_runs_have_samples_enough():
    # The same load; B five times slower from the start, on fewer requests.
    a = run("ramp", {"USERS": "1 2 3", "STEP_SECONDS": "10"}, requests=3000)
    b = run("ramp", {"USERS": "1 2 3", "STEP_SECONDS": "10"}, requests=300, seed=4, slow_after=0.001)
    result = compare.compare(a, b)
    for row_a, row_b, found in zip(a["steps"], b["steps"], result["steps"], strict=True):
        supported = {k for k in compare.KEYS if k not in {*thin(row_a["requests"]), *thin(row_b["requests"])}}
        assert supported and "p99" not in supported  # about 100 requests a step in B
        for key in compare.KEYS:
            beyond = abs(found[key]["pct"]) >= 10 and abs(found[key]["ms"]) >= 5
            assert found[key]["significant"] == (beyond and key in supported and key != "p100"), key
        assert found["p50"]["significant"] and not found["p100"]["significant"]
        assert found["p100"]["thin"] and found["p100"]["pct"] > 100


def test_p100_is_never_significant_even_on_thousands_of_requests():
    a = run("ramp", {"USERS": "1 2 3", "STEP_SECONDS": "10"})
    b = run("ramp", {"USERS": "1 2 3", "STEP_SECONDS": "10"}, slow_after=20)
    last = compare.compare(a, b)["steps"][-1]
    assert last["p99"]["significant"] and last["p100"]["pct"] > 100
    assert not last["p100"]["significant"] and last["p100"]["thin"]
