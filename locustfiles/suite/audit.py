"""The "nothing lost" audit after a run.

Before the run the audit notes where the order and enrollment tables end. After it, it
compares the order numbers the service answered 2xx during the run (recorded by the load
generator, one per line in answered-orders.txt) with the orders committed in ecommerce and
the enrollments written in lms_stub since then:

* lost: an order number answered 2xx that is not committed. Any loss fails the run.
* duplicates: more than one order of one learner for one seat, or one order number answered
  twice. Any duplicate fails the run.
* unanswered: orders committed for requests that did not get a 2xx (a client timeout, say):
  not lost, but the client does not know it bought.
* enrollments_missing: Complete order lines without an enrollment.
* partial: orders without lines, or whose status disagrees with their lines' (Complete with a
  line not Complete, Fulfillment Error with every line Complete). Any partial order fails the
  run.

The chaos profile also asks for these counts per step (``by_step``): an order belongs to the
step its request started in (answered numbers) or was placed in (committed orders).
"""

import calendar
import os
from collections import Counter, defaultdict
from pathlib import Path

from locustfiles.suite.server import mysql_connect

ANSWERED_FILE = "answered-orders.txt"


def databases() -> tuple[str, str]:
    return os.environ.get("ECOMMERCE_DB_NAME", "ecommerce"), os.environ.get("LMS_DB_NAME", "lms")


def watermarks() -> dict[str, int]:
    ecommerce, lms = databases()
    with mysql_connect() as conn, conn.cursor() as cursor:
        cursor.execute(f"SELECT COALESCE(MAX(id), 0) FROM `{ecommerce}`.order_order")
        order_id = cursor.fetchone()[0]
        cursor.execute(f"SELECT COALESCE(MAX(id), 0) FROM `{lms}`.enrollment_enrollment")
        enrollment_id = cursor.fetchone()[0]
    return {"order_id": int(order_id), "enrollment_id": int(enrollment_id)}


def read_answered(run_dir: Path) -> list[tuple[str, int | None]]:
    """(order number, the second its request started in) for every 2xx order answer."""
    path = Path(run_dir) / ANSWERED_FILE
    if not path.exists():
        return []
    answered = []
    for line in path.read_text().splitlines():
        number, _, second = line.strip().partition(" ")
        if number:
            answered.append((number, int(second) if second else None))
    return answered


PARTIAL_SQL = (
    "SELECT o.id, o.number, o.status, o.user_id, o.date_placed, "
    "COUNT(l.id), COALESCE(SUM(l.status = 'Complete'), 0) "
    "FROM `{db}`.order_order o LEFT JOIN `{db}`.order_line l ON l.order_id = o.id "
    "WHERE o.id > %s GROUP BY o.id"
)


def epoch(value) -> float:
    """A naive UTC datetime from MariaDB (Django stores UTC) as Unix seconds."""
    return calendar.timegm(value.timetuple()) + value.microsecond / 1e6


def is_partial(status: str, lines: int, complete_lines: int) -> bool:
    if lines == 0:
        return True
    if status == "Complete":
        return complete_lines != lines
    if status == "Fulfillment Error":
        return complete_lines == lines
    return False


def audit(run_dir: Path, marks: dict[str, int], successes: int) -> dict:
    ecommerce, lms = databases()
    answered = [number for number, _ in read_answered(run_dir)]
    answered_set = set(answered)
    with mysql_connect() as conn, conn.cursor() as cursor:
        cursor.execute(PARTIAL_SQL.format(db=ecommerce), [marks["order_id"]])
        orders = cursor.fetchall()
        committed = {number: status for _, number, status, _, _, _, _ in orders}
        partial = sum(is_partial(status, int(n), int(c)) for _, _, status, _, _, n, c in orders)
        cursor.execute(
            f"SELECT COUNT(*) - COUNT(DISTINCT o.user_id, l.product_id), "
            f"COALESCE(SUM(l.status = 'Complete'), 0) "
            f"FROM `{ecommerce}`.order_line l JOIN `{ecommerce}`.order_order o ON o.id = l.order_id "
            "WHERE o.id > %s",
            [marks["order_id"]],
        )
        duplicate_seats, complete_lines = cursor.fetchone()
        cursor.execute(
            f"SELECT COUNT(*) FROM `{lms}`.enrollment_enrollment WHERE id > %s", [marks["enrollment_id"]]
        )
        enrollments = cursor.fetchone()[0]
    statuses: dict[str, int] = {}
    for status in committed.values():
        statuses[status] = statuses.get(status, 0) + 1
    lost = sorted(answered_set - committed.keys())
    result = {
        "successes": successes,
        "answered_numbers": len(answered),
        "orders": len(committed),
        "enrollments": int(enrollments),
        "lost": len(lost),
        "duplicates": int(duplicate_seats) + (len(answered) - len(answered_set)),
        "unanswered": len(committed.keys() - answered_set),
        "orders_by_status": statuses,
        "enrollments_missing": max(0, int(complete_lines) - int(enrollments)),
        "partial": partial,
        "lost_examples": lost[:20],
    }
    result["passed"] = (
        result["lost"] == 0 and result["duplicates"] == 0 and partial == 0 and len(answered) == successes
    )
    return result


def by_step(run_dir: Path, marks: dict[str, int], step_of) -> dict[int, dict]:
    """lost, duplicates and partial orders per step; ``step_of(second)`` names the step of a
    Unix second (or None)."""
    ecommerce, _ = databases()
    with mysql_connect() as conn, conn.cursor() as cursor:
        cursor.execute(PARTIAL_SQL.format(db=ecommerce), [marks["order_id"]])
        orders = cursor.fetchall()
        cursor.execute(
            f"SELECT o.user_id, l.product_id, o.date_placed FROM `{ecommerce}`.order_line l "
            f"JOIN `{ecommerce}`.order_order o ON o.id = l.order_id WHERE o.id > %s ORDER BY o.id",
            [marks["order_id"]],
        )
        seat_lines = cursor.fetchall()
    steps: dict[int, Counter] = defaultdict(Counter)
    committed = set()
    for _, number, status, _, placed, lines, complete in orders:
        committed.add(number)
        if is_partial(status, int(lines), int(complete)):
            steps[step_of(int(epoch(placed)))]["partial"] += 1
    seen_numbers = set()
    for number, second in read_answered(run_dir):
        step = step_of(second) if second is not None else None
        if number not in committed:
            steps[step]["lost"] += 1
        if number in seen_numbers:
            steps[step]["duplicates"] += 1
        seen_numbers.add(number)
    seen_seats = set()
    for user, product, placed in seat_lines:
        if (user, product) in seen_seats:
            steps[step_of(int(epoch(placed)))]["duplicates"] += 1
        seen_seats.add((user, product))
    return {
        index: {key: counts.get(key, 0) for key in ("lost", "duplicates", "partial")}
        for index, counts in steps.items()
        if index is not None
    }
