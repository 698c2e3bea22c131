"""Measuring the order path in-process: what one checkout with fulfilment costs the service.

Each measured order is a new learner buying one seat through POST /api/v2/baskets/ (Django's
test client, so no HTTP server is involved on the ecommerce side; the LMS is called over real
HTTP), and ends like a request does: connections go back to the pool (or are closed).

Queries are the SQL statements Django sends, without the BEGIN/COMMIT/ROLLBACK markers it
logs for transaction control; SAVEPOINT statements count as queries. Commits are the COMMITs
Django issued for the order (the tests check the same figure against MariaDB's Com_commit).
Row-lock waits and connections opened are MariaDB's global counters over the run.
"""

import json
import time
import uuid

from django.conf import settings
from django.db import close_old_connections, connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from common.contract.courses import free_seats

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
            "/api/v2/baskets/",
            json.dumps({"products": [{"sku": sku}], "checkout": True}),
            content_type="application/json",
            HTTP_AUTHORIZATION="JWT " + _token(username),
        )


def _global_status(name: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute("SHOW GLOBAL STATUS LIKE %s", [name])
        return int(cursor.fetchone()[1])


def measure(orders: int = 200, warmup: int = 20, courses: int = 1) -> dict:
    skus = [seat.sku for seat in free_seats(courses)]
    buyer = Buyer()
    run = uuid.uuid4().hex[:8]

    def name(i):
        return f"bench_{run}_{i}"

    for i in range(warmup):
        buyer.buy(name(f"w{i}"), skus[i % len(skus)])

    lock_waits, connects = _global_status("Innodb_row_lock_waits"), _global_status("Connections")
    close_old_connections()
    statements = commits = failures = 0
    started_cpu, started = time.process_time(), time.perf_counter()
    for i in range(orders):
        connection.queries_log.clear()  # the log keeps 9000 entries; a long run would overflow it
        with CaptureQueriesContext(connection) as captured:
            response = buyer.buy(name(i), skus[i % len(skus)])
        statements += len(sql_statements(captured.captured_queries))
        commits += sum(1 for q in captured.captured_queries if q["sql"] == "COMMIT")
        close_old_connections()  # what Django does when a request ends
        if response.status_code != 201 or response.json()["order"]["status"] != "Complete":
            failures += 1
    cpu, wall = time.process_time() - started_cpu, time.perf_counter() - started
    result = {
        "orders": orders,
        "failures": failures,
        "queries_per_order": round(statements / orders, 2),
        "commits_per_order": round(commits / orders, 2),
        "row_lock_waits": _global_status("Innodb_row_lock_waits") - lock_waits,
        "connections_opened": _global_status("Connections") - connects,
        "cpu_ms_per_order": round(cpu * 1000 / orders, 2),
        "wall_ms_per_order": round(wall * 1000 / orders, 2),
    }

    # The same seat path for a learner the service already knows (no user insert).
    known = name("known")
    buyer.buy(known, skus[0])
    other = free_seats(max(courses, 2))[1].sku
    connection.queries_log.clear()
    with CaptureQueriesContext(connection) as captured:
        buyer.buy(known, other)
    result["queries_per_order_known_learner"] = len(sql_statements(captured.captured_queries))
    result.update(
        driver=settings.MYSQL_DRIVER,
        pool=settings.DATABASES["default"]["ENGINE"],
        counter=settings.ORDER_COUNTER,
        courses=courses,
    )
    return result
