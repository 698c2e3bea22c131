"""The learners' mix (BUY_WEIGHT : PAY_WEIGHT : READ_WEIGHT) and the paid journey's reading of
the processor stand-in's pages, without Locust running: the stand-in's own page builders make
the pages read here, so the journey and the stand-in cannot drift apart unnoticed."""

import pytest

from common.contract import cybersource
from lms_stub.processor import pages
from locustfiles.suite.core import learner_settings
from locustfiles.suite.core.learner_settings import load_settings, paid_arrival, read_share
from locustfiles.suite.users import paid_journey


def test_the_default_mix_is_edx_50_to_1_with_a_read_for_every_ten_purchases():
    weights = load_settings({}, open_model=False)["weights"]
    assert weights == {"buy": 50, "pay": 1, "read": 5}
    assert read_share(weights) == 5 / 51  # about one read for every ten purchases, as before


def test_the_weights_follow_the_environment():
    env = {"BUY_WEIGHT": "3", "PAY_WEIGHT": "0", "READ_WEIGHT": "1"}
    assert (
        load_settings(env, open_model=False)["weights"]
        == load_settings(env, open_model=True)["weights"]
        == {
            "buy": 3,
            "pay": 0,
            "read": 1,
        }
    )


@pytest.mark.parametrize(
    "env, message",
    [
        (
            {"PAY_WEIGHT": "-1"},
            "^PAY_WEIGHT: expects a whole number of paid purchases in the mix from 0 to 1000; got '-1'$",
        ),
        ({"BUY_WEIGHT": "1.5"}, "^BUY_WEIGHT: expects a whole number"),
        ({"READ_WEIGHT": "many"}, "^READ_WEIGHT: expects a whole number"),
        ({"BUY_WEIGHT": "0", "PAY_WEIGHT": "0"}, "would buy nothing"),
        ({"WAIT_MIN": "soon"}, "^WAIT_MIN: expects a number of seconds from 0 to 3600; got 'soon'$"),
        ({"WAIT_MAX": "-2"}, "^WAIT_MAX: expects a number of seconds from 0 to 3600; got '-2'$"),
    ],
)
def test_unusable_weights_and_think_times_are_refused_by_name(env, message):
    with pytest.raises(ValueError, match=message):
        load_settings(env, open_model=False)


def test_the_open_model_sends_exactly_pay_of_every_buy_plus_pay_arrivals_down_the_paid_journey():
    edx = {"buy": 50, "pay": 1, "read": 5}
    paid = [i for i in range(510) if paid_arrival(i, edx)]
    assert paid == [50, 101, 152, 203, 254, 305, 356, 407, 458, 509]  # one in 51, evenly spaced
    half = {"buy": 1, "pay": 1, "read": 0}
    assert [paid_arrival(i, half) for i in range(6)] == [False, True] * 3
    assert all(paid_arrival(i, {"buy": 0, "pay": 2, "read": 0}) for i in range(10))
    assert not any(paid_arrival(i, {"buy": 7, "pay": 0, "read": 0}) for i in range(100))
    three_in_ten = {"buy": 7, "pay": 3, "read": 0}
    for block in range(5):  # every block of BUY + PAY arrivals holds exactly PAY paid ones
        assert sum(paid_arrival(i, three_in_ten) for i in range(10 * block, 10 * block + 10)) == 3


def test_make_help_names_the_weights_with_their_defaults():
    assert learner_settings.help_line().startswith("BUY_WEIGHT (50) : PAY_WEIGHT (1) : READ_WEIGHT (5)")


def checkout_form() -> dict[str, str]:
    fields = {
        "access_key": "key",
        "profile_id": "profile",
        "transaction_uuid": "0f" * 16,
        "unsigned_field_names": "",
        "signed_date_time": "2015-10-01T12:00:00Z",
        "locale": "en-us",
        "transaction_type": "sale",
        "reference_number": "OSCR-100042",
        "amount": "74.00",
        "currency": "USD",
        "consumer_id": 'ada "<&>"',
    }
    return cybersource.sign_checkout(fields, "secret")


def test_pressing_pay_on_the_hosted_page_sends_the_checkout_form_the_card_and_the_button():
    form = checkout_form()
    page = pages.payment_page(form)
    url, fields = paid_journey.press(page, "http://127.0.0.1:18000/processor/cybersource/pay/", "pay")
    assert url == "http://127.0.0.1:18000/processor/cybersource/pay/confirm/"
    assert fields == {**form, "card_number": cybersource.TEST_CARD, "pay_action": "pay"}
    assert cybersource.verify(fields, "secret")  # unescaped exactly as signed
    declined = paid_journey.press(page, "http://lms/processor/cybersource/pay/", "decline")[1]
    assert declined["pay_action"] == "decline"


def test_a_page_without_the_button_cannot_be_pressed():
    no_button = "<html><form action='/x'><input name=a></form></html>"
    assert paid_journey.press(no_button, "http://h/", "pay") is None
    assert paid_journey.press("<p>Service unavailable</p>", "http://h/", "pay") is None


@pytest.mark.parametrize(
    "decision, status, taken",
    [
        (cybersource.ACCEPT, 200, True),
        (cybersource.ACCEPT, 503, False),  # the payment was taken, ecommerce did not take it
        (cybersource.DECLINE, 200, False),
    ],
)
def test_the_receipt_says_whether_ecommerce_took_the_payment(decision, status, taken):
    notification = cybersource.notification(checkout_form(), "secret", decision)
    found = paid_journey.receipt(pages.receipt_page(notification, status, '{"error": "x"}'))
    assert (found.decision, found.notify_status, found.taken) == (decision, status, taken)
    assert paid_journey.receipt("<p>nothing</p>") == paid_journey.Receipt(None, None)


def test_the_paid_checkout_is_edx_clients_body():
    assert paid_journey.basket_body("ABC") == {
        "products": [{"sku": "ABC"}],
        "checkout": True,
        "payment_processor_name": "cybersource",
    }
