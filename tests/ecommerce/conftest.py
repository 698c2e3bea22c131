"""Fixtures of the ecommerce suite (settings.test): an in-process ecommerce talking over real
HTTP to a real lms_stub gunicorn, on the test MariaDB."""

import uuid

import pytest

from tests.ecommerce.helpers import COURSES, Api, Lms
from tests.support import mysql, servers

# Named like every test database of lms_stub (test_…lms), which its own account may use.
LMS_DATABASE = "test_ecommerce_suite_lms"


@pytest.fixture(scope="session")
def lms_server():
    servers.prepare_database("lms_stub", LMS_DATABASE)
    service = servers.start_service(
        "lms_stub",
        LMS_DATABASE,
        env={"LMS_FAULT_REFRESH_SECONDS": "0", "CATALOG_COURSES": str(COURSES)},
        workers=2,
    )
    yield service
    service.stop()
    mysql.drop_database(LMS_DATABASE)


@pytest.fixture(autouse=True)
def _no_accidental_lms(settings):
    """Unless a test asks for the LMS, fulfilment goes to a closed port, never to a real stack."""
    settings.LMS_URL = "http://127.0.0.1:9"
    settings.LMS_ENROLLMENT_TIMEOUT = 2.0


@pytest.fixture
def lms(lms_server, settings):
    settings.LMS_URL = lms_server.url
    handle = Lms(lms_server)
    handle.reset_faults()
    yield handle
    handle.reset_faults()


@pytest.fixture
def seats(db):
    """The free seats of the first COURSES courses of the catalogue definition, seeded into the
    test database with their paid seats."""
    from common.contract.courses import free_seats
    from ecommerce.courses.seeding import seed

    seed(COURSES)
    return free_seats(COURSES)


@pytest.fixture
def api():
    return Api()


@pytest.fixture
def learner():
    """A username no earlier test used (the LMS database lives for the whole session)."""
    return "learner_" + uuid.uuid4().hex[:10]


@pytest.fixture
def other_learner():
    return "other_" + uuid.uuid4().hex[:10]


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create(username="staff_member", email="s@example.com", is_staff=True)
