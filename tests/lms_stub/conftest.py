"""Fixtures of the lms_stub suite (settings.lms_stub), in-process on the test MariaDB."""

import pytest
from django.test import Client

API_KEY = "local-only-edx-api-key"
FAULT_API_KEY = "local-only-fault-api-key"


@pytest.fixture
def client():
    return Client(HTTP_HOST="127.0.0.1")


@pytest.fixture
def csrf_client():
    """A browser-like client: CSRF is enforced, as for a real learner."""
    return Client(HTTP_HOST="127.0.0.1", enforce_csrf_checks=True)


@pytest.fixture
def key():
    """The enrollment API's key."""
    return {"HTTP_X_EDX_API_KEY": API_KEY}


@pytest.fixture
def fault_key():
    """The fault API's own key."""
    return {"HTTP_X_FAULT_API_KEY": FAULT_API_KEY}


@pytest.fixture(autouse=True)
def _no_cached_faults(settings):
    """Every test reads the fault settings afresh."""
    from lms_stub.faults import injection

    settings.LMS_FAULT_REFRESH_SECONDS = 0
    injection.forget()
    yield
    injection.forget()
