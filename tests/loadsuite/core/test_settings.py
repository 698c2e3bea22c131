"""core/settings.py: every setting a run takes is checked by one parser, before any plan is made,
and refused naming the setting, what it expects and what it got."""

import pytest

from common.environment import VARIABLES
from locustfiles.suite.core import catalogue, help, settings, start_form
from locustfiles.suite.core.settings import SETTINGS, SettingError
from locustfiles.suite.run import admission

NUMERIC = [s for s in SETTINGS.values() if s.kind != "text"]


def test_every_setting_is_in_the_environment_table_and_every_profile_reads_settings_only():
    assert set(SETTINGS) <= set(VARIABLES)
    for name in catalogue.RUNNABLE:
        assert set(catalogue.get(name).reads()) <= set(SETTINGS), name


@pytest.mark.parametrize("setting", NUMERIC, ids=lambda s: s.name)
def test_a_number_is_taken_within_its_bounds_and_refused_outside_them(setting):
    assert setting.parse(settings._shown(setting.low)) == setting.low
    assert setting.parse(settings._shown(setting.high)) == setting.high
    outside = [setting.low - 1, setting.high * 10 + 1]
    for bad in [*(settings._shown(v) for v in outside), "inf", "-inf", "nan", "abc", "1e400", "x" * 10_000]:
        with pytest.raises(SettingError) as refused:
            setting.parse(bad)
        message = str(refused.value)
        assert message.startswith(f"{setting.name}: expects "), message
        assert f"from {settings._shown(setting.low)} to {settings._shown(setting.high)}" in message
        assert ("got " + repr(bad)) in message or "got 10000 characters" in message


def test_a_list_is_taken_only_where_the_profile_takes_several():
    assert catalogue.get("ramp").run_settings({"USERS": "1 2,3"}).values["USERS"] == [1, 2, 3]
    assert catalogue.get("capacity").run_settings({"RPM": "600 1200"}).values["RPM"] == [600.0, 1200.0]
    with pytest.raises(
        SettingError, match=r"^RPM: expects a number of purchases a minute from 1 to 60000; got '100 200'$"
    ):
        catalogue.get("rpm").plan({"RPM": "100 200"})
    with pytest.raises(
        SettingError, match="^USERS: expects up to 100 whole numbers of users, each from 1 to 10000"
    ):
        catalogue.get("ramp").plan({"USERS": " ".join(["1"] * 101)})


@pytest.mark.parametrize(
    "profile, env, message",
    [
        (
            "soak",
            {"HOURS": "700", "BUCKET_SECONDS": "1"},
            "BUCKET_SECONDS: HOURS 700 in buckets of 1 s make 2520000",
        ),
        (
            "capacity",
            {"RPM_START": "1", "RPM_STEP": "1", "RPM_MAX": "60000"},
            "RPM_STEP: from 1 to 60000 by 1",
        ),
        ("capacity", {"RPM_STEP": "0.1"}, "RPM_STEP: from 300 to 6000 by 0.1 makes more than 10000 steps"),
    ],
)
def test_a_plan_too_large_is_counted_and_refused_before_its_steps_are_built(profile, env, message):
    with pytest.raises(SettingError, match=message):
        catalogue.get(profile).plan(env)


def test_an_unknown_name_is_refused_with_the_nearest_known_one():
    with pytest.raises(SettingError, match=r"^RMP: no such setting; did you mean RPM\?$"):
        settings.refuse_unknown(["RPM", "RMP"], SETTINGS)
    with pytest.raises(
        SettingError, match="^ZZZZ: no such setting; `make help` and docs/configuration.md list them$"
    ):
        settings.setting("ZZZZ")


@pytest.mark.parametrize(
    "profile, env",
    [
        ("rpm", {"RPM": "abc"}),
        ("rpm", {"RPM": "inf"}),
        ("rpm", {"DURATION": "0"}),
        ("rpm", {"PRELOAD": "1e20"}),
        ("rpm", {"COURSES": "-1"}),
        ("smoke", {"WAIT_MIN": "soon"}),
        ("manual", {"WAIT_MAX": "-1"}),
    ],
)
def test_the_form_and_the_command_line_refuse_a_value_in_the_same_words(profile, env):
    with pytest.raises(ValueError) as by_command_line:
        admission.admit(profile, env)
    picked, form_env = start_form.run_environment({}, {"PROFILE": profile, **env})
    with pytest.raises(ValueError) as by_form:
        admission.admit(picked, form_env)
    assert str(by_form.value) == str(by_command_line.value)
    assert str(by_form.value).startswith(f"{next(iter(env))}: expects ")


@pytest.mark.parametrize("profile", [name for name in catalogue.RUNNABLE if catalogue.get(name).open_model])
def test_an_open_models_run_reads_no_think_time_from_the_command_line_or_the_form(profile):
    """The trial's item 3: an open model's arrivals come at the rate whatever the users do; its
    run neither checks nor records WAIT_MIN and WAIT_MAX (a hidden field of the form may still
    hold what was typed for another profile), and its form does not show them."""
    think = {"WAIT_MIN": "soon", "WAIT_MAX": "-1"}
    sizes = {"RPM": "300", "CAPACITY_RPM": "200"}  # overload needs one of them
    assert not {*think} & {*catalogue.get(profile).reads(), *start_form.read_by()[profile]}
    _, form_env = start_form.run_environment({}, {"PROFILE": profile, **sizes, **think})
    for env in ({**sizes, **think}, form_env):
        admission.admit(profile, env)
        assert not {*think} & set(catalogue.get(profile).run_settings(env).record()["resolved"])


def test_the_form_refuses_a_field_it_does_not_have_with_the_nearest():
    with pytest.raises(SettingError, match=r"^RMP: no such setting; did you mean RPM\?$"):
        start_form.run_environment({}, {"PROFILE": "rpm", "RMP": "100"})
    assert (
        start_form.run_environment({}, {"PROFILE": "rpm", "RPM": "100", "user_count": "1"})[1]["RPM"] == "100"
    )
    with pytest.raises(SettingError, match="^WORKERS: the start form does not take it"):
        start_form.run_environment({}, {"PROFILE": "rpm", "WORKERS": "2"})


def test_the_run_records_its_settings_as_given_and_as_resolved():
    record = catalogue.get("rpm").run_settings({"RPM": " 120 ", "WAIT_MIN": ""}).record()
    assert record["given"] == {"RPM": "120"}
    resolved = record["resolved"]
    assert resolved["RPM"] == 120.0 and resolved["DURATION"] == 600 and resolved["WARMUP_SECONDS"] == 0
    assert resolved["THRESHOLDS"] == catalogue.get("rpm").thresholds
    assert resolved["BUY_WEIGHT"] == 50 and "WAIT_MIN" not in resolved  # no think time: open model
    assert catalogue.get("smoke").run_settings({}).record()["resolved"]["WAIT_MIN"] == 3.0


def test_make_help_says_what_each_setting_takes_and_which_profiles_take_several():
    lines = {line.split()[0]: line for line in help.bounds_lines()}
    assert set(lines) == set(SETTINGS)
    assert lines["RPM"].endswith("purchases a minute from 1 to 60000 (capacity: up to 100 of them)")
    assert "(smoke, ramp: up to 100 of them)" in lines["USERS"]
    assert lines["DURATION"].endswith("a whole number of seconds from 1 to 604800")


def test_a_whole_number_setting_is_read_as_an_int_or_none_and_no_other_kind_is():
    checked = catalogue.get("soak").run_settings({"PRELOAD": "4000", "WORKERS": "3"})
    assert checked.whole("PRELOAD") == 4000
    assert checked.whole("WORKERS") == 3
    assert catalogue.get("soak").run_settings({}).whole("PRELOAD") is None
    with pytest.raises(TypeError, match="^THRESHOLDS is not a whole-number setting$"):
        checked.whole("THRESHOLDS")
