"""make run's start form: its fields are the catalogue's variables with the catalogue's
defaults, and its answer is the environment `make <profile>` would have run with."""

import pytest

from common.environment import variable
from locustfiles.suite.core import catalogue, learner_settings, start_form


def by_name(env=None) -> dict[str, start_form.Field]:
    return {field.name: field for field in start_form.fields(env or {})}


def test_the_profile_field_offers_manual_and_every_profile_a_make_target_runs():
    field = by_name()["PROFILE"]
    assert field.choices == (
        "manual",
        "smoke",
        "ramp",
        "rpm",
        "capacity",
        "overload",
        "soak",
        "chaos",
        "edx2015",
        "profile",
    )
    assert field.default == "manual"
    assert by_name({"PROFILE": "rpm"})["PROFILE"].default == "rpm"


def test_the_size_fields_are_exactly_the_variables_the_profiles_take():
    taken = {key for name in catalogue.RUNNABLE for key in catalogue.get(name).defaults}
    fields = by_name()
    assert set(fields) - {"PROFILE", *start_form.SHARED, *start_form.client_settings()} == taken
    for name in taken:
        variable(name)  # each one is a variable of the environment's table
        assert fields[name].default == ""  # empty: the picked profile's default


@pytest.mark.parametrize("profile", catalogue.RUNNABLE)
def test_each_size_fields_help_gives_each_profiles_own_default_and_no_other(profile):
    fields = by_name()
    entry = catalogue.get(profile)
    for key in fields:
        if key == "PROFILE" or key in start_form.SHARED or key in start_form.client_settings():
            continue
        shown = fields[key].help.removeprefix("empty: ").split(", ")
        mine = [text for text in shown if text.split(" ")[0] == profile]
        if key in entry.defaults:
            assert mine == [f"{profile} {entry.defaults[key] or entry.unset.get(key, 'unset')}"]
        else:
            assert mine == []


def test_the_catalogues_defaults_read_in_the_help_as_make_help_prints_them():
    fields = by_name()
    assert "rpm 78" in fields["RPM"].help and "soak 1038" in fields["RPM"].help
    assert "overload 1.5 × CAPACITY_RPM" in fields["RPM"].help
    assert fields["USERS"].help == "empty: smoke 2, ramp 1 2 3 4 5 6 7 8 9 10, edx2015 10"
    assert fields["THRESHOLDS"].help.startswith("empty: the profile's, errors<0.01 (smoke, ramp); p95<460")


def test_the_2015_clients_settings_are_fields_with_the_tables_meaning_and_default():
    assert start_form.client_settings() == ["LOCUST_TASK_SET", "EDX2015_WAIT_SCALE"]
    fields = by_name()
    assert fields["LOCUST_TASK_SET"].help == (
        "read by edx2015: edX 2015 client: EcommerceTest (free 50 : paid 1), BasketsTasks or "
        "CybersourcePaymentTasks; empty: EcommerceTest"
    )
    assert fields["EDX2015_WAIT_SCALE"].help.startswith("read by edx2015: ours: a factor on")
    assert fields["EDX2015_WAIT_SCALE"].help.endswith("; empty: 1")
    assert fields["LOCUST_TASK_SET"].default == ""
    assert by_name({"LOCUST_TASK_SET": "BasketsTasks"})["LOCUST_TASK_SET"].default == "BasketsTasks"
    # Left empty, the client's own default applies, whatever make run was started with.
    _, env = start_form.run_environment(
        {"LOCUST_TASK_SET": "BasketsTasks"}, {"PROFILE": "edx2015", "EDX2015_WAIT_SCALE": "0.1"}
    )
    assert "LOCUST_TASK_SET" not in env and env["EDX2015_WAIT_SCALE"] == "0.1"


def test_the_learners_fields_default_to_the_tables_values_or_the_environments():
    fields = by_name()
    assert {name: fields[name].default for name in learner_settings.LOAD_DEFAULTS} == {
        "WAIT_MIN": "3",
        "WAIT_MAX": "5",
        "BUY_WEIGHT": "50",
        "PAY_WEIGHT": "1",
        "READ_WEIGHT": "5",
    }
    assert [fields[name].default for name in ("COURSES", "PRELOAD", "THRESHOLDS")] == ["", "", ""]
    assert by_name({"WAIT_MIN": "0.5", "COURSES": "1"})["WAIT_MIN"].default == "0.5"
    assert by_name({"COURSES": "1"})["COURSES"].default == "1"


def test_the_forms_answer_is_the_environment_make_would_run_with():
    form = {"PROFILE": "rpm", "RPM": "300", "DURATION": "10", "WARMUP_SECONDS": "10", "USERS": ""}
    profile, env = start_form.run_environment({"USERS": "7", "LMS_URL": "http://x"}, form)
    assert profile == "rpm" and env["PROFILE"] == "rpm"
    assert "USERS" not in env and env["LMS_URL"] == "http://x"
    plan = catalogue.get(profile).plan(env)
    assert (
        plan.as_dict()
        == catalogue.get("rpm").plan({"RPM": "300", "DURATION": "10", "WARMUP_SECONDS": "10"}).as_dict()
    )
    assert [(s.start, s.seconds, s.target_rpm, s.warm_up) for s in plan.steps] == [
        (0, 10, 300.0, True),
        (10, 10, 300.0, False),
    ]


def test_an_empty_field_takes_the_picked_profiles_default():
    _, env = start_form.run_environment({"RPM": "500"}, {"PROFILE": "soak", "RPM": " ", "HOURS": "0.01"})
    assert catalogue.get("soak").plan(env).steps[-1].target_rpm == 1038


def test_a_value_longer_than_a_make_variable_needs_is_refused():
    with pytest.raises(
        ValueError,
        match="^USERS: expects up to 100 whole numbers of users, each from 1 to 10000; got 201 characters$",
    ):
        start_form.run_environment({}, {"PROFILE": "ramp", "USERS": "1 " * 101})
    with pytest.raises(ValueError, match="^PROFILE: expects at most 200 characters; got 300$"):
        start_form.run_environment({}, {"PROFILE": "r" * 300})


def test_each_profile_is_shown_the_fields_it_reads_and_no_other():
    """Issue 43, item 6: the page's script shows the picked profile's fields only."""
    shown = start_form.read_by()
    offered = [field.name for field in start_form.fields({})]
    assert set(shown) == set(start_form.profile_names())
    assert shown[start_form.MANUAL] == ["PROFILE", *start_form.SHARED]
    for name in catalogue.RUNNABLE:
        profile = catalogue.get(name)
        own = {*profile.defaults, *profile.client_settings}
        # An open model's learners do not think (core/catalogue.py): no WAIT_MIN, no WAIT_MAX.
        shared = {
            key for key in start_form.SHARED if not (profile.open_model and key in catalogue.THINK_TIME)
        }
        assert set(shown[name]) == {"PROFILE", *own, *shared}, name
        assert set(shown[name]) <= set(offered), name
        assert set(shown[name]) - {"PROFILE"} <= set(profile.reads()), name  # what the command line reads
    assert "WAIT_MIN" not in shown["rpm"] and "WAIT_MIN" in shown["smoke"]
    assert shown["rpm"].count("RPM") == 1 and "USERS" not in shown["rpm"]
    assert "EDX2015_WAIT_SCALE" in shown["edx2015"] and "EDX2015_WAIT_SCALE" not in shown["ramp"]
