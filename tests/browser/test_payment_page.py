"""Paying for a seat in a real browser: a paid checkout's payment_data becomes the shop's
checkout page (common.contract.cybersource.checkout_page), whose form takes the browser to the
processor stand-in's hosted page; Pay places the order and enrols the learner, Decline places
nothing. The stack is the browser suite's own (scripts/stack.sh)."""

import uuid

import pytest
import requests
from playwright.sync_api import expect

from common.contract import cybersource, paths
from common.contract.courses import paid_seat
from common.contract.statuses import ORDER
from tests.browser.helpers import poll
from tests.support import mysql, tokens

pytestmark = pytest.mark.slow


@pytest.fixture
def paid_checkout(stack):
    """A new learner's paid checkout of a seat, as the order API answers it."""
    seat = paid_seat(1)
    learner = "browser_" + uuid.uuid4().hex[:10]
    response = requests.post(
        stack["ECOMMERCE_URL"] + paths.BASKETS,
        json={"products": [{"sku": seat.sku}], "checkout": True, "payment_processor_name": "cybersource"},
        headers={"Authorization": "JWT " + tokens.token(learner)},
        timeout=30,
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["order"] is None
    return learner, seat, body


def order_of(stack, basket_id: int):
    rows = mysql.query(
        stack["ECOMMERCE_DB_NAME"], "SELECT number, status FROM order_order WHERE basket_id = %s", [basket_id]
    )
    return rows[0] if rows else None


def enrollments(stack, learner: str) -> list[tuple]:
    return mysql.query(
        stack["LMS_DB_NAME"], "SELECT course_id, mode FROM enrollment_enrollment WHERE user = %s", [learner]
    )


def go_to_the_payment_page(page, payment_data, screenshot):
    """The shop's checkout page, then its form posted to the processor's page."""
    page.set_content(cybersource.checkout_page(payment_data, submit_automatically=False))
    screenshot(page, "checkout")
    page.get_by_role("button", name="Continue to payment").click()
    expect(page).to_have_url(payment_data["payment_page_url"])


def test_paying_on_the_hosted_page_places_the_order_and_enrols_the_learner(
    stack, page, screenshot, paid_checkout
):
    learner, seat, basket = paid_checkout
    data = basket["payment_data"]
    reference = data["payment_form_data"]["reference_number"]

    go_to_the_payment_page(page, data, screenshot)
    expect(page.get_by_role("heading", name=f"Pay {seat.price} USD")).to_be_visible()
    expect(page.locator("#reference-number")).to_have_text(reference)
    expect(page.get_by_label("Card number")).to_have_value(cybersource.TEST_CARD)
    screenshot(page, "payment-page")
    page.get_by_role("button", name="Pay", exact=True).click()

    expect(page.get_by_role("heading", name="Payment accepted")).to_be_visible()
    expect(page.locator("#reference-number")).to_have_text(reference)
    expect(page.locator("#notify-status")).to_have_text("HTTP 200")
    screenshot(page, "receipt")
    assert order_of(stack, basket["id"]) == (reference, ORDER.COMPLETE)
    assert enrollments(stack, learner) == [(seat.course_id, seat.mode)]
    read = requests.get(
        stack["ECOMMERCE_URL"] + paths.order(reference),
        headers={"Authorization": "JWT " + tokens.token(learner)},
        timeout=30,
    )
    assert (read.status_code, read.json()["status"]) == (200, ORDER.COMPLETE)


def test_declining_on_the_hosted_page_places_nothing(stack, page, screenshot, paid_checkout):
    learner, _, basket = paid_checkout
    data = basket["payment_data"]

    go_to_the_payment_page(page, data, screenshot)
    page.get_by_role("button", name="Decline").click()

    expect(page.get_by_role("heading", name="Payment declined")).to_be_visible()
    expect(page.locator("#notify-status")).to_have_text("HTTP 200")
    screenshot(page, "declined")
    outcome = poll(
        lambda: mysql.query(
            stack["ECOMMERCE_DB_NAME"],
            "SELECT outcome FROM processors_paymentnotification WHERE basket_id = %s",
            [basket["id"]],
        ),
        lambda rows: len(rows) > 0,
        10,
        "the declined notification recorded",
    )
    assert outcome == [("declined",)]
    assert order_of(stack, basket["id"]) is None
    assert enrollments(stack, learner) == []
    status = mysql.query(
        stack["ECOMMERCE_DB_NAME"], "SELECT status FROM basket_basket WHERE id = %s", [basket["id"]]
    )
    assert status == [("Frozen",)]
