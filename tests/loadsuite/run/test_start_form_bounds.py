"""Issue 44's bounds, as a property: whatever a field of make run's start form is sent (huge,
negative, zero, inf, nan, text, empty, 10 KB), for whichever profile, the form answers with a
refusal that names the field or takes a value its setting's bounds allow; it never raises (a
500 in the UI) and never starts what it refused. Checked on the form's real start path
(run/start_form.StartForm.start) with a run that fails the test if it is set up."""

import time
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from locust.runners import STATE_STOPPED

from locustfiles.suite import profiles
from locustfiles.suite.core import catalogue
from locustfiles.suite.core import start_form as core_form
from locustfiles.suite.core.settings import SETTINGS
from locustfiles.suite.run import start_form

BAD = ["1e400", "-5", "0", "inf", "-inf", "nan", "NaN", "lots", "", " ", "9" * 30, "1e15", "x" * 10_240]
FIELDS = [field.name for field in core_form.fields({}) if field.name != "PROFILE"]
STARTED = "stub: the values were taken and the run would be prepared"


def form() -> start_form.StartForm:
    run = SimpleNamespace(
        runner=SimpleNamespace(state=STATE_STOPPED),
        environment=SimpleNamespace(stop_timeout=0.0),
        profile=profiles.get("manual"),
        t0=None,
    )
    run.take = lambda *args: pytest.fail("a start set the run up")
    made = start_form.StartForm(run, learners=lambda env: (object, object))
    made.prepare = lambda env, preload_to: STARTED  # what would touch the stack, never reached here
    made.client = SimpleNamespace(user_classes=lambda path, env: [object])
    return made


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    profile=st.sampled_from(catalogue.RUNNABLE),
    field=st.sampled_from(FIELDS),
    value=st.sampled_from(BAD) | st.text(max_size=40),
)
def test_any_value_of_any_field_is_refused_by_name_or_within_its_bounds(profile, field, value):
    began = time.monotonic()
    answer = form().start({"PROFILE": profile, field: value})
    assert time.monotonic() - began < 1.0  # no plan or list was built from a huge value
    assert isinstance(answer, str)  # a refusal, or the stub: never an exception
    if answer == STARTED:
        taken = value.strip()
        if taken and field in SETTINGS and field in catalogue.get(profile).reads():
            expected = SETTINGS[field]
            if expected.kind != "text":  # the value the run would use lies in its bounds
                several = field in catalogue.get(profile).lists
                parsed = expected.parse(taken, several)
                for number in parsed if isinstance(parsed, list) else [parsed]:
                    assert expected.low <= number <= expected.high
    elif value.strip() and len(value) > 200:
        assert answer.startswith(f"{field}: ") or answer.startswith(field), answer


@pytest.mark.parametrize(
    "field", [name for name in FIELDS if name in SETTINGS and SETTINGS[name].kind != "text"]
)
@pytest.mark.parametrize("value", ["inf", "nan", "1e400", "-5", "lots", "x" * 10_240])
def test_a_number_field_refuses_what_is_no_number_in_its_bounds_naming_itself(field, value):
    profile = next(name for name in catalogue.RUNNABLE if field in catalogue.get(name).reads())
    answer = form().start({"PROFILE": profile, field: value})
    assert answer != STARTED
    assert answer.startswith(f"{field}: expects "), answer
