"""The tests' reading of row-lock waiters is today's, not InnoDB's copy of an earlier moment.

InnoDB refreshes information_schema.INNODB_TRX only once it has gone unread for 100 ms: a
reader that polls faster reads one snapshot for as long as it polls. That is how a waiter
"nobody explains" failed the gevent no-stall test (issue 42): the order's own INSERT, long
committed, still read as LOCK WAIT five seconds later. The first test shows the trap is real
(so the second cannot pass by accident); the second, that tests/support/locks.py avoids it.
"""

import threading
import time

import pytest

from tests.integration.conftest import ECOMMERCE_DB
from tests.integration.helpers import RowLock, product_id, wait_for
from tests.support import locks, mysql

pytestmark = pytest.mark.slow

COURSE = 2
RAW = (
    "SELECT COUNT(*) FROM INNODB_TRX t JOIN PROCESSLIST p ON p.ID = t.trx_mysql_thread_id "
    "WHERE t.trx_state = 'LOCK WAIT' AND p.DB = %s"
)


class Waiter:
    """A second connection that waits on the row lock, then commits and stays open, idle, as a
    pooled connection does after its request."""

    def __init__(self, product: int):
        self.conn = mysql.connect(ECOMMERCE_DB)
        self.conn.autocommit(False)
        self.done = threading.Event()
        threading.Thread(target=self._wait, args=(product,), daemon=True).start()

    def _wait(self, product: int) -> None:
        with self.conn.cursor() as cursor:
            cursor.execute("SELECT id FROM catalogue_product WHERE id = %s FOR UPDATE", [product])
        self.conn.commit()
        self.done.set()

    def close(self) -> None:
        self.conn.close()


class Poller:
    """``read()`` every ``every`` seconds in a thread, each answer with when it was read."""

    def __init__(self, read, every: float):
        self.read, self.every = read, every
        self.seen: list[tuple[float, int]] = []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True)
        self.thread.start()

    def _poll(self) -> None:
        while not self.stopped.is_set():
            self.seen.append((time.monotonic(), self.read()))
            time.sleep(self.every)

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(10)


def after_a_wait_ended(read, every: float) -> list[int]:
    """A waiter seen waiting; ``read()`` polled every ``every`` seconds from then on, while its
    lock is released and its transaction ends, and for a second after: the answers read once
    the wait had ended."""
    lock = RowLock(product_id(COURSE))
    waiter = Waiter(product_id(COURSE))
    try:
        assert wait_for(lambda: locks.waiters(ECOMMERCE_DB) == 1, timeout=15), locks.report()
        poller = Poller(read, every)
        lock.release()
        assert waiter.done.wait(15)
        ended = time.monotonic()
        time.sleep(1)
        poller.stop()
    finally:
        waiter.close()
    return [count for at, count in poller.seen if at > ended]


def test_polling_innodb_trx_faster_than_its_refresh_reads_a_finished_wait_as_waiting(stack):
    """The old test's reading on a fast machine (a new connection and a query took a few ms,
    its reads came about 55 ms apart), stood for on any machine by one kept connection that
    polls every 20 ms from the moment the wait was seen."""
    monitor = mysql.connect("information_schema", account="monitor")

    def raw():
        with monitor.cursor() as cursor:
            cursor.execute(RAW, [ECOMMERCE_DB])
            return cursor.fetchone()[0]

    try:
        seen = after_a_wait_ended(raw, every=0.02)
    finally:
        monitor.close()
    assert seen and seen[0] == 1, seen  # a wait that had ended, read as waiting


def test_the_tests_reading_sees_a_finished_wait_as_finished(stack):
    seen = after_a_wait_ended(lambda: locks.waiters(ECOMMERCE_DB), every=0.02)
    assert seen and all(count == 0 for count in seen), seen
