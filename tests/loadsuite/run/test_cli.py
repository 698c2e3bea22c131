"""`python -m locustfiles.suite.run`: bad sizes are refused before anything starts, for every
profile, with the profile's own words (the chaos profile's plan is its faults' registry's)."""

import pytest

from locustfiles.suite.run import cli


@pytest.mark.parametrize(
    "profile, sizes, message",
    [
        ("chaos", {"FAULTS": "lms_down meteor"}, "unknown fault meteor"),
        ("ramp", {"STEP_SECONDS": "0"}, "STEP_SECONDS must be at least 1"),
        ("profile", {"SAMPLE_HZ": "fast"}, "SAMPLE_HZ"),
    ],
)
def test_bad_sizes_are_refused_before_anything_starts(monkeypatch, capsys, profile, sizes, message):
    for key, value in sizes.items():
        monkeypatch.setenv(key, value)
    assert cli.main([profile]) == 2
    assert message in capsys.readouterr().err
