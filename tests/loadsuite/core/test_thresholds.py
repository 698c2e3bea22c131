"""k6-style thresholds."""

import pytest

from locustfiles.suite.core import thresholds


def test_parse_and_judge():
    parsed = thresholds.parse("p95<460 errors<0.01 missed<=0.01 rps>1")
    assert [str(t) for t in parsed] == ["p95<460", "errors<0.01", "missed<=0.01", "rps>1"]
    good = {"p95": 300, "errors": 0.0, "missed_rate": 0.01, "rps": 5}
    assert thresholds.judge(parsed, good)["passed"]
    bad = {**good, "p95": 461}
    result = thresholds.judge(parsed, bad)
    assert not result["passed"]
    assert [c["threshold"] for c in result["checks"] if not c["ok"]] == ["p95<460"]


def test_a_threshold_without_data_fails():
    assert not thresholds.judge(thresholds.parse("p95<460"), {"p95": None})["passed"]


@pytest.mark.parametrize("text", ["p95", "p95<<3", "latency<3", "p95<fast"])
def test_unreadable_thresholds_are_refused(text):
    with pytest.raises(ValueError, match="cannot read threshold"):
        thresholds.parse(text)


def test_no_thresholds_pass():
    assert thresholds.judge(thresholds.parse(""), {})["passed"]
