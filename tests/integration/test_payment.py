"""Paying for a seat across real processes: ecommerce and lms_stub under gunicorn (gevent
workers), the processor's notifications posted over HTTP, at the same moment when it matters."""

import re
import threading
from html import unescape

import requests

from common.contract import cybersource, paths
from common.contract.courses import paid_seat
from common.contract.statuses import NOTIFICATION, ORDER
from tests.integration.conftest import COURSES, ECOMMERCE_DB
from tests.integration.helpers import new_name
from tests.support import mysql, tokens

SECRET = "local-only-cybersource-secret-key"  # the stack's, from common/environment
API_KEY = "local-only-edx-api-key"
PAID = [paid_seat(number) for number in range(1, COURSES + 1)]


def paid_checkout(url: str, username: str, seat) -> dict:
    response = requests.post(
        url + paths.BASKETS,
        json={"products": [{"sku": seat.sku}], "checkout": True, "payment_processor_name": "cybersource"},
        headers={"Authorization": "JWT " + tokens.token(username)},
        timeout=30,
    )
    assert response.status_code == 201, response.text
    return response.json()


def at_once(count: int, call) -> list:
    """``call()`` from ``count`` threads released together; their results."""
    start = threading.Barrier(count)
    results: list = [None] * count

    def run(index):
        start.wait()
        results[index] = call()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def outcomes(reference: str) -> list[str]:
    rows = mysql.query(
        ECOMMERCE_DB,
        "SELECT outcome FROM processors_paymentnotification WHERE reference_number = %s ORDER BY id",
        [reference],
    )
    return [outcome for (outcome,) in rows]


def orders_of(basket_id: int) -> list[tuple]:
    return mysql.query(
        ECOMMERCE_DB, "SELECT number, status FROM order_order WHERE basket_id = %s", [basket_id]
    )


def enrollments(lms_url: str, username: str) -> list[dict]:
    response = requests.get(
        lms_url + paths.ENROLLMENT, params={"user": username}, headers={"X-Edx-Api-Key": API_KEY}, timeout=10
    )
    response.raise_for_status()
    return response.json()


def test_identical_notifications_at_the_same_moment_place_one_order(stack):
    """The processor retries, or two of its servers send the same notification: each basket
    gets one order, one payment and one enrollment, and the other copies are replays."""
    copies = 4
    for seat in PAID[:3]:
        learner = new_name("paying")
        basket = paid_checkout(stack.ecommerce.url, learner, seat)
        fields = cybersource.notification(basket["payment_data"]["payment_form_data"], SECRET)
        notify = stack.ecommerce.url + paths.payment_notification("cybersource")

        answers = at_once(
            copies, lambda fields=fields, notify=notify: requests.post(notify, data=fields, timeout=60)
        )

        assert [(a.status_code, a.text) for a in answers] == [(200, "")] * copies
        reference = fields["req_reference_number"]
        assert orders_of(basket["id"]) == [(reference, ORDER.COMPLETE)]
        assert sorted(outcomes(reference)) == sorted(
            [NOTIFICATION.PLACED] + [NOTIFICATION.REPLAY] * (copies - 1)
        )
        sources = mysql.query(
            ECOMMERCE_DB,
            "SELECT COUNT(*) FROM payment_source s JOIN order_order o ON o.id = s.order_id"
            " WHERE o.basket_id = %s",
            [basket["id"]],
        )
        assert sources == [(1,)]
        assert [e["course_details"]["course_id"] for e in enrollments(stack.lms.url, learner)] == [
            seat.course_id
        ]


def test_two_baskets_of_one_learner_paid_at_the_same_moment_place_one_order(stack):
    """Two tabs, the same seat, both paid: one order, the other payment owed back."""
    learner, seat = new_name("two_tabs"), PAID[0]
    baskets = [paid_checkout(stack.ecommerce.url, learner, seat) for _ in range(2)]
    notes = [cybersource.notification(b["payment_data"]["payment_form_data"], SECRET) for b in baskets]
    notify = stack.ecommerce.url + paths.payment_notification("cybersource")
    pending = list(notes)
    lock = threading.Lock()

    def post_next():
        with lock:
            fields = pending.pop()
        return requests.post(notify, data=fields, timeout=60)

    answers = at_once(2, post_next)

    assert [a.status_code for a in answers] == [200, 200]
    found = sorted(outcome for note in notes for outcome in outcomes(note["req_reference_number"]))
    assert found == [NOTIFICATION.PLACED, NOTIFICATION.REFUND_OWED]
    assert sum(len(orders_of(b["id"])) for b in baskets) == 1
    assert len(enrollments(stack.lms.url, learner)) == 1


def hidden_fields(page: str) -> dict[str, str]:
    return {
        unescape(name): unescape(value)
        for name, value in re.findall(r'<input type="hidden" name="([^"]*)" value="([^"]*)">', page)
    }


def test_paying_on_the_stand_ins_hosted_page_places_the_order(stack):
    """The browser's round trip without a browser: the checkout form to the payment page, Pay,
    and the stand-in's notification to ecommerce."""
    learner, seat = new_name("hosted"), PAID[1]
    basket = paid_checkout(stack.ecommerce.url, learner, seat)
    data = basket["payment_data"]
    assert data["payment_page_url"] == stack.lms.url + paths.PROCESSOR_PAY

    page = requests.post(data["payment_page_url"], data=data["payment_form_data"], timeout=30)
    assert page.status_code == 200, page.text
    assert hidden_fields(page.text) == data["payment_form_data"]

    receipt = requests.post(
        stack.lms.url + paths.PROCESSOR_CONFIRM,
        data={**hidden_fields(page.text), "card_number": cybersource.TEST_CARD, "pay_action": "pay"},
        timeout=60,
    )

    assert receipt.status_code == 200, receipt.text
    assert '<p id="notify-status">HTTP 200</p>' in receipt.text
    reference = data["payment_form_data"]["reference_number"]
    assert orders_of(basket["id"]) == [(reference, ORDER.COMPLETE)]
    assert outcomes(reference) == [NOTIFICATION.PLACED]
    assert [e["mode"] for e in enrollments(stack.lms.url, learner)] == [seat.mode]
    order = requests.get(
        stack.ecommerce.url + paths.basket_order(basket["id"]),
        headers={"Authorization": "JWT " + tokens.token(learner)},
        timeout=30,
    )
    assert (order.status_code, order.json()["number"]) == (200, reference)


def peak_rss_mb(pid: int) -> float:
    """A process's peak resident memory (VmHWM), in MB."""
    status = open(f"/proc/{pid}/status").read()
    return int(re.search(r"^VmHWM:\s+(\d+) kB", status, re.M).group(1)) / 1024


def test_the_64_kb_amplification_costs_a_worker_no_time_and_no_memory(stack):
    """The review's request (2.9 s and +970 MB of a worker's RSS before issue 28), five times
    over a real gunicorn: each refused in well under 100 ms, no worker's peak memory grows."""
    body = f"a={'x' * 30_000}&signed_field_names={','.join(['a'] * 17_000)}&signature={'A' * 44}"
    notify = stack.ecommerce.url + paths.payment_notification("cybersource")
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    session = requests.Session()
    assert session.post(notify, data="a=1", headers=headers, timeout=30).status_code == 400  # warm
    before = {pid: peak_rss_mb(pid) for pid in stack.ecommerce.worker_pids()}
    for _ in range(5):
        response = session.post(notify, data=body, headers=headers, timeout=30)
        assert (response.status_code, response.json()["error"]) == (400, "invalid_signature")
        assert "more than 64 signed names" in response.json()["message"]
        assert response.elapsed.total_seconds() < 0.1, response.elapsed
    grown = {pid: peak_rss_mb(pid) - mb for pid, mb in before.items()}
    assert max(grown.values()) < 20, grown


def test_a_large_multipart_part_is_413_and_a_small_one_415_over_gunicorn(stack):
    notify = stack.ecommerce.url + paths.payment_notification("cybersource")
    large = requests.post(notify, files={"part": b"x" * (2 * 2**20)}, timeout=30)
    assert (large.status_code, large.json()["error"]) == (413, "body_too_large")
    small = requests.post(notify, files={"part": b"x"}, data={"decision": "ACCEPT"}, timeout=30)
    assert (small.status_code, small.json()["error"]) == (415, "unsupported_media_type")
