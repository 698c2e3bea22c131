"""Database facts the audit and the chaos faults need, asked of the services themselves.

Each service answers for its own database with a management command that prints one JSON
object: ecommerce's ``order_facts`` (order status names, orders since a watermark with their
lines, orders of a learner) and lms_stub's ``enrollment_facts`` (enrollments since a
watermark). The suite holds no SQL on their tables and no copy of their status names. The two
commands run at once, one process per service per question, however many orders there are.
"""

import json
from dataclasses import dataclass

from locustfiles.suite import commands

TIMEOUT_SECONDS = 600


@dataclass
class Since:
    """What the services hold above the watermarks."""

    statuses: dict[str, str]  # the order statuses as ecommerce names them: open, complete, ...
    orders: list[dict]  # number, status, user, placed, products, complete_lines; in order placed
    enrollments: int


def watermarks() -> dict[str, int]:
    """The highest order and enrollment ids now: a run's orders and enrollments are above them."""
    orders, enrollments = _ask(("ecommerce", "order_facts"), ("lms_stub", "enrollment_facts"))
    return {"order_id": orders["watermark"], "enrollment_id": enrollments["watermark"]}


def since(marks: dict[str, int]) -> Since:
    orders, enrollments = _ask(
        ("ecommerce", "order_facts", "--since", str(marks["order_id"])),
        ("lms_stub", "enrollment_facts", "--since", str(marks["enrollment_id"])),
    )
    return Since(orders["statuses"], orders["orders"], enrollments["enrollments"])


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
