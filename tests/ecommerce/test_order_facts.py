"""order_facts, what the load suite's audit asks ecommerce: the service's own status names,
the orders above a watermark with their lines, the orders of a learner."""

import io
import json

import pytest
from django.core.management import call_command
from oscar.core.loading import get_model

from common.contract.statuses import ORDER

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
