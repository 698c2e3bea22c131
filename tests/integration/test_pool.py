"""Rule 5: connections are pooled and bounded, a checkout that cannot be served fails fast
with 503, broken connections are replaced, and none is held across the LMS call."""

from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.integration.conftest import ECOMMERCE_DB, LMS_DB
from tests.integration.helpers import (
    Background,
    RowLock,
    StatusReader,
    lock_waiters,
    new_name,
    order,
    product_id,
    wait_for,
)
from tests.support import mysql, tokens

pytestmark = pytest.mark.slow

FAULT_KEY = {"X-Fault-Api-Key": "local-only-fault-api-key"}


def pooled_connections() -> list[int]:
    """Server-side ids of the application's idle connections to the test database (seen by the
    monitoring account: PROCESS shows other accounts' connections)."""
    rows = mysql.query(
        "information_schema",
        "SELECT ID FROM PROCESSLIST WHERE DB = %s AND USER = %s AND COMMAND = 'Sleep'",
        [ECOMMERCE_DB, mysql.user("ecommerce")],
        account="monitor",
    )
    return [row[0] for row in rows]


def kill(connection_id: int) -> None:
    """The server closes one of ecommerce's connections: KILL by ecommerce's own account, which
    may end its own connections and no other's."""
    mysql.query(ECOMMERCE_DB, f"KILL {int(connection_id)}", account="ecommerce")


def burst(url: str, requests_count: int, concurrency: int = 20) -> list[int]:
    """``requests_count`` requests, one in ten an order, the rest reads; their status codes."""
    learner = new_name("reader")

    def one(i: int) -> int:
        if i % 10 == 0:
            return order(url, new_name(), 1 + (i // 10) % 5).status_code
        if i % 10 == 1:
            headers = {"Authorization": "JWT " + tokens.token(learner)}
            return requests.get(url + "/api/v2/orders/", headers=headers, timeout=30).status_code
        return requests.get(url + "/health/", timeout=30).status_code

    with ThreadPoolExecutor(concurrency) as pool:
        return list(pool.map(one, range(requests_count)))


def application_connections() -> int:
    """Every connection the two services hold to their test databases (their pools)."""
    rows = mysql.query(
        "information_schema",
        "SELECT COUNT(*) FROM PROCESSLIST WHERE DB IN (%s, %s) AND USER IN (%s, %s)",
        [ECOMMERCE_DB, LMS_DB, mysql.user("ecommerce"), mysql.user("lms")],
        account="monitor",
    )
    return rows[0][0]


def test_steady_state_opens_at_most_5_connections_per_1000_requests(stack):
    url = stack.ecommerce.url  # 2 gevent workers, each pool at most 10
    burst(url, 300)  # the pools grow to what this concurrency needs
    status = StatusReader()
    try:
        before, pooled_before = status.read("Connections")["Connections"], application_connections()
        codes = burst(url, 1000)
        opened = status.read("Connections")["Connections"] - before
        pooled_after = application_connections()
    finally:
        status.close()

    assert codes.count(201) == 100 and codes.count(200) == 900
    # Which worker accepts a request is a race, so a pool may still grow to a new peak after
    # the warm-up (CI once saw 6 openings in 1000 requests that way). Growth is bounded by the
    # pool sizes (2 services x 2 workers x 10); what must not happen is a connection opened
    # per request, or pooled connections replaced: openings beyond the pools' growth.
    assert pooled_after <= 40, f"{pooled_after} connections held by the services' pools"
    replaced = opened - (pooled_after - pooled_before)
    assert replaced <= 5, f"{opened} new connections for 1000 requests, {replaced} beyond the pools' growth"


def test_an_exhausted_pool_answers_503_at_once_and_recovers(stack):
    service = stack.another_ecommerce(workers=1, DB_POOL_SIZE="1", DB_POOL_TIMEOUT="0.5")
    try:
        lock = RowLock(product_id(3))
        waiting = Background(lambda: order(service.url, new_name(), 3))
        try:
            assert wait_for(lambda: lock_waiters() == 1, timeout=15)
            busy = requests.get(service.url + "/api/v2/orders/", headers=learner_header(), timeout=30)
        finally:
            lock.release()
        waiting.join(60)

        assert busy.status_code == 503
        assert busy.json()["error"] == "pool_exhausted"
        assert busy.headers["Retry-After"] == "1"
        assert waiting.result.status_code == 201
        assert (
            requests.get(service.url + "/api/v2/orders/", headers=learner_header(), timeout=30).status_code
            == 200
        )
    finally:
        service.stop()


def learner_header() -> dict:
    return {"Authorization": "JWT " + tokens.token(new_name("reader"))}


def test_no_connection_is_held_while_the_lms_answers(stack):
    """One connection per worker and a slow LMS: orders still run side by side, because each
    holds the connection only for its two short transactions, not for the LMS call.

    A checkout waits at most half the LMS's latency: a connection held across the call would
    make the next order wait the whole latency and be refused (503 pool_exhausted). The margin
    is the CPU's: with 0.5 s and a 1.5 s latency, two orders of four were refused on a machine
    whose two cores ran a load of 8 (the transactions ahead of them, starved, took that long)."""
    service = stack.another_ecommerce(workers=1, DB_POOL_SIZE="1", DB_POOL_TIMEOUT="1.5")
    requests.put(stack.lms.url + "/api/faults/", json={"latency_ms": 3000}, headers=FAULT_KEY, timeout=10)
    try:
        orders = [Background(lambda i=i: order(service.url, new_name(), 1 + i)) for i in range(4)]
        for each in orders:
            each.join(60)
        assert [o.result.status_code for o in orders] == [201] * 4, [o.result.text[:200] for o in orders]
        assert {o.result.json()["order"]["status"] for o in orders} == {"Complete"}
    finally:
        requests.delete(stack.lms.url + "/api/faults/", headers=FAULT_KEY, timeout=10)
        service.stop()


def test_connections_killed_by_the_server_are_replaced(stack):
    """A restart or wait_timeout closes idle connections: after a pause they are pinged and
    replaced, and no request fails."""
    service = stack.another_ecommerce(workers=1, DB_POOL_PING_AFTER="0.2")
    try:
        assert order(service.url, new_name(), 2).status_code == 201
        killed = pooled_connections()
        assert killed
        for connection_id in killed:
            kill(connection_id)
        wait_for(lambda: False, timeout=0.5)  # longer than PING_AFTER

        results = [order(service.url, new_name(), 1 + i % 5).status_code for i in range(5)]

        assert results == [201] * 5
        assert not set(killed) & set(pooled_connections())
    finally:
        service.stop()


def test_a_connection_that_dies_in_use_costs_one_503_and_is_replaced(stack):
    service = stack.another_ecommerce(workers=1, DB_POOL_SIZE="1", DB_POOL_PING_AFTER="3600")
    try:
        assert requests.get(service.url + "/health/", timeout=10).status_code == 200
        for connection_id in pooled_connections():
            kill(connection_id)

        first = requests.get(service.url + "/api/v2/orders/", headers=learner_header(), timeout=30)
        then = requests.get(service.url + "/api/v2/orders/", headers=learner_header(), timeout=30)

        assert first.status_code == 503
        assert first.json()["error"] == "database_unavailable"
        assert then.status_code == 200
    finally:
        service.stop()


def test_the_learner_limit_holds_across_workers(stack):
    """The per-learner limit is counted in the database: three workers, one limit."""
    service = stack.another_ecommerce(workers=3, ECOMMERCE_LEARNER_RATE="3/min")
    try:
        learner = new_name()
        # A new connection per request, so the workers share them out.
        answers = [order(service.url, learner, course) for course in (1, 2, 3, 4)]
    finally:
        service.stop()
    assert [a.status_code for a in answers] == [201, 201, 201, 429]
    assert answers[3].json()["error"] == "throttled" and int(answers[3].headers["Retry-After"]) >= 1
