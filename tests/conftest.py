"""For the suites that run Django in-process (pytest-django): the test database is a copy of
the migrated template (tests/support/templates.py) instead of a migration from nothing. Django
keeps the copy it finds, checks that no migration is left to apply, and the copy is dropped
when the session ends.

Django's set-up (its CREATE DATABASE, the migration check) is the owner account's work; the
tests themselves then run as the service's own account, as the service does (docs/configuration.md,
"Database accounts"): a code path that needs more than the rows of its database fails here."""

import os

import pytest


def _use_account(user: str, password: str) -> None:
    """Connect Django's default database as ``user`` from the next query on."""
    from django.conf import settings
    from django.db import connections

    connection = connections["default"]
    connection.close()
    for entry in {id(d): d for d in (settings.DATABASES["default"], connection.settings_dict)}.values():
        entry["USER"], entry["PASSWORD"] = user, password


@pytest.fixture(scope="session")
def django_db_keepdb() -> bool:
    return True  # the copy made below is the test database


@pytest.fixture(scope="session")
def _service_account() -> tuple[str, str]:
    """The account the settings connect as: the service's own (DB_ACCOUNT is not set)."""
    from django.conf import settings

    return settings.DATABASES["default"]["USER"], settings.DATABASES["default"]["PASSWORD"]


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix, _service_account):
    from django.conf import settings

    from common.environment import get
    from tests.support import mysql, servers

    service = "lms_stub" if os.environ.get("DJANGO_SETTINGS_MODULE") == "settings.lms_stub" else "ecommerce"
    database = settings.DATABASES["default"]
    name = database.get("TEST", {}).get("NAME") or "test_" + database["NAME"]
    servers.migrated_database(service, name)
    _use_account(get("MYSQL_OWNER_USER"), get("MYSQL_OWNER_PASSWORD"))
    yield
    mysql.drop_database(name)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, _service_account):
    """pytest-django's set-up, done as the owner; the tests connect as the service's account."""
    _use_account(*_service_account)
    yield
