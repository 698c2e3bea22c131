"""`python -m locustfiles.suite.run`: bad sizes are refused before anything starts, for every
profile, with the profile's own words (the chaos profile's plan is its faults' registry's)."""

import pytest

from locustfiles.suite.run import cli


@pytest.mark.parametrize(
    "profile, sizes, message",
    [
        ("chaos", {"FAULTS": "lms_down meteor"}, "unknown fault meteor"),
        (
            "ramp",
            {"STEP_SECONDS": "0"},
            "error: STEP_SECONDS: expects a whole number of seconds from 1 to 86400; got '0'",
        ),
        (
            "profile",
            {"SAMPLE_HZ": "fast"},
            "error: SAMPLE_HZ: expects a whole number of samples a second from 1 to 1000",
        ),
        (
            "ramp",
            {"WORKERS": "two"},
            "error: WORKERS: expects a whole number of Locust worker processes from 0 to 64; got 'two'",
        ),
        (
            "ramp",
            {"WORKERS": "-1"},
            "error: WORKERS: expects a whole number of Locust worker processes from 0 to 64; got '-1'",
        ),
        (
            "chaos",
            {"FAULT_SECONDS": "ten"},
            "error: FAULT_SECONDS: expects a whole number of seconds from 1 to 86400; got 'ten'",
        ),
        (
            "rpm",
            {"RPM": "inf"},
            "error: RPM: expects a number of purchases a minute from 1 to 60000; got 'inf'",
        ),
        (
            "rpm",
            {"RPM": "1e15"},
            "error: RPM: expects a number of purchases a minute from 1 to 60000; got '1e15'",
        ),
        (
            "smoke",
            {"USERS": "2 x"},
            "error: USERS: expects up to 100 whole numbers of users, each from 1 to 10000",
        ),
        ("soak", {"HOURS": "1000000", "BUCKET_SECONDS": "1"}, "error: HOURS: expects a number of hours"),
        (
            "soak",
            {"HOURS": "700", "BUCKET_SECONDS": "1"},
            "error: BUCKET_SECONDS: HOURS 700 in buckets of 1 s make",
        ),
        ("capacity", {"RPM_START": "1", "RPM_STEP": "1", "RPM_MAX": "1e9"}, "error: RPM_MAX: expects"),
        (
            "capacity",
            {"RPM_START": "1", "RPM_STEP": "1", "RPM_MAX": "60000"},
            "error: RPM_STEP: from 1 to 60000 by 1",
        ),
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
