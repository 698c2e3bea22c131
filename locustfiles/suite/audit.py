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

The database facts come through ``facts``: the orders and enrollments above the watermarks,
with the order status names as ecommerce answers them.
"""

from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path

from locustfiles.suite import facts
from locustfiles.suite.facts import databases, watermarks

__all__ = ["ANSWERED_FILE", "audit", "by_step", "databases", "read_answered", "watermarks"]

ANSWERED_FILE = "answered-orders.txt"


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


def is_partial(order: dict, statuses: dict[str, str]) -> bool:
    """An order without lines, or whose status (named as the service names it) disagrees with
    how many of its lines are Complete."""
    lines, complete = len(order["products"]), order["complete_lines"]
    if lines == 0:
        return True
    if order["status"] == statuses["complete"]:
        return complete != lines
    if order["status"] == statuses["fulfillment_error"]:
        return complete == lines
    return False


def repeated_seats(orders: list[dict]) -> Iterator[dict]:
    """The order of each line that buys a seat its learner already bought above the watermark
    (orders in the order they were placed)."""
    seen = set()
    for order in orders:
        for product in order["products"]:
            seat = (order["user"], product)
            if seat in seen:
                yield order
            seen.add(seat)


def audit(run_dir: Path, marks: dict[str, int], successes: int) -> dict:
    found = facts.since(marks)
    answered = [number for number, _ in read_answered(run_dir)]
    answered_set = set(answered)
    committed = {order["number"]: order["status"] for order in found.orders}
    partial = sum(is_partial(order, found.statuses) for order in found.orders)
    complete_lines = sum(order["complete_lines"] for order in found.orders)
    lost = sorted(answered_set - committed.keys())
    result = {
        "successes": successes,
        "answered_numbers": len(answered),
        "orders": len(committed),
        "enrollments": found.enrollments,
        "lost": len(lost),
        "duplicates": sum(1 for _ in repeated_seats(found.orders)) + (len(answered) - len(answered_set)),
        "unanswered": len(committed.keys() - answered_set),
        "orders_by_status": dict(Counter(committed.values())),
        "statuses": found.statuses,  # ecommerce's names: open, complete, fulfillment_error
        "enrollments_missing": max(0, complete_lines - found.enrollments),
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
    found = facts.since(marks)
    steps: dict[int, Counter] = defaultdict(Counter)
    for order in found.orders:
        if is_partial(order, found.statuses):
            steps[step_of(int(order["placed"]))]["partial"] += 1
    for order in repeated_seats(found.orders):
        steps[step_of(int(order["placed"]))]["duplicates"] += 1
    committed = {order["number"] for order in found.orders}
    seen_numbers = set()
    for number, second in read_answered(run_dir):
        step = step_of(second) if second is not None else None
        if number not in committed:
            steps[step]["lost"] += 1
        if number in seen_numbers:
            steps[step]["duplicates"] += 1
        seen_numbers.add(number)
    return {
        index: {key: counts.get(key, 0) for key in ("lost", "duplicates", "partial")}
        for index, counts in steps.items()
        if index is not None
    }
