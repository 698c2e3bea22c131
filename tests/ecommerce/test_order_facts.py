"""order_facts, what the load suite's audit asks ecommerce: the service's own status names,
the orders above a watermark with their lines and payments, the orders and payments of a
learner, what became of the payment notifications above a watermark."""

import io
import json

import pytest
from django.core.management import call_command
from oscar.core.loading import get_model

from common.contract import cybersource
from common.contract.courses import paid_seat
from common.contract.statuses import NOTIFICATION, ORDER
from ecommerce.payment.models import PaymentNotification
from tests.ecommerce.payments import form_data, notification, notify, pay

pytestmark = pytest.mark.django_db(transaction=True)

Order = get_model("order", "Order")


def facts(*args) -> dict:
    out = io.StringIO()
    call_command("order_facts", *args, stdout=out)
    return json.loads(out.getvalue().strip().splitlines()[-1])


def test_the_status_names_are_the_services_own():
    assert facts()["statuses"] == {
        "open": ORDER.OPEN,
        "complete": ORDER.COMPLETE,
        "fulfillment_error": ORDER.FULFILLMENT_ERROR,
    }


def test_orders_above_the_watermark_with_their_lines(api, lms, seats, learner, other_learner):
    api.buy("before_" + learner, [seats[0].sku])
    mark = Order.objects.latest("id").id
    complete = api.buy(learner, [seats[0].sku, seats[1].sku]).json()["order"]
    lms.set_faults(error_rate=1.0)
    failed = api.buy(other_learner, [seats[0].sku]).json()["order"]

    answer = facts("--since", str(mark))

    placed = {o.number: o for o in Order.objects.filter(number__in=[complete["number"], failed["number"]])}
    assert answer["orders"] == [
        {
            "number": number,
            "status": placed[number].status,
            "user": placed[number].user_id,
            "placed": placed[number].date_placed.timestamp(),
            "total": "0.00",
            "products": [line.product_id for line in placed[number].lines.order_by("id")],
            "complete_lines": complete_lines,
        }
        for number, complete_lines in ((complete["number"], 2), (failed["number"], 0))
    ]
    assert [o["status"] for o in answer["orders"]] == [ORDER.COMPLETE, ORDER.FULFILLMENT_ERROR]


def test_orders_of_learners(api, lms, seats, learner, other_learner):
    api.buy(learner, [seats[0].sku])
    api.buy(learner, [seats[1].sku])
    answer = facts(f"--learner={learner}", f"--learner={other_learner}")
    assert answer["learners"] == {learner: 2, other_learner: 0}


def highest(model) -> int:
    return model.objects.order_by("-id").values_list("id", flat=True).first() or 0


def paid_order(api, learner, number=1) -> tuple[dict, str]:
    """A paid checkout of course ``number``'s paid seat, and its accepted notification sent:
    (the notification, the order number)."""
    accepted = notification(pay(api, learner, [paid_seat(number).sku]))
    assert notify(api, accepted).status_code == 200
    return accepted, accepted["req_reference_number"]


def test_a_paid_order_carries_its_payment_learner_and_courses(api, lms, seats, learner, other_learner):
    mark = highest(Order)
    free = api.buy(learner, [seats[0].sku]).json()["order"]["number"]
    _, number = paid_order(api, other_learner, 2)

    orders = {order["number"]: order for order in facts("--since", str(mark))["orders"]}

    assert "payment" not in orders[free] and orders[free]["total"] == "0.00"
    price = str(paid_seat(2).price)
    assert orders[number]["total"] == price
    assert orders[number]["payment"] == {
        "total": price,
        "learner": other_learner,
        "courses": [paid_seat(2).course_id],
        "sources": [{"allocated": price, "debited": price, "refunded": "0.00"}],
        "paid_events": [price],
    }


def test_what_became_of_the_notifications_above_the_watermark(api, lms, seats, learner, other_learner):
    mark = highest(PaymentNotification)
    accepted, number = paid_order(api, learner)
    notify(api, accepted)  # the same again: a replay
    declined = notification(pay(api, other_learner, [paid_seat(1).sku]), cybersource.DECLINE)
    notify(api, declined)
    forged = notification(form_data(pay(api, other_learner, [paid_seat(3).sku])), secret="not-the-secret")
    notify(api, forged)

    found = facts("--notifications-since", str(mark))["notifications"]

    assert found["by_outcome"] == {
        NOTIFICATION.PLACED: 1,
        NOTIFICATION.REPLAY: 1,
        NOTIFICATION.DECLINED: 1,
        NOTIFICATION.INVALID_SIGNATURE: 1,
    }
    # Declined payments took no money; the forged one is listed as its sender said, refused.
    assert found["accepted"] == [
        {
            "reference": number,
            "transaction": accepted["transaction_id"],
            "outcomes": [NOTIFICATION.PLACED, NOTIFICATION.REPLAY],
            "order": number,
        },
        {
            "reference": forged["req_reference_number"],
            "transaction": forged["transaction_id"],
            "outcomes": [NOTIFICATION.INVALID_SIGNATURE],
            "order": None,
        },
    ]


def test_a_learners_payments_and_notifications(api, lms, seats, learner, other_learner):
    """What the chaos payment faults read back: a learner who paid one basket and then, late, the
    notification of an abandoned basket of the same seat (a refund owed)."""
    first = notification(pay(api, learner, [paid_seat(1).sku]))
    second, number = paid_order(api, learner)
    notify(api, first)

    answer = facts(f"--payments-of={learner}", f"--payments-of={other_learner}")

    price = str(paid_seat(1).price)
    assert answer["payments"] == {
        learner: [
            {
                "number": number,
                "status": ORDER.COMPLETE,
                "total": price,
                "learner": learner,
                "courses": [paid_seat(1).course_id],
                "sources": [{"allocated": price, "debited": price, "refunded": "0.00"}],
                "paid_events": [price],
            }
        ],
        other_learner: [],
    }
    assert answer["notifications_of"] == {
        learner: [
            {
                "reference": note["req_reference_number"],
                "transaction": note["transaction_id"],
                "decision": cybersource.ACCEPT,
                "outcome": outcome,
            }
            for note, outcome in ((second, NOTIFICATION.PLACED), (first, NOTIFICATION.REFUND_OWED))
        ],
        other_learner: [],
    }
