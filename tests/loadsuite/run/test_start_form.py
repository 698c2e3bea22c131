"""make run's start form refuses what the command line refuses, with the command line's own
message, before anything changes; and what cannot start from it says why. edX's 2015 client
picked in it runs with the form's values, its purchases recorded while its run lasts."""

import os
import sys
from types import SimpleNamespace

import pytest
from locust import argument_parser, events
from locust.env import Environment
from locust.event import Events
from locust.runners import STATE_RUNNING, STATE_STOPPED, MasterRunner

from locustfiles import learners
from locustfiles.suite import profiles
from locustfiles.suite.core import names
from locustfiles.suite.core import start_form as core_form
from locustfiles.suite.run import admission, cli, hooks, start_form


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
    def form_fields(*listeners) -> dict:
        """The arguments the suite adds to Locust's form."""
        parser = argument_parser.get_empty_argument_parser()
        locusts = set(parser.args_included_in_web_ui)
        for listener in listeners:
            listener(parser)
        return {name: a for name, a in parser.args_included_in_web_ui.items() if name not in locusts}

    assert form_fields(hooks._options) == {}  # another locustfile's web UI: Locust's own form
    monkeypatch.setenv("WAIT_MIN", "0.5")
    shown = form_fields(hooks._options, hooks.form_options)  # offer_profiles adds the second
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


def test_only_a_closed_models_learner_reads_the_think_time_at_its_first_wait():
    """The trial's item 3: an arrival comes when it is due, never after a think time, so an open
    model's run reads no WAIT_MIN (every locustfile imports learners.py, an open model's too);
    a closed model's run has it checked before it starts (run/admission.admit, the form's too)."""
    closed, arriving = learners.configured({"WAIT_MIN": "soon"})
    assert arriving.wait_time(None) == 0
    with pytest.raises(
        ValueError, match="^WAIT_MIN: expects a number of seconds from 0 to 3600; got 'soon'$"
    ):
        closed.wait_time(None)


def ready_form(taken: list) -> start_form.StartForm:
    """The form of make run's web UI with no test under way; its run notes what it takes."""
    run = SimpleNamespace(
        runner=SimpleNamespace(state=STATE_STOPPED),
        environment=Environment(events=Events()),
        profile=profiles.get("manual"),
        t0=None,
    )
    run.take = lambda profile, env, plan=None: taken.append((profile, env, plan))
    return start_form.StartForm(run, learners.configured)


EDX2015 = {"PROFILE": "edx2015", "USERS": "2", "DURATION": "6"}


def test_a_start_builds_its_plan_once_and_the_run_takes_the_plan_that_was_checked(monkeypatch):
    """The review's "the plan is built three times": a Start from the form builds it once, to
    check it (run/admission.py), and the run takes that one."""
    behaviour = type(profiles.get("rpm"))
    plan_of = behaviour.plan
    built: list = []
    monkeypatch.setattr(behaviour, "plan", lambda self, env: built.append(plan_of(self, env)) or built[-1])
    taken: list = []
    assert ready_form(taken).start({"PROFILE": "rpm", "RPM": "300", "DURATION": "10"}) is None
    [plan] = built
    assert taken == [("rpm", taken[0][1], plan)]
    assert [(step.target_rpm, step.seconds) for step in plan.steps] == [(300.0, 10)]


def test_edx2015_runs_the_2015_client_imported_afresh_with_each_starts_values():
    taken: list = []
    form = ready_form(taken)
    environment = form.run.environment
    before = dict(os.environ), list(sys.path)
    assert form.start({**EDX2015, "LOCUST_TASK_SET": "BasketsTasks", "EDX2015_WAIT_SCALE": "0.1"}) is None
    [user] = environment.user_classes
    assert user.__name__ == "EcommerceLocust"
    assert [task_set.__name__ for task_set in user.tasks] == ["BasketsTasks"]
    assert all(0.3 <= user.wait_time(None) <= 0.5 for _ in range(20))
    assert taken[-1][0] == "edx2015" and taken[-1][1]["LOCUST_TASK_SET"] == "BasketsTasks"
    assert isinstance(environment.shape_class, start_form.FormShape)
    assert environment.stop_timeout == admission.STOP_TIMEOUT
    assert (dict(os.environ), list(sys.path)) == before  # the form's values reached the import only
    # The next Start imports the client again, with its own values.
    assert form.start({**EDX2015, "LOCUST_TASK_SET": "CybersourcePaymentTasks"}) is None
    [again] = environment.user_classes
    assert [task_set.__name__ for task_set in again.tasks] == ["CybersourcePaymentTasks"]
    assert 3 <= again.wait_time(None) <= 5


def test_the_clients_purchases_are_recorded_from_its_start_until_its_run_stops():
    form = ready_form([])
    environment = form.run.environment
    recorded: list[str] = []
    environment.suite = SimpleNamespace(answered=lambda number, started: recorded.append(number))

    def purchase(number: str) -> None:
        answer = SimpleNamespace(status_code=201, json=lambda: {"order": {"number": number}})
        environment.events.request.fire(
            request_type="POST",
            name=names.FREE_PURCHASE,
            response_time=1,
            response_length=0,
            response=answer,
            exception=None,
            context={},
            start_time=1.0,
        )

    purchase("EDX-1")  # make run's learners record their own
    assert form.start(EDX2015) is None
    purchase("EDX-2")
    form.on_test_stop(environment)
    purchase("EDX-3")
    assert form.start(EDX2015) is None
    purchase("EDX-4")
    assert form.start({"PROFILE": "smoke"}) is None  # another run set up instead
    purchase("EDX-5")
    assert recorded == ["EDX-2", "EDX-4"]


@pytest.mark.parametrize(
    "source, refusal",
    [
        (None, "EDX2015_LOCUSTFILE names no file: {path}"),
        ("VALUE = 1\n", "EDX2015_LOCUSTFILE {path} has no user class for Locust to run"),
        (
            "raise RuntimeError('no client here')\n",
            "EDX2015_LOCUSTFILE {path} could not be loaded: RuntimeError: no client here",
        ),
    ],
)
def test_a_client_locustfile_that_cannot_be_loaded_is_refused_and_nothing_changes(
    monkeypatch, tmp_path, source, refusal
):
    path = tmp_path / "client.py"
    if source is not None:
        path.write_text(source)
    monkeypatch.setenv("EDX2015_LOCUSTFILE", str(path))
    before = dict(os.environ), list(sys.path)
    form = form_of()
    assert form.start(EDX2015) == refusal.format(path=path)
    assert (dict(os.environ), list(sys.path)) == before and form.recording is None


def test_a_distributed_web_ui_refuses_edx2015_before_it_imports_anything(monkeypatch, tmp_path):
    """Its workers loaded make run's learners: the client would run nowhere."""
    client = tmp_path / "client.py"
    client.write_text("raise RuntimeError('imported')\n")
    monkeypatch.setenv("EDX2015_LOCUSTFILE", str(client))
    form = form_of()
    form.run.runner = object.__new__(MasterRunner)  # a master's runner, never started
    form.run.runner.state, form.run.runner.greenlet = STATE_STOPPED, None
    assert form.start(EDX2015) == (
        "a distributed web UI runs the manual profile only (its workers loaded make run's "
        "learners): use make edx2015 WORKERS=N"
    )


def test_a_task_set_the_client_does_not_have_is_refused_with_its_error():
    refusal = form_of().start({**EDX2015, "LOCUST_TASK_SET": "NoSuchTasks"})
    assert refusal.startswith("EDX2015_LOCUSTFILE ") and refusal.endswith(
        "could not be loaded: KeyError: 'NoSuchTasks'"
    )


def test_a_client_whose_helpers_live_beside_its_folder_reads_each_starts_values(monkeypatch, tmp_path):
    """As edX's own client is laid out: a helper module outside the locustfile's folder, found
    through a sys.path entry the client adds, reads the environment when it is imported."""
    (tmp_path / "helpers").mkdir()
    (tmp_path / "helpers" / "form_client_helper_2015.py").write_text(
        "import os\nSCALE = float(os.environ['EDX2015_WAIT_SCALE'])\n"
    )
    (tmp_path / "ecommerce").mkdir()
    (tmp_path / "ecommerce" / "locustfile.py").write_text(
        "import os, sys\n"
        "sys.path.append(os.path.join(os.path.dirname(os.path.dirname(__file__)), 'helpers'))\n"
        "from form_client_helper_2015 import SCALE\n"
        "from locust import HttpUser, constant, task\n"
        "class Client(HttpUser):\n"
        "    wait_time = constant(SCALE)\n"
        "    @task\n"
        "    def nothing(self):\n"
        "        pass\n"
    )
    monkeypatch.setenv("EDX2015_LOCUSTFILE", str(tmp_path / "ecommerce" / "locustfile.py"))
    form = ready_form([])
    waits = []
    for scale in ("0.1", "0.2"):
        assert form.start({**EDX2015, "EDX2015_WAIT_SCALE": scale}) is None
        waits += [user.wait_time(None) for user in form.run.environment.user_classes]
    assert waits == [0.1, 0.2]


def test_offering_the_profiles_adds_the_form_and_hands_the_learners_to_the_run():
    """What buy_seat.py's offer_profiles does to Locust's events, the only state it changes:
    the form's fields join the parser and the run object is made with the learners."""
    init_before = list(events.init._handlers)
    try:
        hooks.offer_profiles(learners.configured)
        options = argument_parser.get_parser().parse_args([])
        assert options.PROFILE == "manual" and hasattr(options, "RPM")
        (offered,) = [h for h in events.init._handlers if h not in init_before]
        assert offered.func is hooks._init and offered.keywords == {"learners": learners.configured}
        assert hooks._init not in events.init._handlers
    finally:
        events.init_command_line_parser.remove_listener(hooks.form_options)
        events.init._handlers[:] = init_before
