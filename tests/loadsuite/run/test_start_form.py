"""make run's start form refuses what the command line refuses, with the command line's own
message, before anything changes; and what cannot start from it says why."""

from types import SimpleNamespace

import pytest
from locust.runners import STATE_RUNNING, STATE_STOPPED

from locustfiles.suite import profiles
from locustfiles.suite.run import cli, start_form


def form_of(state=STATE_STOPPED, current="manual", t0=None) -> start_form.StartForm:
    """The form of a run that is ``current``'s, its runner in ``state``."""
    run = SimpleNamespace(runner=SimpleNamespace(state=state), profile=profiles.get(current), t0=t0)
    run.take = lambda *args: pytest.fail("a refused start changed the run")
    return start_form.StartForm(run, learners=lambda env: pytest.fail("a refused start made learners"))


@pytest.mark.parametrize(
    "profile, values",
    [
        ("rpm", {"RPM": "fast"}),
        ("rpm", {"DURATION": "0"}),
        ("ramp", {"STEP_SECONDS": "0"}),
        ("capacity", {"RPM_STEP": "-5"}),
        ("overload", {}),
        ("chaos", {"FAULTS": "lms_down meteor"}),
        ("profile", {"SAMPLE_HZ": "5000"}),
        ("smoke", {"THRESHOLDS": "p95<<3"}),
        ("smoke", {"BUY_WEIGHT": "0", "PAY_WEIGHT": "0"}),
        ("smoke", {"WAIT_MIN": "soon"}),
        ("smoke", {"PRELOAD": "lots"}),
    ],
)
def test_a_bad_value_is_refused_with_the_command_lines_message(monkeypatch, capsys, profile, values):
    refusal = form_of().start({"PROFILE": profile, **values})
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(cli, "_prepare", lambda *args: pytest.fail("a bad value reached the stack"))
    assert cli.main([profile]) == 2
    assert capsys.readouterr().err == f"error: {refusal}\n"


def test_a_profile_make_run_cannot_load_is_refused_with_the_reason():
    assert "make edx2015" in form_of().start({"PROFILE": "edx2015"})


def test_no_other_profile_starts_while_a_run_is_under_way_or_writing_its_report():
    assert form_of(STATE_RUNNING, "rpm").start({"PROFILE": "ramp"}) == (
        "a rpm run is under way: stop it before starting another"
    )
    assert "still writing its report" in form_of(STATE_STOPPED, "rpm", t0=1.0).start({"PROFILE": "rpm"})
    # The form of a manual run under way changes its users: Locust's own /swarm does that.
    assert form_of(STATE_RUNNING, "manual").start({"PROFILE": "manual"}) is None
