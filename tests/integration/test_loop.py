"""auto_auth -> LMS basket -> ecommerce order -> LMS enrollment, over real HTTP between real
gunicorn processes: the loop every load test drives."""

import re

import pytest
import requests

from common.contract.courses import seat
from tests.integration.conftest import ECOMMERCE_DB, LMS_DB, STAFF_PASSWORD
from tests.integration.helpers import staff_session
from tests.support import mysql, tokens

pytestmark = pytest.mark.slow

API_KEY = {"X-Edx-Api-Key": "local-only-edx-api-key"}
FAULT_KEY = {"X-Fault-Api-Key": "local-only-fault-api-key"}


def new_learner(stack) -> tuple[requests.Session, str]:
    browser = requests.Session()
    login = browser.get(stack.lms.url + "/auto_auth", timeout=10)
    assert login.status_code == 201
    browser.headers["X-CSRFToken"] = browser.cookies["csrftoken"]
    return browser, login.json()["username"]


def buy(stack, browser, course_id):
    return browser.post(
        stack.lms.url + "/api/commerce/v0/baskets/", json={"course_id": course_id}, timeout=30
    )


def enrollments(stack, username):
    response = requests.get(
        stack.lms.url + "/api/enrollment/v1/enrollment",
        params={"user": username},
        headers=API_KEY,
        timeout=10,
    )
    return [e["course_details"]["course_id"] for e in response.json()]


def set_faults(stack, **faults):
    requests.put(
        stack.lms.url + "/api/faults/", json=faults, headers=FAULT_KEY, timeout=10
    ).raise_for_status()


def test_a_learner_buys_a_seat_through_the_lms(stack):
    browser, username = new_learner(stack)

    response = buy(stack, browser, seat(2).course_id)

    assert response.status_code == 201, response.text
    body = response.json()
    assert body["enrolled"] is True
    assert body["order"]["status"] == "Complete"
    number = body["order"]["number"]
    assert enrollments(stack, username) == [seat(2).course_id]
    stored = mysql.query(
        ECOMMERCE_DB,
        "SELECT o.status, u.username, l.partner_sku, l.status FROM order_order o "
        "JOIN auth_user u ON u.id = o.user_id JOIN order_line l ON l.order_id = o.id WHERE o.number = %s",
        [number],
    )
    assert stored == [("Complete", username, seat(2).sku, "Complete")]

    read_back = browser.get(stack.lms.url + f"/api/commerce/v1/orders/{number}/", timeout=10)
    assert (read_back.status_code, read_back.json()["number"]) == (200, number)
    someone_else, _ = new_learner(stack)
    assert (
        someone_else.get(stack.lms.url + f"/api/commerce/v1/orders/{number}/", timeout=10).status_code == 404
    )

    again = buy(stack, browser, seat(2).course_id)
    assert again.status_code == 409
    assert (
        mysql.count(
            ECOMMERCE_DB,
            "order_order",
            "number <> %s AND user_id = (SELECT id FROM auth_user WHERE username = %s)",
            [number, username],
        )
        == 0
    )


def test_the_order_is_readable_through_the_api_and_the_dashboard(stack):
    browser, username = new_learner(stack)
    number = buy(stack, browser, seat(1).course_id).json()["order"]["number"]

    own = requests.get(
        stack.ecommerce.url + "/api/v2/orders/",
        headers={"Authorization": "JWT " + tokens.token(username)},
        timeout=10,
    ).json()
    assert [o["number"] for o in own["results"]] == [number]

    staff = staff_session(stack.ecommerce.url, STAFF_PASSWORD)
    orders_page = staff.get(stack.ecommerce.url + "/dashboard/orders/", timeout=10)
    assert orders_page.status_code == 200
    assert re.search(rf">\s*{number}\s*<", orders_page.text), "the order is not listed in the dashboard"
    detail = staff.get(stack.ecommerce.url + f"/dashboard/orders/{number}/", timeout=10)
    assert detail.status_code == 200 and "Complete" in detail.text


def test_an_lms_outage_ends_in_fulfillment_error_and_the_retry_completes_it(stack):
    browser, username = new_learner(stack)
    set_faults(stack, outage_seconds=60)
    try:
        response = buy(stack, browser, seat(3).course_id)
    finally:
        requests.delete(stack.lms.url + "/api/faults/", headers=FAULT_KEY, timeout=10)

    assert response.status_code == 202, response.text
    assert response.json()["order"]["status"] == "Fulfillment Error"
    assert response.json()["order"]["lines"][0]["status"] == "Fulfillment Server Error"
    assert enrollments(stack, username) == []

    output = stack.manage("retry_fulfillment", "--all")

    assert "1 complete" in output
    number = response.json()["order"]["number"]
    assert mysql.query(ECOMMERCE_DB, "SELECT status FROM order_order WHERE number = %s", [number]) == [
        ("Complete",)
    ]
    assert enrollments(stack, username) == [seat(3).course_id]


def test_lms_users_and_ecommerce_users_live_in_separate_databases(stack):
    _, username = new_learner(stack)
    assert mysql.count(LMS_DB, "auth_user", "username = %s", [username]) == 1
    assert mysql.count(ECOMMERCE_DB, "auth_user", "username = %s", [username]) == 0
