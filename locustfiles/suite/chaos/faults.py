"""The faults: one class each, registered in FAULTS in the order a chaos run plays them.

A fault knows how to cause itself (``inject``), how to end itself whatever state a failed
injection left (``undo``), and what the service must do while it lasts (``checks``, beyond
the nothing lost / no duplicate / no partial order every fault is held to). Adding a fault is
one class here with ``@register``: the plan, the driver and the judge find it by its name.
"""

import os
import signal
import time
import uuid
from collections.abc import Mapping
from typing import Any, Generic, TypeVar

import gevent

from common.contract import errors as contract_errors
from common.contract.courses import paid_seat, seat
from common.contract.statuses import NOTIFICATION
from locustfiles.suite.chaos.buyer import Buyer
from locustfiles.suite.chaos.event import Event
from locustfiles.suite.chaos.rows import failures_other_than, read_failures
from locustfiles.suite.chaos.stack import Stack
from locustfiles.suite.chaos.timing import TIMEOUT_SLACK, fulfilment_timeout, sleep_until
from locustfiles.suite.verdict import audit, facts

Check = tuple[str, bool, object]  # (what must hold, whether it did, what was seen)
# What a fault acts on: the chaos profile's Stack here, cluster.py's Hosts there.
Target = TypeVar("Target")


class Fault(Generic[Target]):
    name = ""
    title = ""

    def inject(self, stack: Target, event: Event, seconds: float) -> None:
        """Cause the fault for `seconds`, then end it; note its start, end and what it saw."""
        raise NotImplementedError

    def undo(self, stack: Target) -> None:
        """End the fault if it still lasts (a failed injection, a run stopped early)."""

    def checks(self, row: Mapping[str, Any], event: Event, recovery: float | None) -> list[Check]:
        return []


FAULTS: dict[str, Fault[Stack]] = {}


def register(cls: type[Fault[Stack]]) -> type[Fault[Stack]]:
    FAULTS[cls.name] = cls()
    return cls


class LmsFault(Fault[Stack]):
    """A fault of lms_stub's enrollment API, set through its fault settings. Orders placed
    meanwhile must be answered 202 (placed, enrollment to be retried) and nothing may fail;
    the check names say which orders and which other requests (``orders``, ``others``,
    ``no_failure``)."""

    orders = "orders placed in the outage"
    others = "other endpoints"
    no_failure = "no request failed"

    def settings(self, seconds: float) -> dict:
        """lms_stub's fault settings for a fault of `seconds`."""
        raise NotImplementedError

    def inject(self, stack: Stack, event: Event, seconds: float) -> None:
        settings = self.settings(seconds)
        stack.lms_faults("PUT", settings)
        event.started = time.time()
        event.detail.update(settings)
        sleep_until(event.started + seconds)
        self.undo(stack)
        event.ended = time.time()

    def undo(self, stack: Stack) -> None:
        stack.lms_faults("DELETE")

    def checks(self, row: Mapping[str, Any], event: Event, recovery: float | None) -> list[Check]:
        order = row.get("statuses", {})
        no_failure, seen = failures_other_than(row, set())
        return [
            (f"{self.orders} answered 202 (Fulfillment Error)", order.get("202", 0) > 0, order),
            (f"{self.others} kept answering (order reads)", read_failures(row) == 0, read_failures(row)),
            (self.no_failure, no_failure, seen),
        ]


@register
class LmsDown(LmsFault):
    name = "lms_down"
    title = "LMS enrollment API down"

    def settings(self, seconds: float) -> dict:
        return {"outage_seconds": seconds}


@register
class LmsSlow(LmsFault):
    name = "lms_slow"
    title = "LMS slower than the fulfilment timeout"
    orders = "orders past the timeout"
    others = "unrelated requests"
    no_failure = "no worker or pool exhaustion (no failed request)"

    def settings(self, seconds: float) -> dict:
        return {"latency_ms": int((fulfilment_timeout() + 2) * 1000)}

    def checks(self, row: Mapping[str, Any], event: Event, recovery: float | None) -> list[Check]:
        limit = (fulfilment_timeout() + TIMEOUT_SLACK) * 1000
        bounded = (
            f"order requests ended within the timeout (+{TIMEOUT_SLACK:g} s)",
            (row.get("p100") or 0) <= limit,
            f"max {row.get('p100')} ms",
        )
        return [bounded, *super().checks(row, event, recovery)]


@register
class DbRestart(Fault[Stack]):
    name = "db_restart"
    title = "MariaDB restarted"

    def inject(self, stack: Stack, event: Event, seconds: float) -> None:
        event.started = time.time()
        stack.script("mysql.sh", "down")
        event.detail["down_after_s"] = round(time.time() - event.started, 1)
        sleep_until(event.started + seconds)
        stack.script("mysql.sh", "up")
        event.ended = time.time()
        event.detail["restarted_after_s"] = round(event.ended - event.started, 1)
        gevent.sleep(2)  # a round of the rollup loop against the restarted database
        event.detail["rollup_alive"] = stack.alive("rollup")

    def undo(self, stack: Stack) -> None:
        stack.script("mysql.sh", "up")

    def checks(self, row: Mapping[str, Any], event: Event, recovery: float | None) -> list[Check]:
        only_503, seen = failures_other_than(row, {"503"})
        return [
            ("requests that failed got a 503", only_503, seen),
            ("recovered by itself within the step", recovery is not None, recovery),
            ("the counter rollup loop kept running", bool(event.detail.get("rollup_alive")), event.detail),
        ]


@register
class WorkerKill(LmsFault):
    """SIGKILL the ecommerce worker with the most client connections. The LMS answers slowly
    (half the fulfilment timeout, at most 3 s) for the length of the fault, so several orders
    per worker are caught between their two transactions: committed, enrollment under way."""

    name = "worker_kill"
    title = "an ecommerce worker killed (SIGKILL)"

    def inject(self, stack: Stack, event: Event, seconds: float) -> None:
        latency = min(3.0, fulfilment_timeout() / 2)
        stack.lms_faults("PUT", {"latency_ms": int(latency * 1000)})
        gevent.sleep(latency + 0.5)
        _, before = stack.ecommerce_workers()
        victim, in_flight = max(((pid, stack.client_connections(pid)) for pid in before), key=lambda p: p[1])
        event.started = time.time()
        os.kill(victim, signal.SIGKILL)
        sleep_until(event.started + seconds)
        self.undo(stack)
        event.ended = time.time()
        _, after = stack.ecommerce_workers()
        event.detail.update(
            {
                "killed": victim,
                "its_client_connections": in_flight,
                "workers_before": len(before),
                "workers_after": len(after),
                "replaced": victim not in after and len(after) == len(before),
            }
        )

    def checks(self, row: Mapping[str, Any], event: Event, recovery: float | None) -> list[Check]:
        only_502_503, seen = failures_other_than(row, {"502", "503"})
        return [
            ("the worker was replaced", bool(event.detail.get("replaced")), event.detail),
            ("requests that failed got a JSON 502/503", only_502_503, seen),
            ("recovered within the step", recovery is not None, recovery),
        ]


@register
class Duplicates(Fault[Stack]):
    """One learner sends SAME_KEY_REQUESTS purchases with one Idempotency-Key at once, another
    sends the same purchase twice without a key."""

    name = "duplicates"
    title = "duplicate submissions"
    SAME_KEY_REQUESTS = 20

    def inject(self, stack: Stack, event: Event, seconds: float) -> None:
        buyer = Buyer(stack.ecommerce_url, stack.env)
        sku = seat(1).sku
        event.started = time.time()
        same_key = buyer.purchase_at_once(_learner(), sku, self.SAME_KEY_REQUESTS, key=uuid.uuid4().hex)
        no_key = buyer.purchase_at_once(_learner(), sku, 2, key=None)
        event.ended = time.time()
        orders = facts.orders_of([same_key["learner"], no_key["learner"]])
        for outcome in (same_key, no_key):
            outcome["orders"] = orders[outcome["learner"]]
        event.detail.update({"sku": sku, "same_key": same_key, "no_key": no_key})

    def checks(self, row: Mapping[str, Any], event: Event, recovery: float | None) -> list[Check]:
        same, twice = event.detail.get("same_key", {}), event.detail.get("no_key", {})
        return [
            (
                f"{self.SAME_KEY_REQUESTS} requests with one Idempotency-Key placed one order",
                same.get("orders") == 1 and len(same.get("order_numbers", [])) == 1,
                same,
            ),
            (
                # A worker that cannot take more refuses the burst's excess at once
                # (common/shedding.py): a JSON 503 overloaded is a "retry later" too.
                "every answer to them was that order or 'retry shortly'",
                set(same.get("statuses", {})) <= {"201", "409", "503"}
                and set(same.get("codes", []))
                <= {contract_errors.REQUEST_IN_PROGRESS, contract_errors.OVERLOADED.code},
                same.get("statuses"),
            ),
            (
                "the same seat twice without a key: one order, one 409",
                twice.get("orders") == 1 and twice.get("statuses") == {"201": 1, "409": 1},
                twice,
            ),
        ]


class PaymentFault(Fault[Stack]):
    """A fault of the payment processor's notifications, played here as the processor plays them:
    paid checkouts straight at ecommerce, notifications signed with the stack's processor secret
    and posted to its notify URL. Each case is a learner of its own; after it the learners'
    orders, payments and notifications are read back (``event.detail``, one entry per case)."""

    def seen(self, cases: dict[str, dict]) -> dict[str, dict]:
        """Each case (learner, answers, its checkouts' reference numbers) with what ecommerce
        holds for its learner: orders (number, status, paid once) and notification outcomes by
        reference number."""
        found = facts.payments_of([case["learner"] for case in cases.values()])
        out = {}
        for name, case in cases.items():
            outcomes: dict[str, list[str]] = {}
            for note in found.notifications[case["learner"]]:
                outcomes.setdefault(note["reference"], []).append(note["outcome"])
            out[name] = {
                **case,
                "orders": [
                    {
                        "number": order["number"],
                        "complete": order["status"] == found.statuses["complete"],
                        "paid_once": audit.settled(order),
                    }
                    for order in found.orders[case["learner"]]
                ],
                "outcomes": outcomes,
            }
        return out


def _one_order_paid_once(case: dict, number: str) -> bool:
    """The case's learner has exactly one order, ``number``, Complete and paid exactly once."""
    return case.get("orders") == [{"number": number, "complete": True, "paid_once": True}]


@register
class NotifyTwice(PaymentFault):
    """The processor sends a payment's notification twice: for one learner one copy after the
    other, for another two copies at the same moment. Each payment places one order, is paid
    once in Oscar's models, and its other copy is recorded as a replay; every copy is answered
    200, so the processor has nothing to send again."""

    name = "notify_twice"
    title = "a payment's notification sent twice"
    CASES = ("one after the other", "at the same moment")

    def inject(self, stack: Stack, event: Event, seconds: float) -> None:
        buyer = Buyer(stack.ecommerce_url, stack.env)
        event.started = time.time()
        cases = {}
        for name in self.CASES:
            learner = _learner()
            form = buyer.paid_checkout(learner, paid_seat(1).sku)
            paid = buyer.accepted(form)
            if name == "one after the other":
                answers = buyer.notify(paid) + buyer.notify(paid)
            else:
                answers = buyer.notify(paid, copies=2)
            cases[name] = {"learner": learner, "reference": form["reference_number"], "answers": answers}
        event.ended = time.time()
        event.detail.update(self.seen(cases))

    def checks(self, row: Mapping[str, Any], event: Event, recovery: float | None) -> list[Check]:
        out = []
        for name in self.CASES:
            case = event.detail.get(name, {})
            reference = case.get("reference")
            outcomes = case.get("outcomes", {}).get(reference, [])
            out += [
                (f"{name}: both copies answered 200", case.get("answers") == [200, 200], case.get("answers")),
                (
                    f"{name}: one order, Complete, paid once",
                    _one_order_paid_once(case, reference),
                    case.get("orders"),
                ),
                (
                    f"{name}: the copy recorded as a replay",
                    sorted(outcomes) == sorted([NOTIFICATION.PLACED, NOTIFICATION.REPLAY]),
                    outcomes,
                ),
            ]
        return out


@register
class NotifyLate(PaymentFault):
    """Notifications arrive FAULT_SECONDS late, after the learner's basket was abandoned. One
    learner went away: the late payment places and fulfils the order. Another checked out the
    same seat again and paid that basket at once: the first basket's late payment places
    nothing and is recorded as owing a refund. Nothing doubled, nothing lost."""

    name = "notify_late"
    title = "a payment's notification late, its basket abandoned"
    WENT_AWAY, PAID_AGAIN = "went away", "paid again"  # what the learner did after checking out

    def inject(self, stack: Stack, event: Event, seconds: float) -> None:
        buyer = Buyer(stack.ecommerce_url, stack.env)
        sku = paid_seat(1).sku
        event.started = time.time()
        away, again = _learner(), _learner()
        abandoned = buyer.paid_checkout(away, sku)
        first = buyer.paid_checkout(again, sku)
        second = buyer.paid_checkout(again, sku)  # the first basket abandoned, the seat checked out again
        paid_second = buyer.notify(buyer.accepted(second))
        sleep_until(event.started + seconds)  # the processor's notifications come late
        late_away = buyer.notify(buyer.accepted(abandoned))
        late_first = buyer.notify(buyer.accepted(first))
        event.ended = time.time()
        event.detail.update(
            self.seen(
                {
                    self.WENT_AWAY: {
                        "learner": away,
                        "reference": abandoned["reference_number"],
                        "answers": late_away,
                    },
                    self.PAID_AGAIN: {
                        "learner": again,
                        "reference": first["reference_number"],
                        "paid": second["reference_number"],
                        "answers": paid_second + late_first,
                    },
                }
            )
        )

    def checks(self, row: Mapping[str, Any], event: Event, recovery: float | None) -> list[Check]:
        away, again = event.detail.get(self.WENT_AWAY, {}), event.detail.get(self.PAID_AGAIN, {})
        late = again.get("outcomes", {}).get(again.get("reference"), [])
        paid = again.get("outcomes", {}).get(again.get("paid"), [])
        return [
            (
                f"{self.WENT_AWAY}: the late payment placed and fulfilled the order, paid once (200)",
                away.get("answers") == [200]
                and _one_order_paid_once(away, away.get("reference"))
                and away.get("outcomes", {}).get(away.get("reference")) == [NOTIFICATION.PLACED],
                away,
            ),
            (
                f"{self.PAID_AGAIN}: one order, the second basket's, paid once (both answered 200)",
                again.get("answers") == [200, 200] and _one_order_paid_once(again, again.get("paid")),
                again.get("orders"),
            ),
            (
                f"{self.PAID_AGAIN}: the late payment placed nothing, recorded as a refund owed",
                late == [NOTIFICATION.REFUND_OWED] and paid == [NOTIFICATION.PLACED],
                again.get("outcomes"),
            ),
        ]


def _learner() -> str:
    return f"chaos_{uuid.uuid4().hex[:12]}"
