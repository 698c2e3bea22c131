"""make run's start form refuses what the command line refuses, with the command line's own
message, before anything changes; and what cannot start from it says why."""

import os
from types import SimpleNamespace

import pytest
from locust import argument_parser
from locust.runners import STATE_RUNNING, STATE_STOPPED

from locustfiles import learners
from locustfiles.suite import profiles
from locustfiles.suite.core import start_form as core_form
from locustfiles.suite.run import cli, hooks, start_form


def form_of(state=STATE_STOPPED, current="manual", t0=None) -> start_form.StartForm:
    """The form of a run that is ``current``'s, its runner in ``state``."""
    run = SimpleNamespace(
        runner=SimpleNamespace(state=state),
        environment=SimpleNamespace(stop_timeout=0.0),
        profile=profiles.get(current),
        t0=t0,
    )
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


def test_locusts_form_gets_the_fields_with_their_defaults_once_a_locustfile_offers_the_profiles(
    monkeypatch,
):
    def form_fields() -> dict:
        """The arguments the suite adds to Locust's form."""
        parser = argument_parser.get_empty_argument_parser()
        locusts = set(parser.args_included_in_web_ui)
        hooks._options(parser)
        return {name: a for name, a in parser.args_included_in_web_ui.items() if name not in locusts}

    assert form_fields() == {}  # another locustfile's web UI: Locust's own form
    monkeypatch.setitem(hooks.OFFERED, "learners", learners.configured)
    monkeypatch.setenv("WAIT_MIN", "0.5")
    shown = form_fields()
    fields = core_form.fields(os.environ)
    assert list(shown) == [field.name for field in fields]  # in this order: the profile first
    assert {name: (action.default, action.help, action.choices) for name, action in shown.items()} == {
        field.name: (field.default, field.help, field.choices) for field in fields
    }
    assert shown["WAIT_MIN"].default == "0.5"


def test_the_learners_of_a_form_run_take_its_think_time_mix_and_courses():
    closed, arriving = learners.configured(
        {
            "WAIT_MIN": "0",
            "WAIT_MAX": "0.5",
            "BUY_WEIGHT": "1",
            "PAY_WEIGHT": "0",
            "READ_WEIGHT": "2",
            "COURSES": "1",
        }
    )
    assert (closed.__name__, arriving.__name__) == ("Learner", "ArrivingLearner")
    assert closed.tasks.count(learners.LearnerJourney.buy_seat) == 1
    assert closed.tasks.count(learners.LearnerJourney.read_order) == 2
    assert learners.LearnerJourney.pay_for_seat not in closed.tasks
    assert 0 <= closed.wait_time(None) <= 0.5
    assert len(arriving.mix.courses) == len(closed.mix.courses) == 1
    assert arriving.mix.weights == {"buy": 1, "pay": 0, "read": 2}
    # The module's own classes keep make run's settings.
    assert learners.Learner.mix == learners.LearnerJourney.mix != closed.mix
