"""Measuring the order path in-process: what one checkout with fulfilment costs the service.

Each measured order is a new learner buying one seat through POST /api/v2/baskets/ (Django's
test client, so no HTTP server is involved on the ecommerce side; the LMS is called over real
HTTP), and ends like a request does: connections go back to the pool (or are closed).

A paid purchase (``paid``) is two requests, as a learner and the payment processor make it: the
paid checkout (answered with the processor's signed form, nothing placed) and the processor's
ACCEPT notification (POST /payment/cybersource/notify/, signed with the service's own processor
secret), which places the order, records the payment and fulfils it. Its figures are per
purchase (both requests), and per request beside them.

Queries are the SQL statements Django sends, without the BEGIN/COMMIT/ROLLBACK markers it
logs for transaction control; SAVEPOINT statements count as queries. Commits are the COMMITs
Django issued for the order (the tests check the same figure against MariaDB's Com_commit).
Row-lock waits and connections opened are MariaDB's global counters over the run.

The machine's calibration (common/calibration) is taken just before and just after the
measured orders; CPU per order is given in its unit too (``cpu_cal_per_order``: the order's CPU
over the calibration's), which stays put when the machine's speed drifts and the milliseconds
do not.
"""

import json
import time
import uuid
from urllib.parse import urlencode

from django.conf import settings
from django.db import close_old_connections, connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from oscar.core.loading import get_model

from common import calibration, callgrind
from common.contract import cybersource, paths
from common.contract.courses import PAID_MODE, catalogue, free_seats
from common.contract.statuses import ORDER

Order = get_model("order", "Order")

TRANSACTION_MARKERS = ("BEGIN", "COMMIT", "ROLLBACK")


def sql_statements(captured) -> list[str]:
    return [q["sql"] for q in captured if q["sql"].strip().upper() not in TRANSACTION_MARKERS]


def _token(username: str) -> str:
    import jwt

    claims = {
        "username": username,
        "email": f"{username}@example.com",
        "exp": int(time.time()) + 300,
        "iss": settings.JWT_ISSUER,
    }
    return jwt.encode(claims, settings.JWT_SECRET_KEY, algorithm="HS256")


class Buyer:
    def __init__(self):
        self.client = Client(HTTP_HOST=(settings.ALLOWED_HOSTS or ["127.0.0.1"])[0])

    def buy(self, username: str, sku: str):
        return self.client.post(
            paths.BASKETS,
            json.dumps({"products": [{"sku": sku}], "checkout": True}),
            content_type="application/json",
            HTTP_AUTHORIZATION="JWT " + _token(username),
        )

    def notify(self, answer) -> object:
        """The processor's ACCEPT of a paid checkout's ``answer``, posted as the processor posts it."""
        form = answer.json()["payment_data"]["payment_form_data"]
        secret = settings.PAYMENT_PROCESSOR_CONFIG[cybersource.PROCESSOR]["secret_key"]
        return self.client.post(
            paths.payment_notification(cybersource.PROCESSOR),
            urlencode(cybersource.notification(form, secret)),
            content_type="application/x-www-form-urlencoded",
        )


class Purchase:
    """One measured purchase: its requests' statements, commits and CPU, part by part."""

    def __init__(self):
        self.queries: dict[str, int] = {}
        self.commits: dict[str, int] = {}
        self.cpu: dict[str, float] = {}

    def run(self, part: str, call):
        connection.queries_log.clear()  # the log keeps 9000 entries; a long run would overflow it
        started = time.process_time()
        with CaptureQueriesContext(connection) as captured:
            response = call()
        self.cpu[part] = time.process_time() - started
        self.queries[part] = len(sql_statements(captured.captured_queries))
        self.commits[part] = sum(1 for q in captured.captured_queries if q["sql"] == "COMMIT")
        close_old_connections()  # what Django does when a request ends
        return response


def purchase(buyer: Buyer, username: str, sku: str, paid: bool) -> tuple[Purchase, str | None]:
    """A purchase of ``sku`` by a new learner: what it cost, and the order number it placed
    (None when a request failed)."""
    measured = Purchase()
    answer = measured.run("checkout", lambda: buyer.buy(username, sku))
    if answer.status_code != 201:
        return measured, None
    if not paid:
        order = answer.json()["order"]
        return measured, order["number"] if order["status"] == ORDER.COMPLETE else None
    notified = measured.run("notification", lambda: buyer.notify(answer))
    number = answer.json()["payment_data"]["payment_form_data"]["reference_number"]
    return measured, number if notified.status_code == 200 else None


def _global_status(name: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute("SHOW GLOBAL STATUS LIKE %s", [name])
        return int(cursor.fetchone()[1])


def measure(
    orders: int = 200,
    warmup: int = 20,
    courses: int = 1,
    paid: bool = False,
    calibrate: bool = True,
    marks: bool = False,
) -> dict:
    """The figures of ``orders`` purchases after ``warmup`` ones; with ``calibrate``, the
    machine's calibration before and after them and CPU per order in its unit; with ``marks``,
    the measured orders marked out for callgrind (common/callgrind.py)."""
    mode = (PAID_MODE,) if paid else None
    skus = [seat.sku for seat in (catalogue(courses, mode) if paid else free_seats(courses))]
    buyer = Buyer()
    run = uuid.uuid4().hex[:8]

    def name(i):
        return f"bench_{run}_{i}"

    for i in range(warmup):
        purchase(buyer, name(f"w{i}"), skus[i % len(skus)], paid)

    before = calibration.attempt() if calibrate else None
    lock_waits, connects = _global_status("Innodb_row_lock_waits"), _global_status("Connections")
    close_old_connections()
    parts, numbers, cpu, wall = _measured(buyer, [name(i) for i in range(orders)], skus, paid, marks)
    after = calibration.attempt() if calibrate else None
    failures = len(numbers) - _complete(numbers) if paid else numbers.count(None)
    result = {
        "orders": orders,
        "failures": failures,
        "paid": paid,
        "queries_per_order": _per(parts, "queries", orders),
        "commits_per_order": _per(parts, "commits", orders),
        "row_lock_waits": _global_status("Innodb_row_lock_waits") - lock_waits,
        "connections_opened": _global_status("Connections") - connects,
        "cpu_ms_per_order": round(cpu * 1000 / orders, 2),
        "wall_ms_per_order": round(wall * 1000 / orders, 2),
    }
    if calibrate:
        result["calibration"] = sitting = calibration.sitting(before, after)
        result["cpu_cal_per_order"] = calibration.in_units(cpu * 1000 / orders, sitting["ms"])
    if paid:  # the two requests apart
        for part in ("checkout", "notification"):
            result[f"queries_per_{part}"] = _per(parts, "queries", orders, part)
            result[f"commits_per_{part}"] = _per(parts, "commits", orders, part)
            result[f"cpu_ms_per_{part}"] = round(sum(p.cpu.get(part, 0.0) for p in parts) * 1000 / orders, 2)

    result["queries_per_order_known_learner"] = _known_learner_queries(buyer, name("known"), courses, paid)
    result.update(
        driver=settings.MYSQL_DRIVER,
        pool=settings.DATABASES["default"]["ENGINE"],
        counter=settings.ORDER_COUNTER,
        courses=courses,
    )
    return result


def _known_learner_queries(buyer: Buyer, username: str, courses: int, paid: bool) -> int:
    """The queries of the same seat path for a learner the service already knows (no user
    insert): ``username`` buys a seat, then another."""
    mode = (PAID_MODE,) if paid else None
    first, other = [
        seat.sku for seat in (catalogue(max(courses, 2), mode) if paid else free_seats(max(courses, 2)))
    ][:2]
    purchase(buyer, username, first, paid)
    measured, _ = purchase(buyer, username, other, paid)
    return sum(measured.queries.values())


def _measured(
    buyer: Buyer, names: list[str], skus: list[str], paid: bool, marks: bool
) -> tuple[list[Purchase], list[str | None], float, float]:
    """A purchase by each of ``names`` (the seats in turn): what each cost, the order numbers,
    and the CPU and wall seconds of them all; with ``marks``, marked out for callgrind."""
    parts: list[Purchase] = []
    numbers: list[str | None] = []
    if marks:
        callgrind.start_counting()
    started_cpu, started = time.process_time(), time.perf_counter()
    for i, username in enumerate(names):
        measured, number = purchase(buyer, username, skus[i % len(skus)], paid)
        parts.append(measured)
        numbers.append(number)
    cpu, wall = time.process_time() - started_cpu, time.perf_counter() - started
    if marks:
        callgrind.stop_counting()
    return parts, numbers, cpu, wall


def _per(parts: list[Purchase], figure: str, orders: int, part: str | None = None) -> float:
    total = sum(
        sum(getattr(p, figure).values()) if part is None else getattr(p, figure).get(part, 0) for p in parts
    )
    return round(total / orders, 2)


def _complete(numbers: list[str | None]) -> int:
    """How many of the paid orders ``numbers`` were placed and fulfilled (read after the run,
    outside the measurement)."""
    placed = [number for number in numbers if number]
    return Order._default_manager.filter(number__in=placed, status=ORDER.COMPLETE).count()
