"""The whole loop as real processes: lms_stub and ecommerce under gunicorn, each with its own
test database, talking HTTP to each other on free ports."""

import pytest

from tests.support import locks, servers

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
    locks.record_statements()  # a lock report names what a holder ran (tests/support/locks.py)
    with servers.loop(ECOMMERCE_DB, LMS_DB, COURSES, STAFF_PASSWORD, workers=2) as (lms, ecommerce, env):
        yield Stack(lms, ecommerce, env)
