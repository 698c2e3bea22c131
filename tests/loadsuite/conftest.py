"""Locust monkey-patches the process for gevent when it is imported; anything that imports ssl
first (requests, PyJWT through the chaos module) makes the later patch recurse. Import it
before any test module does.

The tests that run load share one stack for the session (its own ports, databases and var/
folder; this checkout's MariaDB): a fresh one costs about a minute of migrations and
collectstatic. Those that leave it changed for whoever comes next run last, in this order:
the services tests (they restart the services, and the last one stops them), then the chaos
run (it runs the services with a shorter LMS timeout, restarts MariaDB and kills a worker)."""

import locust  # noqa: F401
import pytest

from tests.support.stack import stack_environment, stack_stop, stack_up

DATABASES = ("test_load_ecommerce", "test_load_lms")
STAFF_PASSWORD = "load-suite-staff-password"


def pytest_configure(config):
    config.addinivalue_line("markers", "stack_order(n): run after the tests of a lower n (0 if unmarked)")


def pytest_collection_modifyitems(items):
    def order(item):
        marker = item.get_closest_marker("stack_order")
        return marker.args[0] if marker else 0

    items.sort(key=order)  # stable: the file order holds within each n


@pytest.fixture(scope="session")
def stack_env():
    env = stack_environment(
        "loadstack", DATABASES, ECOMMERCE_STAFF_PASSWORD=STAFF_PASSWORD, WAIT_MIN="0", WAIT_MAX="0"
    )
    # As in a developer's shell: CATALOG_COURSES unset (scripts/lib.sh gives it its default), so
    # the services tests see that an unset setting and its default are the same.
    del env["CATALOG_COURSES"]
    stack_stop(env)  # services a crashed earlier session left behind
    try:
        stack_up(env)
        yield env
    finally:
        stack_stop(env)
