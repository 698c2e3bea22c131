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

And payments (``payments``), since a paid seat is placed by the processor's notification:

* unsettled: a paid order (total above 0) without exactly one settled payment (one Oscar
  source that allocated and debited its total and refunded nothing, and one Paid payment
  event of its total), or a free order with a payment. Any fails the run.
* enrolled_unpaid: an enrollment in a paid seat's mode above the watermark with no settled
  payment of that learner for that course behind it. Any fails the run.
* without_order: a payment the processor accepted (a transaction of decision ACCEPT) whose
  notifications placed no order, were no replay and owe no refund: refused for its amount,
  currency or reference, or failed. Any fails the run. A notification with a bad signature is
  no payment (anyone can post one) and is not counted.
* refund_owed: accepted payments recorded as owing a refund (the learner already owned the
  seat): reported, counted apart, not a failure.
* notifications: every notification above the watermark, by outcome; accepted payments by
  what became of them (placed, refund_owed, taken_before: only a replay of one accepted before
  the run, without_order).

The chaos profile also asks for these counts per step (``by_step``): an order belongs to the
step its request started in (answered numbers) or was placed in (committed orders).

The database facts come through ``facts``: the orders and enrollments above the watermarks,
with the order status names as ecommerce answers them.
"""

from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

from common.contract.statuses import NOTIFICATION
from locustfiles.suite.verdict import facts
from locustfiles.suite.verdict.facts import databases, watermarks

__all__ = [
    "ANSWERED_FILE",
    "audit",
    "by_step",
    "databases",
    "payments",
    "problems",
    "read_answered",
    "running_counts",
    "watermarks",
]

EXAMPLES = 20

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
        "lost_examples": lost[:EXAMPLES],
        "payments": payments(found),
    }
    result["passed"] = not problems(result)
    return result


def running_counts(marks: dict[str, int] | None) -> dict[str, int] | None:
    """The rows written since ``marks`` so far (facts.written_since), for a running run's live
    tab; None when they cannot be read now (no watermarks, the database restarting)."""
    if marks is None:
        return None
    try:
        return facts.written_since(marks)
    except Exception:  # the next count, 5 s later, may read them
        return None


def problems(result: Mapping[str, Any]) -> list[str]:
    """What fails the audit ``result``, in words (nothing: it passed)."""
    found = [
        f"{result[key]} {words}"
        for key, words in (("lost", "lost"), ("duplicates", "duplicated"), ("partial", "partial"))
        if result.get(key)
    ]
    if result.get("answered_numbers") != result.get("successes"):
        found.append(
            f"{result.get('successes')} purchases answered but {result.get('answered_numbers')} order "
            "numbers recorded"
        )
    paid = result.get("payments") or {}
    for key, words in (
        ("unsettled", "orders without exactly one settled payment"),
        ("enrolled_unpaid", "paid seats enrolled without a payment"),
        ("without_order", "accepted payments without their order"),
    ):
        if paid.get(key):
            found.append(f"{paid[key]} {words}")
    return found


def settled(payment: dict) -> bool:
    """Exactly one settled payment of what the order costs: one source that allocated and
    debited the total and refunded nothing, and one Paid event of the total."""
    total = Decimal(payment["total"])
    sources, events = payment["sources"], payment["paid_events"]
    if total <= 0 or len(sources) != 1 or len(events) != 1:
        return False
    (source,) = sources
    return (
        Decimal(source["allocated"]) == Decimal(source["debited"]) == Decimal(events[0]) == total
        and Decimal(source["refunded"]) == 0
    )


def _paid_seats(payments_: list[dict]) -> set[tuple[str, str]]:
    """(learner, course) of every line of the orders among ``payments_`` that were settled."""
    return {(p["learner"], course) for p in payments_ if settled(p) for course in p["courses"] if course}


def payments(found: facts.Since, payments_of: Callable | None = None) -> dict:
    """The payment rules over what the services hold above the watermarks. An enrollment in a
    paid seat whose order is older than the run (a retry fulfilled it) is looked up with
    ``payments_of`` (the learners' own orders; facts.payments_of unless given)."""
    with_payment = [order for order in found.orders if "payment" in order]
    paid = [order for order in with_payment if Decimal(order["total"]) > 0]
    not_settled = [order["number"] for order in paid if not settled(order["payment"])]
    paid_for_nothing = [order["number"] for order in with_payment if Decimal(order["total"]) <= 0]
    covered = _paid_seats([order["payment"] for order in paid])
    unpaid = [tuple(seat) for seat in found.paid_enrollments if tuple(seat) not in covered]
    if unpaid:
        older = (payments_of or facts.payments_of)(sorted({learner for learner, _ in unpaid})).orders
        covered |= _paid_seats([p for listed in older.values() for p in listed])
        unpaid = [seat for seat in unpaid if seat not in covered]
    unsettled = not_settled + paid_for_nothing
    result = {
        "paid_orders": len(paid),
        "settled": len(paid) - len(not_settled),
        "unsettled": len(unsettled),
        "paid_enrollments": len(found.paid_enrollments),
        "enrolled_unpaid": len(unpaid),
        "examples": {
            "unsettled": unsettled[:EXAMPLES],
            "enrolled_unpaid": [list(seat) for seat in unpaid[:EXAMPLES]],
        },
    }
    result.update(_accepted_payments(found.notifications))
    return result


def _accepted_payments(notifications: dict | None) -> dict:
    """What became of each payment the processor accepted; None each when not known."""
    if notifications is None:
        keys = ("notifications", "accepted", "placed", "refund_owed", "taken_before", "without_order")
        return dict.fromkeys(keys)
    counts: Counter[str] = Counter()
    without = []
    for payment in notifications["accepted"]:
        outcomes = set(payment["outcomes"])
        if outcomes == {NOTIFICATION.INVALID_SIGNATURE}:
            continue  # not the processor's: anyone may post a notification
        if NOTIFICATION.PLACED in outcomes:
            counts["placed"] += 1
        elif NOTIFICATION.REFUND_OWED in outcomes:
            counts["refund_owed"] += 1
        elif NOTIFICATION.REPLAY in outcomes:
            counts["taken_before"] += 1  # a copy of one taken before the watermark
        else:
            counts["without_order"] += 1
            without.append(payment["reference"])
    return {
        "notifications": notifications["by_outcome"],
        "accepted": sum(counts.values()),
        "placed": counts["placed"],
        "refund_owed": counts["refund_owed"],
        "taken_before": counts["taken_before"],
        "without_order": counts["without_order"],
        "without_order_examples": without[:EXAMPLES],
    }


def by_step(
    run_dir: Path, marks: dict[str, int], step_of: Callable[[int], int | None]
) -> dict[int, dict[str, int]]:
    """lost, duplicates, partial and unanswered orders per step; ``step_of(second)`` names the
    step of a Unix second (or None)."""
    found = facts.since(marks)
    steps: dict[int | None, Counter[str]] = defaultdict(Counter)  # None: in no step, left out
    answered = list(read_answered(run_dir))
    answered_numbers = {number for number, _ in answered}
    for order in found.orders:
        if is_partial(order, found.statuses):
            steps[step_of(int(order["placed"]))]["partial"] += 1
        if order["number"] not in answered_numbers:
            steps[step_of(int(order["placed"]))]["unanswered"] += 1
    for order in repeated_seats(found.orders):
        steps[step_of(int(order["placed"]))]["duplicates"] += 1
    committed = {order["number"] for order in found.orders}
    seen_numbers = set()
    for number, second in answered:
        step = step_of(second) if second is not None else None
        if number not in committed:
            steps[step]["lost"] += 1
        if number in seen_numbers:
            steps[step]["duplicates"] += 1
        seen_numbers.add(number)
    return {
        index: {key: counts.get(key, 0) for key in ("lost", "duplicates", "partial", "unanswered")}
        for index, counts in steps.items()
        if index is not None
    }
