"""Fault injection on the enrollment API, set by environment or at run time."""

import json
import time

import pytest

from common.contract.courses import seat
from lms_stub.enrollment.models import Enrollment

pytestmark = pytest.mark.django_db

BODY = json.dumps(
    {"user": "ada", "is_active": True, "mode": "verified", "course_details": {"course_id": seat(1).course_id}}
)


def enroll(client, key):
    return client.post("/api/enrollment/v1/enrollment", BODY, content_type="application/json", **key)


def set_faults(client, fault_key, **faults):
    response = client.put("/api/faults/", json.dumps(faults), content_type="application/json", **fault_key)
    assert response.status_code == 200, response.content
    return response.json()


def test_the_control_endpoint_needs_the_api_key(client):
    assert client.get("/api/faults/").status_code == 403
    response = client.put("/api/faults/", json.dumps({"error_rate": 1}), content_type="application/json")
    assert response.status_code == 403


def test_no_faults_by_default(client, key, fault_key):
    assert client.get("/api/faults/", **fault_key).json()["error_rate"] == 0
    assert enroll(client, key).status_code == 200


def test_added_latency_slows_every_call(client, key, fault_key):
    set_faults(client, fault_key, latency_ms=300)
    started = time.monotonic()
    assert enroll(client, key).status_code == 200
    assert time.monotonic() - started >= 0.3


def test_jitter_adds_up_to_its_value(client, key, fault_key):
    set_faults(client, fault_key, latency_ms=0, jitter_ms=200)
    durations = []
    for _ in range(5):
        started = time.monotonic()
        enroll(client, key)
        durations.append(time.monotonic() - started)
    assert max(durations) < 0.2 + 0.15  # never more than the jitter, plus the call itself


def test_error_rate_one_fails_every_call_and_writes_nothing(client, key, fault_key):
    set_faults(client, fault_key, error_rate=1.0)
    response = enroll(client, key)
    assert response.status_code == 500
    assert response.json()["error"] == "injected_error"
    assert Enrollment.objects.count() == 0


def test_an_outage_window_answers_503_until_it_ends(client, key, fault_key):
    set_faults(client, fault_key, outage_seconds=0.5)
    response = enroll(client, key)
    assert response.status_code == 503
    assert response.json()["error"] == "outage"
    time.sleep(0.6)
    assert enroll(client, key).status_code == 200


def test_an_outage_can_start_later(client, key, fault_key):
    state = set_faults(client, fault_key, outage_seconds=30, outage_starts_in_seconds=30)
    assert state["outage_start"] > time.time() + 25
    assert enroll(client, key).status_code == 200


def test_delete_returns_to_the_environment_settings(client, key, settings, fault_key):
    settings.LMS_FAULT_ERROR_RATE = 1.0
    set_faults(client, fault_key, error_rate=0)
    assert enroll(client, key).status_code == 200
    assert client.delete("/api/faults/", **fault_key).json()["error_rate"] == 1.0
    assert enroll(client, key).status_code == 500


def test_environment_outage_window_applies(client, key, settings):
    settings.LMS_FAULT_OUTAGE_START = time.time() - 1
    settings.LMS_FAULT_OUTAGE_END = time.time() + 60
    assert enroll(client, key).status_code == 503


@pytest.mark.parametrize(
    "faults",
    [
        {"latency_ms": -1},
        {"latency_ms": 1.5},
        {"latency_ms": True},
        {"jitter_ms": 10**9},
        {"error_rate": 2},
        {"error_rate": "half"},
        {"outage_seconds": -5},
        {"surprise": 1},
    ],
)
def test_invalid_fault_settings_are_400_and_change_nothing(client, key, faults, fault_key):
    before = client.get("/api/faults/", **fault_key).json()
    response = client.put("/api/faults/", json.dumps(faults), content_type="application/json", **fault_key)
    assert response.status_code == 400
    after = client.get("/api/faults/", **fault_key).json()
    assert {k: v for k, v in after.items() if k != "now"} == {k: v for k, v in before.items() if k != "now"}


def test_with_the_fault_api_off_a_row_left_from_earlier_is_not_applied(client, key, fault_key, settings):
    """Nothing can change or clear the fault API's row once the API is off, so the stand-in
    applies the environment's faults alone (and reads no row: no query per refresh)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from lms_stub.faults import injection

    set_faults(client, fault_key, error_rate=1)
    assert enroll(client, key).status_code == 500
    settings.LMS_FAULT_CONTROL = False
    injection.forget()
    with CaptureQueriesContext(connection) as captured:
        assert enroll(client, key).status_code == 200
    assert not [q for q in captured.captured_queries if "fault" in q["sql"].lower()]
    settings.LMS_FAULT_ERROR_RATE = 1.0
    injection.forget()
    assert enroll(client, key).status_code == 500  # the environment's faults still apply
