"""Rule 2 under real concurrency: K orders for one seat, all in flight at once over several
gunicorn worker processes, wait on no row lock (with the rollup folding meanwhile) and leave
the purchase count at exactly K, while Oscar's counter under the same load does wait (the
positive control);
Oscar's dashboard report shows the folded number. ORDER_COUNTER=oscar brings back Oscar's
per-order counter for comparison runs."""

import csv
import io
import os
import select
import signal
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from common.contract.courses import seat
from tests.integration.conftest import ECOMMERCE_DB, STAFF_PASSWORD
from tests.integration.helpers import StatusReader, new_name, order, product_id, staff_session
from tests.support import mysql, servers

pytestmark = pytest.mark.slow

K = 60
COURSE = 5


def folded_purchases(course: int) -> int:
    rows = mysql.query(
        ECOMMERCE_DB,
        "SELECT num_purchases FROM analytics_productrecord WHERE product_id = %s",
        [product_id(course)],
    )
    return rows[0][0] if rows else 0


def waiting_events(course: int) -> int:
    return mysql.count(ECOMMERCE_DB, "counters_purchaseevent", "product_id = %s", [product_id(course)])


def at_once(url: str, course: int, k: int = K) -> list[int]:
    """K orders for one seat from K threads released together by a barrier: all K are in
    flight at once, not K spread over a smaller pool. Their status codes."""
    barrier = threading.Barrier(k)

    def one(_):
        name = new_name()
        barrier.wait(timeout=30)
        return order(url, name, course).status_code

    with ThreadPoolExecutor(k) as pool:
        return list(pool.map(one, range(k)))


def lock_waits_during(action) -> tuple[object, int]:
    """What ``action()`` returned, and the row lock waits MariaDB counted meanwhile."""
    status = StatusReader()
    try:
        waits = status.read("Innodb_row_lock_waits")["Innodb_row_lock_waits"]
        result = action()
        return result, status.read("Innodb_row_lock_waits")["Innodb_row_lock_waits"] - waits
    finally:
        status.close()


def test_concurrent_orders_for_one_seat_wait_on_no_lock_and_count_exactly(stack):
    """The rollup loop folds while the orders arrive: neither waits on the other."""
    service = stack.another_ecommerce(workers=3)
    stack.manage("rollup_counters")
    before = folded_purchases(COURSE)
    rollup = subprocess.Popen(
        [sys.executable, "manage.py", "rollup_counters", "--loop", "--interval", "0.1"],
        cwd=servers.ROOT,
        env={**os.environ, **stack.env, "DJANGO_SETTINGS_MODULE": "settings.local"},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        # The orders only once it folds: a SIGTERM before its handler is set (Django still
        # starting) would end it with the events unfolded (once in six runs).
        ready, _, _ = select.select([rollup.stdout], [], [], 60)
        assert ready and rollup.stdout.readline().startswith("folding purchase events every")
        codes, lock_waits = lock_waits_during(lambda: at_once(service.url, COURSE))
    finally:
        rollup.send_signal(signal.SIGTERM)  # it folds what is left, then exits
        rollup.communicate(timeout=60)
        service.stop()

    assert codes == [201] * K
    assert lock_waits == 0
    assert waiting_events(COURSE) == 0
    assert folded_purchases(COURSE) - before == K


def test_the_dashboard_report_shows_the_folded_count(stack):
    order(stack.ecommerce.url, new_name(), COURSE)
    stack.manage("rollup_counters")
    staff = staff_session(stack.ecommerce.url, STAFF_PASSWORD)

    report = staff.get(
        stack.ecommerce.url + "/dashboard/reports/",
        params={"report_type": "product_analytics", "download": "true"},
        timeout=10,
    )

    assert report.status_code == 200
    rows = {row[0]: row for row in csv.reader(io.StringIO(report.text))}
    assert int(rows[seat(COURSE).title][3]) == folded_purchases(COURSE) > 0


def test_oscar_counter_under_the_same_concurrency_waits_on_its_row(stack):
    """The positive control of the test above: the lock wait counter does see waits when they
    happen. Oscar's counter updates the seat's one row inside every order's transaction, so K
    orders at once queue on it."""
    service = stack.another_ecommerce(workers=3, ORDER_COUNTER="oscar")
    try:
        # The seat's record made first, alone: K first purchases at once race to create it, and
        # under REPEATABLE READ the get_or_create that loses can neither insert nor see it (a
        # 500, once in a clean-clone make test). Its one row's queue is what this control is about.
        assert order(service.url, new_name(), 3).status_code == 201
        before = folded_purchases(3)
        codes, lock_waits = lock_waits_during(lambda: at_once(service.url, 3))
    finally:
        service.stop()
    assert codes == [201] * K
    assert lock_waits > 0
    assert folded_purchases(3) - before == K


def test_order_counter_oscar_counts_inside_each_order(stack):
    service = stack.another_ecommerce(workers=1, ORDER_COUNTER="oscar")
    try:
        stack.manage("rollup_counters")
        before, events = folded_purchases(4), waiting_events(4)
        for _ in range(3):
            assert order(service.url, new_name(), 4).status_code == 201
        assert folded_purchases(4) - before == 3  # counted at once, by Oscar's receiver
        assert waiting_events(4) == events  # and no event written
    finally:
        service.stop()
