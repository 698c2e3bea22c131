"""/auto_auth, the fault API and the payment processor's stand-in are load-test machinery: routed
only while their switches are on (LMS_AUTO_AUTH, LMS_FAULT_CONTROL, LMS_PAYMENT_PROCESSOR), and
the fault API takes its own key, never the enrollment key. A deployed stand-in's defaults and
its WARNING are in tests/unit/test_settings.py."""

import importlib
import json
import logging
from contextlib import contextmanager

import pytest
from django.apps import apps
from django.test import override_settings
from django.urls import clear_url_caches

import lms_stub.urls

pytestmark = pytest.mark.django_db


@contextmanager
def switched(**switches):
    """The settings and the URLconf built from them, as a process started with ``switches``
    would have them; the URLconf of the suite's settings again afterwards."""
    try:
        with override_settings(**switches):
            importlib.reload(lms_stub.urls)
            clear_url_caches()
            yield
    finally:
        importlib.reload(lms_stub.urls)
        clear_url_caches()


def assert_json_404(response):
    assert response.status_code == 404, response.content
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"] == "not_found"


# --- The fault API's own key ---------------------------------------------------------------------


def test_the_fault_api_refuses_the_enrollment_key(client, key):
    assert client.get("/api/faults/", **key).status_code == 403
    # ... also sent in the fault API's own header.
    response = client.get("/api/faults/", HTTP_X_FAULT_API_KEY=key["HTTP_X_EDX_API_KEY"])
    assert response.status_code == 403
    assert response.json()["error"] == "invalid_api_key"
    assert "X-Fault-Api-Key" in response.json()["message"]
    response = client.put(
        "/api/faults/", json.dumps({"error_rate": 1}), content_type="application/json", **key
    )
    assert response.status_code == 403
    assert (
        client.get("/api/faults/", HTTP_X_FAULT_API_KEY="local-only-fault-api-key").json()["error_rate"] == 0
    )


def test_the_fault_api_takes_its_own_key(client, fault_key):
    response = client.put(
        "/api/faults/", json.dumps({"latency_ms": 5}), content_type="application/json", **fault_key
    )
    assert response.status_code == 200, response.content
    assert client.get("/api/faults/", **fault_key).json()["latency_ms"] == 5


def test_the_fault_api_reads_its_key_from_the_settings(client, settings):
    settings.LMS_FAULT_API_KEY = "another-fault-key-for-this-test"
    assert client.get("/api/faults/", HTTP_X_FAULT_API_KEY="local-only-fault-api-key").status_code == 403
    assert (
        client.get("/api/faults/", HTTP_X_FAULT_API_KEY="another-fault-key-for-this-test").status_code == 200
    )


def test_the_enrollment_api_refuses_the_fault_key(client, fault_key):
    response = client.get(
        "/api/enrollment/v1/enrollment?user=ada", HTTP_X_EDX_API_KEY="local-only-fault-api-key"
    )
    assert response.status_code == 403
    assert client.get("/api/enrollment/v1/enrollment?user=ada", **fault_key).status_code == 403


# --- The switches ----------------------------------------------------------------------------------


def test_locally_all_are_routed_and_described(client, settings, fault_key):
    assert settings.LMS_AUTO_AUTH is True and settings.LMS_FAULT_CONTROL is True  # the local default
    assert settings.LMS_PAYMENT_PROCESSOR is True
    assert client.get("/auto_auth").status_code == 201
    assert client.get("/api/faults/", **fault_key).status_code == 200
    # Routed: a form that is not a signed checkout is refused by the page, not unknown.
    refused = client.post(
        "/processor/cybersource/pay/", "a=1", content_type="application/x-www-form-urlencoded"
    )
    assert refused.json()["error"] == "invalid_signature"
    paths = client.get("/api/schema/").json()["paths"]
    assert {
        "/auto_auth",
        "/api/faults/",
        "/processor/cybersource/pay/",
        "/processor/cybersource/pay/confirm/",
    } <= set(paths)


def test_the_payment_processor_off_answers_404_and_is_not_described(client):
    with switched(LMS_PAYMENT_PROCESSOR=False):
        for path in ("/processor/cybersource/pay/", "/processor/cybersource/pay/confirm/"):
            assert_json_404(client.post(path, {}))
        document = client.get("/api/schema/").json()
        assert client.get("/auto_auth").status_code == 201
    assert not [path for path in document["paths"] if path.startswith("/processor/")]
    assert "CheckoutForm" not in document["components"]["schemas"]


def test_auto_auth_off_answers_404_and_is_not_described(client, fault_key):
    with switched(LMS_AUTO_AUTH=False):
        assert_json_404(client.get("/auto_auth"))
        assert_json_404(client.post("/auto_auth"))
        document = client.get("/api/schema/").json()
        assert client.get("/api/faults/", **fault_key).status_code == 200  # the other one stays
    assert "/auto_auth" not in document["paths"]
    assert "/api/faults/" in document["paths"]
    assert client.get("/auto_auth").status_code == 201  # back to the suite's settings


def test_fault_control_off_answers_404_even_with_the_key(client, fault_key, key):
    with switched(LMS_FAULT_CONTROL=False):
        for method in ("get", "put", "delete"):
            assert_json_404(getattr(client, method)("/api/faults/", **fault_key))
        document = client.get("/api/schema/").json()
        assert client.get("/api/enrollment/v1/enrollment?user=ada", **key).status_code == 200
        assert client.get("/health/").status_code == 200
    assert "/api/faults/" not in document["paths"]
    assert "faultApiKey" not in document["components"]["securitySchemes"]
    assert "/auto_auth" in document["paths"]


@pytest.mark.parametrize(
    "app, switch",
    [("learners", "LMS_AUTO_AUTH"), ("faults", "LMS_FAULT_CONTROL"), ("processor", "LMS_PAYMENT_PROCESSOR")],
)
def test_a_deployed_stand_in_with_a_switch_on_warns_at_start(caplog, app, switch):
    with override_settings(LOAD_TEST_MACHINERY=[switch]), caplog.at_level(logging.WARNING):
        apps.get_app_config(app).ready()
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and warnings[0].getMessage().startswith(
        f"{switch} is on in a deployed stand-in"
    )


def test_a_local_stand_in_does_not_warn(caplog, settings):
    assert settings.LOAD_TEST_MACHINERY == []
    with caplog.at_level(logging.WARNING):
        apps.get_app_config("learners").ready()
        apps.get_app_config("faults").ready()
        apps.get_app_config("processor").ready()
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
