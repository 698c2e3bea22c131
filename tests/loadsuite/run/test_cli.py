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
        ("ramp", {"WORKERS": "two"}, "WORKERS must be a whole number, not 'two'"),
        ("ramp", {"WORKERS": "-1"}, "WORKERS must be 0 or more"),
        ("chaos", {"FAULT_SECONDS": "ten"}, "FAULT_SECONDS must be a whole number, not 'ten'"),
    ],
)
def test_bad_sizes_are_refused_before_anything_starts(monkeypatch, capsys, profile, sizes, message):
    for key, value in sizes.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(cli, "_prepare", _no_stack)
    assert cli.main([profile]) == 2
    assert message in capsys.readouterr().err


def _no_stack(*args):
    raise AssertionError("a bad size reached the stack's start")
