"""For the suites that run Django in-process (pytest-django): the test database is a copy of
the migrated template (tests/support/templates.py) instead of a migration from nothing. Django
keeps the copy it finds, checks that no migration is left to apply, and the copy is dropped
when the session ends."""

import os

import pytest


@pytest.fixture(scope="session")
def django_db_keepdb() -> bool:
    return True  # the copy made below is the test database


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix):
    from django.conf import settings

    from tests.support import mysql, servers

    service = "lms_stub" if os.environ.get("DJANGO_SETTINGS_MODULE") == "settings.lms_stub" else "ecommerce"
    database = settings.DATABASES["default"]
    name = database.get("TEST", {}).get("NAME") or "test_" + database["NAME"]
    servers.migrated_database(service, name)
    yield
    mysql.drop_database(name)
