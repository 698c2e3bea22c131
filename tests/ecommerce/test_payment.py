"""Paying for a seat as Otto took payments: a paid checkout answers the processor's signed form
and places nothing; the processor's signed notification places the order exactly once. Against
a real lms_stub (the enrollment API) and the test MariaDB."""

import hashlib
import io
import time
import tracemalloc
from datetime import UTC, datetime
from decimal import Decimal
from urllib.parse import urlencode

import pytest
from oscar.core.loading import get_model

from common.contract import cybersource, order_numbers
from common.contract.courses import FREE_MODE, PAID_MODE, paid_seat
from common.contract.statuses import LINE, NOTIFICATION, ORDER
from tests.ecommerce.helpers import row_counts, session_status, transactions_open_at_lms_calls
from tests.ecommerce.payments import (
    NOTIFY,
    SECRET,
    STAND_IN_SECRET,
    form_data,
    notification,
    notify,
    outcomes,
    pay,
    payment_rows,
)
from tests.support import tokens

pytestmark = pytest.mark.django_db(transaction=True)

Order = get_model("order", "Order")
Basket = get_model("basket", "Basket")
Source = get_model("payment", "Source")
Transaction = get_model("payment", "Transaction")
PaymentEvent = get_model("order", "PaymentEvent")
StockRecord = get_model("partner", "StockRecord")


@pytest.fixture
def paid(seats):
    """The paid (verified) seats of the seeded courses; ``seats`` are their free ones."""
    return [paid_seat(seat.number) for seat in seats]


# --- The paid checkout ------------------------------------------------------------------------


def test_a_paid_checkout_answers_the_signed_form_and_places_nothing(api, lms, paid, learner):
    before = payment_rows()
    response = pay(api, learner, [paid[0].sku])

    assert response.status_code == 201, response.content
    body = response.json()
    assert set(body) == {"id", "order", "payment_data"}
    assert body["order"] is None
    data = body["payment_data"]
    assert data["payment_processor_name"] == "cybersource"
    assert data["payment_page_url"].endswith("/processor/cybersource/pay/")
    form = data["payment_form_data"]
    assert form["reference_number"] == f"OSCR-{100000 + body['id']}"
    assert form["amount"] == str(paid[0].price)
    assert form["currency"] == "USD"
    assert form["transaction_type"] == "sale"
    assert form["consumer_id"] == learner
    assert form["locale"] == "en-us"
    assert form["unsigned_field_names"] == ""
    assert form["merchant_defined_data1"] == paid[0].course_id
    assert form["merchant_defined_data2"] == paid[0].mode
    assert form["signed_field_names"].split(",") == sorted(set(form) - {"signature"})
    assert cybersource.verify(form, STAND_IN_SECRET)  # the payment page is the stand-in's
    assert not cybersource.verify(form, SECRET)
    assert (form["access_key"], form["profile_id"]) == (
        "loadtest-stand-in-access-key",
        "loadtest-stand-in-profile",
    )

    basket = Basket.objects.get(pk=body["id"])
    assert basket.status == Basket.FROZEN
    after = payment_rows()
    assert after["basket_basket"] == before["basket_basket"] + 1
    assert {t: n for t, n in after.items() if t != "basket_basket"} == {
        t: n for t, n in before.items() if t != "basket_basket"
    }
    assert lms.enrollments(learner) == []


def test_a_free_checkout_is_placed_at_once_whatever_processor_it_names(api, lms, seats, learner):
    response = pay(api, learner, [seats[0].sku], processor="cybersource")

    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"id", "order"}
    assert body["order"]["status"] == ORDER.COMPLETE
    assert Basket.objects.get(pk=body["id"]).status == Basket.SUBMITTED
    assert [e["mode"] for e in lms.enrollments(learner)] == [FREE_MODE]
    assert Source.objects.filter(order__number=body["order"]["number"]).count() == 0


def test_an_unknown_processor_is_refused_for_a_free_basket_too(api, lms, seats, learner):
    before = row_counts()
    response = pay(api, learner, [seats[0].sku], processor="paypal")
    assert (response.status_code, response.json()["error"]) == (400, "unknown_payment_processor")
    assert row_counts() == before


def test_a_basket_of_a_free_and_a_paid_seat_is_paid_and_placed_whole(api, lms, seats, paid, learner):
    checkout = pay(api, learner, [seats[0].sku, paid[1].sku])

    assert checkout.status_code == 201
    assert checkout.json()["order"] is None
    assert form_data(checkout)["amount"] == str(paid[1].price)
    assert lms.enrollments(learner) == []

    assert notify(api, notification(checkout)).status_code == 200

    order = Order.objects.get(basket_id=checkout.json()["id"])
    assert order.status == ORDER.COMPLETE
    assert sorted(line.partner_sku for line in order.lines.all()) == sorted([seats[0].sku, paid[1].sku])
    assert sorted((e["course_details"]["course_id"], e["mode"]) for e in lms.enrollments(learner)) == sorted(
        [(seats[0].course_id, FREE_MODE), (paid[1].course_id, PAID_MODE)]
    )


def test_a_paid_checkout_commits_once(api, lms, paid, learner, other_learner):
    pay(api, other_learner, [paid[1].sku])  # the first request of a process loads caches
    before = session_status("Com_commit")
    assert pay(api, learner, [paid[0].sku]).status_code == 201
    assert session_status("Com_commit") - before == 1


def test_a_basket_of_two_paid_seats_asks_for_both(api, lms, paid, learner):
    response = pay(api, learner, [paid[0].sku, paid[1].sku])
    assert form_data(response)["amount"] == str(paid[0].price + paid[1].price)


def test_the_processor_may_be_named_and_an_unknown_one_is_refused(api, lms, paid, learner):
    assert pay(api, learner, [paid[0].sku], processor="cybersource").status_code == 201
    before = row_counts()

    unknown = pay(api, learner, [paid[1].sku], processor="paypal")

    assert unknown.status_code == 400
    assert unknown.json()["error"] == "unknown_payment_processor"
    assert "payment_processor_name" in unknown.json()["fields"]
    assert row_counts() == before


@pytest.mark.parametrize("name", [1, None, "", "x" * 65, ["cybersource"]])
def test_a_processor_name_that_is_not_a_name_is_invalid(api, lms, paid, learner, name):
    body = {"products": [{"sku": paid[0].sku}], "checkout": True, "payment_processor_name": name}
    before = row_counts()
    response = api.post_json("/api/v2/baskets/", body, learner)
    assert response.status_code == 400
    assert "payment_processor_name" in response.json()["fields"]
    assert row_counts() == before


def test_other_unknown_fields_are_still_refused(api, lms, paid, learner):
    body = {"products": [{"sku": paid[0].sku}], "checkout": True, "payment_processor": "cybersource"}
    response = api.post_json("/api/v2/baskets/", body, learner)
    assert response.status_code == 400
    assert response.json()["fields"] == {"payment_processor": ["Unknown field."]}


def test_a_replayed_key_answers_the_stored_payment_data(api, lms, paid, learner):
    first = pay(api, learner, [paid[0].sku], key="pay-once")
    again = pay(api, learner, [paid[0].sku], key="pay-once")

    assert again.status_code == 201
    assert again.json() == first.json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert Basket.objects.filter(owner__username=learner).count() == 1


def test_a_replay_after_the_payment_still_answers_the_stored_payment_data(api, lms, paid, learner):
    first = pay(api, learner, [paid[0].sku], key="k1")
    assert notify(api, notification(first)).status_code == 200

    again = pay(api, learner, [paid[0].sku], key="k1")
    assert (again.status_code, again.json()) == (201, first.json())


def test_a_learner_who_owns_the_seat_gets_409_before_any_payment_data(api, lms, paid, learner):
    first = pay(api, learner, [paid[0].sku])
    assert notify(api, notification(first)).status_code == 200
    number = form_data(first)["reference_number"]
    before = row_counts()

    again = pay(api, learner, [paid[0].sku])

    assert again.status_code == 409
    assert again.json()["error"] == "already_purchased"
    assert again.json()["order_number"] == number
    assert "payment_data" not in again.json()
    assert row_counts() == before


# --- The notification -------------------------------------------------------------------------


def test_an_accepted_payment_places_pays_and_fulfils_the_order(api, lms, paid, learner):
    checkout = pay(api, learner, [paid[0].sku])
    number = form_data(checkout)["reference_number"]
    fields = notification(checkout, transaction="4242424242")
    before = payment_rows()

    response = notify(api, fields)

    assert response.status_code == 200, response.content
    assert response.content == b""
    order = Order.objects.get(number=number)
    assert order.basket_id == checkout.json()["id"]
    assert order.user.username == learner
    assert order.status == ORDER.COMPLETE
    assert order.total_incl_tax == paid[0].price
    assert [line.status for line in order.lines.all()] == [LINE.COMPLETE]
    assert Basket.objects.get(pk=order.basket_id).status == Basket.SUBMITTED

    (source,) = Source.objects.filter(order=order)
    assert source.source_type.name == "cybersource"
    assert (source.amount_allocated, source.amount_debited, source.amount_refunded) == (
        paid[0].price,
        paid[0].price,
        Decimal("0.00"),
    )
    assert (source.currency, source.reference, source.label) == ("USD", "4242424242", "xxxxxxxxxxxx1111")
    (txn,) = Transaction.objects.filter(source=source)
    assert (txn.txn_type, txn.amount, txn.reference, txn.status) == (
        Transaction.DEBIT,
        paid[0].price,
        "4242424242",
        "ACCEPT",
    )
    (event,) = PaymentEvent.objects.filter(order=order)
    assert event.event_type.name == "Paid"
    assert event.amount == paid[0].price
    assert [(q.line_id, q.quantity) for q in event.line_quantities.all()] == [
        (line.pk, 1) for line in order.lines.all()
    ]

    after = payment_rows()
    for table, added in {
        "order_order": 1,
        "order_line": 1,
        "orders_seatclaim": 1,
        "payment_source": 1,
        "payment_transaction": 1,
        "order_paymentevent": 1,
        "order_paymenteventquantity": 1,
        "processors_paymentnotification": 1,
        "basket_basket": 0,
    }.items():
        assert after[table] - before[table] == added, table
    assert outcomes(number) == [NOTIFICATION.PLACED]
    assert [(e["course_details"]["course_id"], e["mode"]) for e in lms.enrollments(learner)] == [
        (paid[0].course_id, paid[0].mode)
    ]
    read = api.get(f"/api/v2/orders/{number}/", learner)
    assert (read.status_code, read.json()["status"]) == (200, ORDER.COMPLETE)


def test_accepting_commits_twice_and_calls_the_lms_with_no_transaction_open(
    api, lms, paid, learner, other_learner, monkeypatch
):
    warm = pay(api, other_learner, [paid[1].sku])
    notify(api, notification(warm))  # loads the source and event types, and caches
    checkout = pay(api, learner, [paid[0].sku])
    seen = transactions_open_at_lms_calls(monkeypatch)
    before = session_status("Com_commit")
    assert notify(api, notification(checkout)).status_code == 200
    assert session_status("Com_commit") - before == 2  # the order and its payment; the statuses
    assert seen == [False]


def test_the_learners_jwt_sent_with_the_notification_is_ignored(api, lms, paid, learner, other_learner):
    """edX's 2015 client sends its learner's Authorization header with every request."""
    checkout = pay(api, learner, [paid[0].sku])
    header = tokens.auth_header(other_learner)
    assert notify(api, notification(checkout), **header).status_code == 200
    assert Order.objects.get(basket_id=checkout.json()["id"]).user.username == learner


def test_a_replayed_notification_changes_nothing(api, lms, paid, learner):
    checkout = pay(api, learner, [paid[0].sku])
    fields = notification(checkout)
    assert notify(api, fields).status_code == 200
    before = payment_rows()

    again = notify(api, fields)

    assert (again.status_code, again.content) == (200, b"")
    after = payment_rows()
    assert after["processors_paymentnotification"] == before["processors_paymentnotification"] + 1
    assert {t: n for t, n in after.items() if t != "processors_paymentnotification"} == {
        t: n for t, n in before.items() if t != "processors_paymentnotification"
    }
    assert outcomes(fields["req_reference_number"]) == [NOTIFICATION.PLACED, NOTIFICATION.REPLAY]
    assert len(lms.enrollments(learner)) == 1


def refused_cleanly(api, fields, status, code, outcome):
    """The notification is refused with ``status`` and ``code``, recorded with ``outcome``, and
    nothing but its record is written."""
    before = payment_rows()
    response = notify(api, fields)
    assert response.status_code == status, response.content
    assert response.json()["error"] == code
    assert response.json()["message"]
    after = payment_rows()
    assert after["processors_paymentnotification"] == before["processors_paymentnotification"] + 1
    assert {t: n for t, n in after.items() if t != "processors_paymentnotification"} == {
        t: n for t, n in before.items() if t != "processors_paymentnotification"
    }
    from ecommerce.payment.models import PaymentNotification

    assert PaymentNotification.objects.order_by("-id").first().outcome == outcome
    return response


def test_a_wrong_signature_is_refused_recorded_and_places_nothing(api, lms, paid, learner):
    checkout = pay(api, learner, [paid[0].sku])
    forged = notification(checkout, secret="a-guess")
    refused_cleanly(api, forged, 400, "invalid_signature", NOTIFICATION.INVALID_SIGNATURE)
    assert Basket.objects.get(pk=checkout.json()["id"]).status == Basket.FROZEN
    assert lms.enrollments(learner) == []


@pytest.mark.parametrize(
    "change", ["no signature", "empty signature", "tampered amount", "tampered decision"]
)
def test_a_notification_changed_after_signing_is_refused(api, lms, paid, learner, change):
    fields = notification(pay(api, learner, [paid[0].sku]))
    if change == "no signature":
        del fields["signature"]
    elif change == "empty signature":
        fields["signature"] = ""
    elif change == "tampered amount":
        fields["req_amount"] = fields["auth_amount"] = "0.01"
    else:
        fields = notification(pay(api, learner, [paid[1].sku]), cybersource.DECLINE)
        fields["decision"] = cybersource.ACCEPT
    refused_cleanly(api, fields, 400, "invalid_signature", NOTIFICATION.INVALID_SIGNATURE)


def test_a_field_the_signature_does_not_cover_is_refused(api, lms, paid, learner):
    """A signed notification that leaves out the decision cannot be given one afterwards."""
    form = form_data(pay(api, learner, [paid[0].sku]))
    fields = notification(form)
    names = [n for n in fields["signed_field_names"].split(",") if n != "decision"]
    unsigned = cybersource.sign({k: v for k, v in fields.items()}, SECRET, names)
    refused_cleanly(api, unsigned, 400, "invalid_notification", NOTIFICATION.MALFORMED)


def test_a_notification_without_a_field_the_service_needs_is_refused(api, lms, paid, learner):
    form = form_data(pay(api, learner, [paid[0].sku]))
    fields = notification(form)
    del fields["req_currency"]
    names = [n for n in fields["signed_field_names"].split(",") if n != "req_currency"]
    refused_cleanly(
        api, cybersource.sign(fields, SECRET, names), 400, "invalid_notification", NOTIFICATION.MALFORMED
    )


@pytest.mark.parametrize(
    "reference", ["OSCR-999999999", "EDX-100001", "100001", "OSCR-", "OSCR-00100001", "🎓"]
)
def test_an_unknown_reference_number_is_refused(api, lms, paid, learner, reference):
    form = {**form_data(pay(api, learner, [paid[0].sku])), "reference_number": reference}
    refused_cleanly(api, notification(form), 400, "unknown_reference", NOTIFICATION.UNKNOWN_REFERENCE)


def test_a_payment_for_a_basket_that_awaits_none_is_refused(api, lms, paid, learner):
    open_basket = api.buy(learner, [paid[0].sku], checkout=False).json()["id"]
    reference = order_numbers.order_number("OSCR", open_basket)
    form = {**form_data(pay(api, learner, [paid[1].sku])), "reference_number": reference}
    refused_cleanly(api, notification(form), 400, "unknown_reference", NOTIFICATION.UNKNOWN_REFERENCE)


@pytest.mark.parametrize(
    "overrides",
    [
        {"req_amount": "1.00", "auth_amount": "1.00"},
        {"auth_amount": "1.00"},  # a partial authorisation
        {"req_amount": "999.00"},
    ],
    ids=["both", "authorised", "requested"],
)
def test_an_amount_that_is_not_the_baskets_is_refused(api, lms, paid, learner, overrides):
    checkout = pay(api, learner, [paid[0].sku])
    refused_cleanly(
        api, notification(checkout, **overrides), 400, "amount_mismatch", NOTIFICATION.AMOUNT_MISMATCH
    )
    assert Basket.objects.get(pk=checkout.json()["id"]).status == Basket.FROZEN


@pytest.mark.parametrize("amount", ["49,00", "-49.00", "4.9e1", "NaN", "49.001", " 49.00"])
def test_an_amount_that_is_not_an_amount_is_refused(api, lms, paid, learner, amount):
    checkout = pay(api, learner, [paid[0].sku])
    fields = notification(checkout, req_amount=amount, auth_amount=amount)
    refused_cleanly(api, fields, 400, "invalid_notification", NOTIFICATION.MALFORMED)


def test_a_currency_that_is_not_the_baskets_is_refused(api, lms, paid, learner):
    checkout = pay(api, learner, [paid[0].sku])
    fields = notification(checkout, req_currency="EUR")
    refused_cleanly(api, fields, 400, "currency_mismatch", NOTIFICATION.CURRENCY_MISMATCH)


@pytest.mark.parametrize(
    "decision", [cybersource.DECLINE, cybersource.CANCEL, cybersource.ERROR, "SOMETHING"]
)
def test_a_payment_not_accepted_places_nothing_and_a_later_accept_still_does(
    api, lms, paid, learner, decision
):
    checkout = pay(api, learner, [paid[0].sku])
    number = form_data(checkout)["reference_number"]
    before = payment_rows()

    declined = notify(api, notification(checkout, decision))

    assert (declined.status_code, declined.content) == (200, b"")
    after = payment_rows()
    assert after["processors_paymentnotification"] == before["processors_paymentnotification"] + 1
    assert after["order_order"] == before["order_order"]
    assert Basket.objects.get(pk=checkout.json()["id"]).status == Basket.FROZEN
    assert lms.enrollments(learner) == []
    assert api.get(f"/api/v2/orders/{number}/", learner).status_code == 404

    assert notify(api, notification(checkout)).status_code == 200
    assert Order.objects.get(number=number).status == ORDER.COMPLETE
    assert outcomes(number) == [NOTIFICATION.DECLINED, NOTIFICATION.PLACED]


def test_a_late_payment_for_an_abandoned_basket_places_its_order(api, lms, paid, learner):
    """The learner went away after the checkout; the processor's ACCEPT arrives later."""
    checkout = pay(api, learner, [paid[0].sku])
    Basket.objects.filter(pk=checkout.json()["id"]).update(date_created=datetime(2015, 1, 1, tzinfo=UTC))
    assert notify(api, notification(checkout)).status_code == 200
    assert Order.objects.get(basket_id=checkout.json()["id"]).status == ORDER.COMPLETE


def test_a_payment_for_a_seat_owned_through_another_basket_is_a_refund_owed(api, lms, paid, learner):
    """The learner abandoned basket 1, paid basket 2, then basket 1's payment arrives."""
    first = pay(api, learner, [paid[0].sku])
    second = pay(api, learner, [paid[0].sku])
    assert notify(api, notification(second)).status_code == 200
    before = payment_rows()

    late = notify(api, notification(first))

    assert (late.status_code, late.content) == (200, b"")
    after = payment_rows()
    assert after["processors_paymentnotification"] == before["processors_paymentnotification"] + 1
    assert {t: n for t, n in after.items() if t != "processors_paymentnotification"} == {
        t: n for t, n in before.items() if t != "processors_paymentnotification"
    }
    assert outcomes(form_data(first)["reference_number"]) == [NOTIFICATION.REFUND_OWED]
    assert Order.objects.filter(user__username=learner).count() == 1
    assert len(lms.enrollments(learner)) == 1


def test_a_refund_owed_sent_again_is_a_replay(api, lms, paid, learner):
    first, second = pay(api, learner, [paid[0].sku]), pay(api, learner, [paid[0].sku])
    notify(api, notification(second))
    fields = notification(first)
    notify(api, fields)
    notify(api, fields)
    assert outcomes(fields["req_reference_number"]) == [NOTIFICATION.REFUND_OWED, NOTIFICATION.REPLAY]


def test_a_second_payment_for_a_placed_basket_is_a_refund_owed(api, lms, paid, learner):
    """Two transactions for one basket (two tabs paid): one order, the second payment owed back."""
    checkout = pay(api, learner, [paid[0].sku])
    assert notify(api, notification(checkout, transaction="1111")).status_code == 200
    assert notify(api, notification(checkout, transaction="2222")).status_code == 200
    number = form_data(checkout)["reference_number"]
    assert outcomes(number) == [NOTIFICATION.PLACED, NOTIFICATION.REFUND_OWED]
    assert Source.objects.filter(order__number=number).count() == 1


def test_a_payment_is_placed_at_the_price_it_was_asked_for(api, lms, paid, learner):
    checkout = pay(api, learner, [paid[0].sku])
    StockRecord.objects.filter(partner_sku=paid[0].sku).update(price=Decimal("1.00"))

    assert notify(api, notification(checkout)).status_code == 200

    order = Order.objects.get(basket_id=checkout.json()["id"])
    assert order.total_incl_tax == order.total_excl_tax == paid[0].price
    assert order.lines.get().line_price_excl_tax == paid[0].price


def test_when_the_lms_is_down_the_order_waits_for_a_retry(api, lms, paid, learner, settings, staff):
    checkout = pay(api, learner, [paid[0].sku])
    settings.LMS_URL = "http://127.0.0.1:9"

    response = notify(api, notification(checkout))

    assert response.status_code == 200
    order = Order.objects.get(basket_id=checkout.json()["id"])
    assert order.status == ORDER.FULFILLMENT_ERROR
    assert [line.status for line in order.lines.all()] == [LINE.FULFILLMENT_NETWORK_ERROR]
    assert outcomes(order.number) == [NOTIFICATION.PLACED]
    settings.LMS_URL = lms.url
    retried = api.put(f"/api/v2/orders/{order.number}/fulfill/", staff.username, staff=True)
    assert retried.status_code == 200
    assert Order.objects.get(pk=order.pk).status == ORDER.COMPLETE
    assert notify(api, notification(checkout)).status_code == 200  # a replay: nothing changes
    assert len(lms.enrollments(learner)) == 1


# --- What reaches the notify URL that is not a notification ----------------------------------


def test_a_notification_that_is_not_a_form_is_415_and_recorded(api, lms, paid, learner):
    from ecommerce.payment.models import PaymentNotification

    before = PaymentNotification.objects.count()
    response = api.client.post("/payment/cybersource/notify/", "{}", content_type="application/json")
    assert response.status_code == 415
    assert response.json()["error"] == "unsupported_media_type"
    assert PaymentNotification.objects.count() == before + 1


def test_a_field_given_twice_is_refused(api, lms, paid, learner):
    fields = notification(pay(api, learner, [paid[0].sku]))
    body = "&".join(f"{k}={v}" for k, v in fields.items()) + "&decision=DECLINE"
    before = payment_rows()
    response = api.client.post(
        "/payment/cybersource/notify/", body, content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_notification"
    assert payment_rows()["order_order"] == before["order_order"]


def test_an_unknown_processor_is_404_and_other_methods_405(api, lms):
    response = api.client.post(
        "/payment/paypal/notify/", "a=1", content_type="application/x-www-form-urlencoded"
    )
    assert (response.status_code, response.json()["error"]) == (404, "not_found")
    got = api.client.get("/payment/cybersource/notify/")
    assert (got.status_code, got.json()["error"], got["Allow"]) == (405, "method_not_allowed", "POST")


# --- The processors and basket-order endpoints ------------------------------------------------


def test_the_processors_are_listed_for_a_learner(api, learner):
    response = api.get("/api/v2/payment/processors/", learner)
    assert (response.status_code, response.json()) == (200, ["cybersource"])
    assert api.get("/api/v2/payment/processors/").status_code == 401


def test_a_baskets_order_is_read_back_once_placed(api, lms, paid, learner, other_learner, staff):
    checkout = pay(api, learner, [paid[0].sku])
    path = f"/api/v2/baskets/{checkout.json()['id']}/order/"
    not_yet = api.get(path, learner)
    assert (not_yet.status_code, not_yet.json()["error"]) == (404, "not_found")

    notify(api, notification(checkout))

    read = api.get(path, learner)
    assert read.status_code == 200
    number = form_data(checkout)["reference_number"]
    assert read.json() == api.get(f"/api/v2/orders/{number}/", learner).json()
    assert api.get(path, other_learner).status_code == 404
    assert api.get(path, staff.username, staff=True).status_code == 200
    assert api.get(path).status_code == 401
    assert api.get("/api/v2/baskets/999999999/order/", learner).status_code == 404


# --- Issue 28: refused before any work, recorded without its bytes ----------------------------

FORM_TYPE = "application/x-www-form-urlencoded"


def amplification() -> str:
    """The review's 64 KB notification: a 30,000-character field named 17,000 times (a 510 MB
    signed string, had it been built); commas sent as they are, as a form may."""
    return f"a={'x' * 30_000}&signed_field_names={','.join(['a'] * 17_000)}&signature={'A' * 44}"


def test_the_64_kb_amplification_is_refused_before_the_signed_string_is_built(api, monkeypatch):
    built = []
    monkeypatch.setattr(cybersource, "message", lambda fields: built.append(1) or "")
    monkeypatch.setattr(cybersource.hmac, "new", lambda *args: built.append(2))
    response = api.client.post(NOTIFY, amplification(), content_type=FORM_TYPE)
    assert (response.status_code, response.json()["error"]) == (400, "invalid_signature")
    assert "more than 64 signed names" in response.json()["message"]
    assert built == []


def test_the_64_kb_amplification_costs_well_under_100_ms_and_no_memory(api):
    body = amplification()
    assert 60_000 < len(body) <= 65_536  # under the body limit: it reaches the signature check
    api.client.post(NOTIFY, "a=1", content_type=FORM_TYPE)  # the first request of a process loads caches
    started = time.perf_counter()
    response = api.client.post(NOTIFY, body, content_type=FORM_TYPE)
    elapsed = time.perf_counter() - started
    assert response.status_code == 400
    assert elapsed < 0.1, elapsed
    tracemalloc.start()
    try:
        assert api.client.post(NOTIFY, body, content_type=FORM_TYPE).status_code == 400
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 2**20, peak  # the body and its parsed form; the signed string was 510 MB


def test_multipart_is_415_and_never_reaches_a_parser(api, monkeypatch):
    from django.http import multipartparser

    parsed = []
    monkeypatch.setattr(multipartparser.MultiPartParser, "parse", lambda self: parsed.append(1))
    response = api.client.post(NOTIFY, {"decision": "ACCEPT", "file": io.BytesIO(b"x" * 4096)})
    assert (response.status_code, response.json()["error"]) == (415, "unsupported_media_type")
    assert parsed == []


@pytest.mark.parametrize(
    "content_type", [FORM_TYPE, "multipart/form-data; boundary=b", "application/json", "text/plain"]
)
def test_a_body_over_the_limit_is_413_whatever_its_content_type(api, settings, content_type):
    from ecommerce.payment.models import PaymentNotification

    over = settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1
    response = api.client.post(NOTIFY, b"a" * over, content_type=content_type)
    assert (response.status_code, response.json()["error"]) == (413, "body_too_large")
    declared = api.client.post(NOTIFY, b"a=1", content_type=content_type, CONTENT_LENGTH=str(50 * 2**20))
    assert (declared.status_code, declared.json()["error"]) == (413, "body_too_large")
    records = PaymentNotification.objects.order_by("-id")[:2]
    assert [(r.outcome, r.size, r.fields) for r in records] == [
        (NOTIFICATION.MALFORMED, 50 * 2**20, None),
        (NOTIFICATION.MALFORMED, over, None),
    ]


def test_a_refused_notification_is_recorded_by_size_and_digest_not_its_form(api, lms, paid, learner):
    from ecommerce.payment.models import PaymentNotification

    checkout = pay(api, learner, [paid[0].sku])
    forged = notification(checkout, secret="a-guess")
    refused_cleanly(api, forged, 400, "invalid_signature", NOTIFICATION.INVALID_SIGNATURE)
    record = PaymentNotification.objects.order_by("-id").first()
    sent = urlencode(forged).encode()
    assert record.fields is None
    assert (record.size, record.digest) == (len(sent), hashlib.sha256(sent).hexdigest())
    assert record.reference_number == forged["req_reference_number"]
    taken = notification(checkout)
    assert notify(api, taken).status_code == 200
    assert PaymentNotification.objects.order_by("-id").first().fields == taken  # the payment's record


def resplit(form: dict[str, str]) -> dict[str, str]:
    """The review's forgery: a checkout form whose consumer_id is "x,decision=ACCEPT,…" read as a
    notification. Its signed string is the form's, byte for byte; signed_field_names is not signed
    (its text rides in signed_date_time's value)."""
    consumer, injected = form["consumer_id"].split(",", 1)
    pairs = dict(pair.split("=", 1) for pair in injected.split(","))
    names = form["signed_field_names"].split(",")
    at = names.index("consumer_id") + 1
    names = [*names[:at], *pairs, *names[at:]]
    names.remove("signed_field_names")
    fields = {**form, **pairs, "consumer_id": consumer}
    fields["signed_date_time"] += ",signed_field_names=" + form["signed_field_names"]
    fields["signed_field_names"] = ",".join(names)
    return fields


def test_a_checkout_forms_consumer_id_re_split_into_an_accept_is_refused(
    api, lms, paid, learner, monkeypatch
):
    import re

    from ecommerce.core import auth

    victim = pay(api, learner, [paid[0].sku])  # a basket awaiting payment
    reference, price = form_data(victim)["reference_number"], str(paid[0].price)
    monkeypatch.setattr(auth, "USERNAME_PATTERN", re.compile(r"^.{1,150}\Z"))  # the rule relaxed
    username = (
        f"x,decision=ACCEPT,req_reference_number={reference},transaction_id=1,"
        f"auth_amount={price},req_amount={price},req_currency=USD"
    )
    form = form_data(pay(api, username, [paid[1].sku]))
    forged = resplit(form)
    assert cybersource.message(forged) == cybersource.message(form)
    assert cybersource.verify(forged, [SECRET, STAND_IN_SECRET])  # the signature holds
    response = refused_cleanly(api, forged, 400, "invalid_notification", NOTIFICATION.MALFORMED)
    assert "signed_field_names is not signed" in response.json()["message"]
    forged_names_signed = {
        **forged,
        "signed_field_names": forged["signed_field_names"] + ",signed_field_names",
    }
    assert notify(api, forged_names_signed).status_code == 400
    assert Basket.objects.get(pk=victim.json()["id"]).status == Basket.FROZEN
    assert lms.enrollments(learner) == []


def test_the_stand_ins_accept_is_refused_without_the_switch(api, lms, paid, learner, settings):
    settings.ECOMMERCE_PAYMENT_STAND_IN = False
    form = form_data(pay(api, learner, [paid[0].sku]))
    assert cybersource.verify(form, SECRET)  # switch off: the shop's own profile signs
    assert form["access_key"] == "loadtest-cybersource-access-key"
    stand_ins = notification(form, secret=STAND_IN_SECRET)
    refused_cleanly(api, stand_ins, 400, "invalid_signature", NOTIFICATION.INVALID_SIGNATURE)
    assert lms.enrollments(learner) == []
    settings.ECOMMERCE_PAYMENT_STAND_IN = True
    assert notify(api, stand_ins).status_code == 200
    assert len(lms.enrollments(learner)) == 1
