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
"""

import os
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


def read_answered(run_dir: Path) -> list[str]:
    path = Path(run_dir) / ANSWERED_FILE
    if not path.exists():
        return []
    return [line.strip() for line in path.read_text().splitlines() if line.strip()]


def audit(run_dir: Path, marks: dict[str, int], successes: int) -> dict:
    ecommerce, lms = databases()
    answered = read_answered(run_dir)
    answered_set = set(answered)
    with mysql_connect() as conn, conn.cursor() as cursor:
        cursor.execute(
            f"SELECT number, status FROM `{ecommerce}`.order_order WHERE id > %s", [marks["order_id"]]
        )
        committed = dict(cursor.fetchall())
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
        "lost_examples": lost[:20],
    }
    result["passed"] = result["lost"] == 0 and result["duplicates"] == 0 and len(answered) == successes
    return result
