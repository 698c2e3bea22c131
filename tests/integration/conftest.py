"""The whole loop as real processes: lms_stub and ecommerce under gunicorn, each with its own
test database, talking HTTP to each other on free ports."""

import pytest

from tests.support import mysql, servers

ECOMMERCE_DB = "test_it_ecommerce"
LMS_DB = "test_it_lms"
COURSES = 5
STAFF_PASSWORD = "integration-staff-password"


class Stack:
    def __init__(self, lms, ecommerce, env):
        self.lms, self.ecommerce, self.env = lms, ecommerce, env

    def manage(self, *args):
        """manage.py against this stack's ecommerce database."""
        return servers.manage("settings.local", *args, env=self.env)

    def another_ecommerce(self, workers: int = 1, wrapper: list[str] | None = None, **env) -> servers.Service:
        """One more ecommerce server on this stack's database and LMS, configured by ``env``
        and run by ``wrapper`` if given (the caller stops it)."""
        return servers.start_service(
            "ecommerce",
            ECOMMERCE_DB,
            {**self.env, **env},
            workers=workers,
            worker_class=env.get("WORKER_CLASS"),
            wrapper=wrapper,
        )


@pytest.fixture(scope="session")
def stack():
    lms_port, ecommerce_port = servers.free_port(), servers.free_port()
    env = {
        "CATALOG_COURSES": str(COURSES),
        "LMS_URL": f"http://127.0.0.1:{lms_port}",
        "ECOMMERCE_URL": f"http://127.0.0.1:{ecommerce_port}",
        "LMS_FAULT_REFRESH_SECONDS": "0",
        "ECOMMERCE_DB_NAME": ECOMMERCE_DB,
        "LMS_DB_NAME": LMS_DB,
        "ECOMMERCE_STAFF_PASSWORD": STAFF_PASSWORD,
    }
    servers.prepare_database("ecommerce", ECOMMERCE_DB, env, courses=COURSES)
    servers.prepare_database("lms_stub", LMS_DB, env)
    servers.manage("settings.local", "ensure_staff", env=env)
    started = []
    try:
        started.append(servers.start_service("lms_stub", LMS_DB, env, workers=2, port=lms_port))
        started.append(servers.start_service("ecommerce", ECOMMERCE_DB, env, workers=2, port=ecommerce_port))
        yield Stack(*started, env)
    finally:
        for service in reversed(started):
            service.stop()
        mysql.drop_database(ECOMMERCE_DB)
        mysql.drop_database(LMS_DB)
