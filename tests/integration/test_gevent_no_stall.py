"""Rule 4: one request waiting on a database lock never stalls its neighbours.

ecommerce runs with ONE gevent worker. A separate connection locks the product row an order
needs; the order waits on it inside the worker. Meanwhile other requests to that same worker
must be answered, and the waiting order must complete once the lock is released.

With PyMySQL (the shipped driver) that holds. With mysqlclient, whose queries block in C
without yielding to gevent, the whole worker freezes until the lock is released: the second
test proves the trap is real, so the first cannot pass by accident.
"""

import time

import pytest
import requests

from tests.integration.helpers import (
    Background,
    RowLock,
    lock_waiters,
    new_name,
    order,
    product_id,
    wait_for,
)
from tests.support import locks, tokens

pytestmark = pytest.mark.slow

NEIGHBOURS = 10
COURSE = 4


def neighbour_requests(url: str, learner: str) -> list[Background]:
    """Reads that need the database: health checks and a learner's order list."""
    calls = []
    for i in range(NEIGHBOURS):
        if i % 2:
            calls.append(Background(lambda: requests.get(url + "/health/", timeout=60)))
        else:
            calls.append(
                Background(
                    lambda: requests.get(
                        url + "/api/v2/orders/",
                        headers={"Authorization": "JWT " + tokens.token(learner)},
                        timeout=60,
                    )
                )
            )
    return calls


def start_waiting_order(url: str) -> tuple[RowLock, Background]:
    lock = RowLock(product_id(COURSE))
    waiting = Background(lambda: order(url, new_name(), COURSE))
    assert wait_for(lambda: lock_waiters() == 1, timeout=15), "the order never waited on the lock"
    return lock, waiting


def test_a_request_waiting_on_a_lock_does_not_stall_its_worker(stack):
    worker = stack.another_ecommerce(workers=1, WORKER_CLASS="gevent", MYSQL_DRIVER="pymysql")
    try:
        lock, waiting = start_waiting_order(worker.url)
        try:
            neighbours = neighbour_requests(worker.url, new_name("reader"))
            answered = wait_for(lambda: all(n.finished_at for n in neighbours), timeout=30)
        finally:
            lock.release()
        waiting.join(60)

        assert answered, "requests to the worker were not answered while one request waited on a lock"
        assert [n.result.status_code for n in neighbours] == [200] * NEIGHBOURS
        assert all(n.finished_at < lock.released_at for n in neighbours)
        # Nothing is left waiting once the lock is gone: a stuck waiter would stay for
        # innodb_lock_wait_timeout (the reading is fresh: tests/support/locks.py).
        assert lock_waiters() == 0, (
            locks.report(),
            waiting.result.status_code if waiting.result is not None else waiting.error,
            None if waiting.finished_at is None else round(waiting.finished_at - lock.released_at, 2),
        )
        assert waiting.result is not None and waiting.result.status_code == 201, waiting.error
        assert waiting.result.json()["order"]["status"] == "Complete"
        assert waiting.finished_at > lock.released_at
    finally:
        worker.stop()


def test_mysqlclient_under_gevent_freezes_the_worker_while_a_query_waits(stack):
    worker = stack.another_ecommerce(workers=1, WORKER_CLASS="gevent", MYSQL_DRIVER="mysqlclient")
    try:
        lock, waiting = start_waiting_order(worker.url)
        neighbours = neighbour_requests(worker.url, new_name("reader"))
        time.sleep(3)  # ample time for any answer a free worker would give
        lock.release()
        for neighbour in neighbours:
            neighbour.join(60)
        waiting.join(60)

        assert all(n.finished_at is not None and n.result.status_code == 200 for n in neighbours)
        assert all(n.finished_at > lock.released_at for n in neighbours), "some request was answered"
        assert waiting.result.status_code == 201
    finally:
        worker.stop()
