"""The calibration's workload (common/calibration says what it is for): a fixed amount of what an
order is made of, in two parts timed apart:

* interpreter work: small objects, attribute and dict look-ups, calls, string building, a
  regular expression, exceptions raised and caught, Decimal sums, JSON out and back;
* a batch of MariaDB statements through PyMySQL (the services' driver), in two transactions
  as an order's: parameterised SELECTs answering the column types an order reads (integers,
  text, decimals, datetimes), a read of several rows, and session writes answered, as an
  INSERT or an UPDATE is, with an OK packet. They read and write no table, so any account may
  run them: the monitoring account's connection (common/monitor_account.py) does.

A round is one of each part, as an order mixes them; ROUNDS rounds run after WARM_UP untimed
ones. The result is in ms of the process's CPU for the median round of each part (``ms`` =
``python_ms`` + ``sql_ms``), and of the wall clock for the mean round (``wall_ms``, which adds
MariaDB's side and the round trips). A round costs about what one free order costs the
ecommerce process, so an order's figure in this unit is near 1.

``python -m common.calibration`` runs it and prints it as one JSON line.
"""

import json
import re
import statistics
import sys
import time
from decimal import Decimal
from typing import Any

from common.calibration import Calibration
from common.monitor_account import mysql_connect

ROUNDS = 100
WARM_UP = 5

PATH = re.compile(r"^/api/v2/(?P<resource>[a-z]+)/(?:(?P<number>[A-Z]+-\d+)/)?(?P<action>[a-z]*)/?$")
# Requests' worth of interpreter work a round: with the statements, about an order's CPU.
REQUESTS = 160
PATHS = ("/api/v2/baskets/", "/api/v2/orders/EDX-100017/", "/api/v2/orders/EDX-100017/fulfill/")


class Line:
    __slots__ = ("sku", "quantity", "price", "status")

    def __init__(self, sku: str, quantity: int, price: Decimal):
        self.sku, self.quantity, self.price, self.status = sku, quantity, price, "Open"

    @property
    def total(self) -> Decimal:
        return self.price * self.quantity


class Invalid(Exception):
    pass


def _checked(field: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise Invalid(f"{field} must be a non-empty string")
    return value.strip()


def _interpreter_round(seed: int) -> int:
    """One round of interpreter work; its answer depends on all of it (a checksum)."""
    found = 0
    for i in range(REQUESTS):
        request: dict[str, Any] = {
            "path": PATHS[(seed + i) % len(PATHS)],
            "headers": {f"HTTP_X_{k}".upper(): f"value-{seed}-{k}" for k in range(12)},
            "body": {"products": [{"sku": f"SKU{(seed * 7 + i) % 97:05d}"}], "checkout": True},
        }
        match = PATH.match(request["path"])
        found += len(match["resource"]) if match else 0
        lines = [
            Line(p["sku"], 1 + j, Decimal("49.00") + j) for j, p in enumerate(request["body"]["products"] * 4)
        ]
        total = sum((line.total for line in lines), Decimal("0.00"))
        try:
            _checked("username", request["headers"].get("HTTP_X_99"))
        except Invalid as exc:
            found += len(str(exc))
        answer = {
            "id": seed * 100 + i,
            "order": {
                "number": f"EDX-{100000 + seed * 100 + i}",
                "status": "Complete",
                "total_excl_tax": str(total),
                "lines": [
                    {"sku": line.sku, "quantity": line.quantity, "status": line.status} for line in lines
                ],
            },
        }
        text = json.dumps(answer, sort_keys=True)
        found += len(json.loads(text)["order"]["lines"]) + len(text)
        found += sum(len(k) + len(v) for k, v in sorted(request["headers"].items()))
    return found


# (statement, parameters for round ``n``): an order's shape in two transactions. Each
# transaction is begun and committed around its statements (``_sql_round``).
PLACE = (
    (
        "SELECT %s AS id, %s AS username, %s AS email, %s AS is_active, NOW(6) AS joined",
        lambda n: (n, f"learner_{n}", f"learner_{n}@example.com", True),
    ),
    (
        "SELECT %s AS id, %s AS sku, CAST(%s AS DECIMAL(12, 2)) AS price, %s AS title, NOW(6) AS updated",
        lambda n: (n % 97, f"SKU{n % 97:05d}", "49.00", f"Course {n % 97}"),
    ),
    ("SELECT %s AS basket_id, %s AS owner_id, %s AS status, NOW(6) AS created", lambda n: (n, n, "Open")),
    ("SET @basket = %s, @line = %s, @price = %s", lambda n: (n, f"SKU{n % 97:05d}", "49.00")),
    (
        "SET @order_id = %s, @number = %s, @total = %s, @currency = %s",
        lambda n: (n, f"EDX-{100000 + n}", "49.00", "USD"),
    ),
    ("SET @order_line = %s, @status = %s", lambda n: (n, "Open")),
    (
        "WITH RECURSIVE line_numbers(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM line_numbers WHERE i < 6) "
        "SELECT i, CONCAT(%s, '-', i), CAST(i * %s AS DECIMAL(12, 2)), NOW(6) FROM line_numbers",
        lambda n: (f"EDX-{100000 + n}", "49.00"),
    ),
    (
        "SELECT %s AS number, %s AS status, CAST(%s AS DECIMAL(12, 2)) AS total, NOW(6) AS placed",
        lambda n: (f"EDX-{100000 + n}", "Open", "49.00"),
    ),
)
RECORD = (
    ("SELECT %s AS id, %s AS status FROM DUAL WHERE %s > 0", lambda n: (n, "Open", n + 1)),
    ("SET @status = %s, @line_status = %s", lambda n: ("Complete", "Complete")),
    ("SET @enrolled = %s", lambda n: (n,)),
)


def _sql_round(connection, n: int) -> int:
    """One round of statements on ``connection``: the rows it read."""
    rows = 0
    for statements in (PLACE, RECORD):
        connection.begin()
        with connection.cursor() as cursor:
            for sql, parameters in statements:
                cursor.execute(sql, parameters(n))
                rows += len(cursor.fetchall())
        connection.commit()
    return rows


def calibrate(connection, rounds: int = ROUNDS) -> Calibration:
    """The workload on this process and ``connection`` (PyMySQL), timed; per round, the median
    round of each part: a burst of another process's work (a cache it emptied) moves a few
    rounds, not the figure."""
    for n in range(WARM_UP):  # the regular expression compiled, the interpreter's caches warm
        _interpreter_round(n)
        _sql_round(connection, n)
    python, sql = [], []
    wall = time.perf_counter()
    for n in range(rounds):
        started = time.process_time()
        _interpreter_round(n)
        between = time.process_time()
        _sql_round(connection, n)
        python.append(between - started)
        sql.append(time.process_time() - between)
    wall = time.perf_counter() - wall
    return {
        "ms": _ms(statistics.median(python) + statistics.median(sql)),
        "python_ms": _ms(statistics.median(python)),
        "sql_ms": _ms(statistics.median(sql)),
        "wall_ms": _ms(wall / rounds),
        "rounds": rounds,
    }


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 4)


def main() -> int:
    try:
        connection = mysql_connect()
    except Exception as exc:  # any failure to connect: the caller says it was not taken
        print(f"calibration: MariaDB not reachable: {exc}", file=sys.stderr)
        return 1
    try:
        print(json.dumps(calibrate(connection)))
    finally:
        connection.close()
    return 0
