"""Database facts the audit and the chaos faults need: the one place the suite gets them.

After a run, each service answers for its own database with a management command that prints
one JSON object: ecommerce's ``order_facts`` (its order status names, the orders above a
watermark with their lines and payments, the payment notifications above another, the orders
and payments of some learners) and lms_stub's ``enrollment_facts`` (the enrollments above a
watermark, and which are paid seats). The two run at once, one process per service per
question however many orders there are, and the suite copies no status name.

The watermarks are the exception: where the order, notification and enrollment ids stand, read
over one MySQL connection here. They are taken as a run starts, inside Locust's test_start,
which must be done in milliseconds: a load shape's next tick kills a test_start that is still
waiting (and starts another), and a Django process needs seconds to start (minutes on a loaded
machine). The connection is the monitoring account's, which reads no row of the services: the
tables' AUTO_INCREMENT, which information_schema shows it, says where their ids stand.
"""

import json
from dataclasses import dataclass, field
from typing import NamedTuple

from common.environment import get
from common.monitor_account import mysql_connect
from locustfiles.suite.stack import commands

TIMEOUT_SECONDS = 600


@dataclass
class Since:
    """What the services hold above the watermarks."""

    statuses: dict[str, str]  # the order statuses as ecommerce names them: open, complete, ...
    # number, status, user, placed, total, products, complete_lines, and the payment of one that
    # costs something (total, learner, courses, sources, paid_events); in the order placed
    orders: list[dict]
    enrollments: int
    paid_enrollments: list[list[str]] = field(default_factory=list)  # [learner, course], paid mode
    # The payment notifications: by_outcome, and the accepted payments (reference, transaction,
    # outcomes, order); None when no watermark was taken for them.
    notifications: dict | None = None


def databases() -> tuple[str, str]:
    """(ecommerce's, lms_stub's) database names, as the stack's environment sets them."""
    return get("ECOMMERCE_DB_NAME"), get("LMS_DB_NAME")


# The tables whose ids give a watermark (the payment notifications are ecommerce's app
# "processors").
WATERMARK_TABLES = {
    "order_id": ("ecommerce", "order_order"),
    "notification_id": ("ecommerce", "processors_paymentnotification"),
    "enrollment_id": ("lms", "enrollment_enrollment"),
}


def watermarks() -> dict[str, int]:
    """The order, payment notification and enrollment ids given out so far: a run's rows of
    each are above them. A table's next AUTO_INCREMENT less one is at least its highest id (ids
    of rolled-back rows are never given again), and every row written later has a higher one."""
    names = dict(zip(("ecommerce", "lms"), databases(), strict=True))
    marks = {}
    with mysql_connect() as conn, conn.cursor() as cursor:
        for mark, (service, table) in WATERMARK_TABLES.items():
            cursor.execute(
                "SELECT AUTO_INCREMENT FROM information_schema.TABLES "
                "WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s",
                [names[service], table],
            )
            row = cursor.fetchone()
            if row is None:
                raise RuntimeError(
                    f"{names[service]}.{table} is not there, or the monitoring account cannot see it"
                )
            marks[mark] = int(row[0] or 1) - 1
    return marks


def written_since(marks: dict[str, int]) -> dict[str, int]:
    """The ids each watermarked table gave out since ``marks``: its rows written since, committed
    or rolled back (a rolled-back row's id is not given again), as a running count while the
    run goes; which were committed is the audit's, at the end, from the services' own answers."""
    now = watermarks()
    return {mark: now[mark] - given for mark, given in marks.items()}


def since(marks: dict[str, int]) -> Since:
    order_question = ["ecommerce", "order_facts", "--since", str(marks["order_id"])]
    if "notification_id" in marks:
        order_question += ["--notifications-since", str(marks["notification_id"])]
    orders, enrollments = _ask(
        tuple(order_question), ("lms_stub", "enrollment_facts", "--since", str(marks["enrollment_id"]))
    )
    return Since(
        orders["statuses"],
        orders["orders"],
        enrollments["enrollments"],
        enrollments.get("paid", []),
        orders.get("notifications"),
    )


class LearnerPayments(NamedTuple):
    """Some learners' payments, as ecommerce tells them."""

    orders: dict[str, list[dict]]  # learner -> paid orders: number, status, total, sources, ...
    notifications: dict[str, list[dict]]  # learner -> reference, transaction, decision, outcome
    statuses: dict[str, str]  # the order statuses as ecommerce names them


def payments_of(learners: list[str]) -> LearnerPayments:
    """Each learner's paid orders with their payments, and the notifications of their baskets,
    oldest first."""
    (answer,) = _ask(("ecommerce", "order_facts", *(f"--payments-of={name}" for name in learners)))
    return LearnerPayments(answer["payments"], answer["notifications_of"], answer["statuses"])


def orders_of(learners: list[str]) -> dict[str, int]:
    """How many orders each learner has."""
    (answer,) = _ask(("ecommerce", "order_facts", *(f"--learner={name}" for name in learners)))
    return answer["learners"]


def _ask(*questions: tuple[str, ...]) -> list[dict]:
    """Run each (service, command, args...) at once; the JSON object each printed last."""
    started = [commands.start(*question) for question in questions]
    answers = []
    for question, process in zip(questions, started, strict=True):
        done = commands.finish(process, TIMEOUT_SECONDS)
        lines = done.stdout.strip().splitlines()
        if done.returncode != 0 or not lines:
            raise RuntimeError(f"{' '.join(question)} failed: {(done.stdout + done.stderr)[-300:]}")
        answers.append(json.loads(lines[-1]))
    return answers
