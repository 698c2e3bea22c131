"""Fulfilment outcomes and their recovery: LMS errors, timeouts and outages end in
Fulfillment Error with the reason on the line; a retry (API or command) completes them."""

import http.server
import threading
import time

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone
from oscar.core.loading import get_model

from common.contract.courses import COURSE_ATTRIBUTE
from common.contract.statuses import LINE, ORDER
from tests.support import servers

pytestmark = pytest.mark.django_db(transaction=True)

Order = get_model("order", "Order")
ProductAttributeValue = get_model("catalogue", "ProductAttributeValue")


def failed_order(api, learner, seat, expected_line_status):
    response = api.buy(learner, [seat.sku])
    assert response.status_code == 201, response.content
    order = response.json()["order"]
    assert order["status"] == ORDER.FULFILLMENT_ERROR
    assert [line["status"] for line in order["lines"]] == [expected_line_status]
    assert Order.objects.get(number=order["number"]).status == ORDER.FULFILLMENT_ERROR
    return order["number"]


def retry_as_staff(api, staff, number):
    return api.put(f"/api/v2/orders/{number}/fulfill/", staff.username, staff=True)


def test_lms_server_error_then_retry_completes(api, lms, seats, learner, staff):
    lms.set_faults(error_rate=1.0)
    number = failed_order(api, learner, seats[0], LINE.FULFILLMENT_SERVER_ERROR)
    assert lms.enrollments(learner) == []

    lms.reset_faults()
    response = retry_as_staff(api, staff, number)

    assert response.status_code == 200, response.content
    assert response.json()["status"] == ORDER.COMPLETE
    assert response.json()["lines"][0]["status"] == LINE.COMPLETE
    assert Order.objects.get(number=number).status == ORDER.COMPLETE
    assert len(lms.enrollments(learner)) == 1


def test_lms_outage_is_a_server_error(api, lms, seats, learner):
    lms.set_faults(outage_seconds=60)
    failed_order(api, learner, seats[0], LINE.FULFILLMENT_SERVER_ERROR)


def test_lms_slower_than_the_timeout_is_a_timeout_error_within_the_timeout(
    api, lms, seats, learner, settings
):
    settings.LMS_ENROLLMENT_TIMEOUT = 0.5
    lms.set_faults(latency_ms=1500)
    started = time.monotonic()
    failed_order(api, learner, seats[0], LINE.FULFILLMENT_TIMEOUT_ERROR)
    assert time.monotonic() - started < 1.5  # the request did not wait for the slow LMS


def test_unreachable_lms_is_a_network_error(api, seats, learner, settings):
    settings.LMS_URL = f"http://127.0.0.1:{servers.free_port()}"
    failed_order(api, learner, seats[0], LINE.FULFILLMENT_NETWORK_ERROR)


def test_lms_refusing_the_api_key_is_a_configuration_error(api, lms, seats, learner, settings):
    settings.EDX_API_KEY = "not-the-key"
    failed_order(api, learner, seats[0], LINE.FULFILLMENT_CONFIGURATION_ERROR)


def test_seat_without_a_course_is_a_configuration_error(api, lms, seats, learner):
    ProductAttributeValue.objects.filter(
        product__stockrecords__partner_sku=seats[0].sku, attribute__code=COURSE_ATTRIBUTE
    ).delete()
    failed_order(api, learner, seats[0], LINE.FULFILLMENT_CONFIGURATION_ERROR)
    assert lms.enrollments(learner) == []


def test_retrying_a_complete_order_is_406_and_changes_nothing(api, lms, seats, learner, staff):
    number = api.buy(learner, [seats[0].sku]).json()["order"]["number"]
    before = Order.objects.get(number=number)

    response = retry_as_staff(api, staff, number)

    assert response.status_code == 406
    assert response.json()["error"] == "not_retryable"
    assert response.json()["order_status"] == ORDER.COMPLETE
    after = Order.objects.get(number=number)
    assert (after.status, list(after.lines.values_list("status", flat=True))) == (
        before.status,
        list(before.lines.values_list("status", flat=True)),
    )


def test_retry_that_fails_again_stays_in_fulfillment_error(api, lms, seats, learner, staff):
    lms.set_faults(error_rate=1.0)
    number = failed_order(api, learner, seats[0], LINE.FULFILLMENT_SERVER_ERROR)
    response = retry_as_staff(api, staff, number)
    assert response.status_code == 200
    assert response.json()["status"] == ORDER.FULFILLMENT_ERROR
    assert Order.objects.get(number=number).status == ORDER.FULFILLMENT_ERROR


def test_only_staff_may_retry(api, lms, seats, learner):
    lms.set_faults(error_rate=1.0)
    number = failed_order(api, learner, seats[0], LINE.FULFILLMENT_SERVER_ERROR)
    lms.reset_faults()
    response = api.put(f"/api/v2/orders/{number}/fulfill/", learner)
    assert response.status_code == 403
    assert response.json()["error"] == "permission_denied"
    assert Order.objects.get(number=number).status == ORDER.FULFILLMENT_ERROR


def test_retrying_an_unknown_order_is_404(api, staff, db):
    response = api.put("/api/v2/orders/999999/fulfill/", staff.username, staff=True)
    assert response.status_code == 404
    assert response.json()["error"] == "not_found"


def test_retry_command_completes_every_failed_order(api, lms, seats, learner, other_learner):
    lms.set_faults(error_rate=1.0)
    first = failed_order(api, learner, seats[0], LINE.FULFILLMENT_SERVER_ERROR)
    second = failed_order(api, other_learner, seats[1], LINE.FULFILLMENT_SERVER_ERROR)
    lms.reset_faults()

    call_command("retry_fulfillment", "--all")

    assert set(Order.objects.filter(number__in=[first, second]).values_list("status", flat=True)) == {
        ORDER.COMPLETE
    }
    assert len(lms.enrollments(learner)) == len(lms.enrollments(other_learner)) == 1


def test_retry_command_for_one_order(api, lms, seats, learner, other_learner):
    lms.set_faults(error_rate=1.0)
    first = failed_order(api, learner, seats[0], LINE.FULFILLMENT_SERVER_ERROR)
    second = failed_order(api, other_learner, seats[1], LINE.FULFILLMENT_SERVER_ERROR)
    lms.reset_faults()

    call_command("retry_fulfillment", "--order", first)

    assert Order.objects.get(number=first).status == ORDER.COMPLETE
    assert Order.objects.get(number=second).status == ORDER.FULFILLMENT_ERROR


def test_retry_command_refuses_an_order_not_in_error(api, lms, seats, learner):
    number = api.buy(learner, [seats[0].sku]).json()["order"]["number"]
    with pytest.raises(CommandError, match="not Fulfillment Error"):
        call_command("retry_fulfillment", "--order", number)
    assert Order.objects.get(number=number).status == ORDER.COMPLETE


def test_retry_command_fails_while_orders_still_fail(api, lms, seats, learner):
    lms.set_faults(error_rate=1.0)
    number = failed_order(api, learner, seats[0], LINE.FULFILLMENT_SERVER_ERROR)
    with pytest.raises(CommandError, match="still in Fulfillment Error"):
        call_command("retry_fulfillment", "--all")
    assert Order.objects.get(number=number).status == ORDER.FULFILLMENT_ERROR


def test_retry_command_recovers_an_order_left_open_by_a_dead_worker(api, lms, seats, learner, settings):
    number = api.buy(learner, [seats[0].sku]).json()["order"]["number"]
    # What a worker killed between the two transactions leaves behind:
    order = Order.objects.get(number=number)
    order.lines.update(status=LINE.OPEN)
    Order.objects.filter(pk=order.pk).update(
        status=ORDER.OPEN, date_placed=timezone.now() - timezone.timedelta(seconds=600)
    )
    settings.STALE_OPEN_ORDER_SECONDS = 300

    call_command("retry_fulfillment", "--all")

    assert Order.objects.get(pk=order.pk).status == ORDER.COMPLETE
    assert len(lms.enrollments(learner)) == 1  # the enrollment API is idempotent


def test_recent_open_orders_are_left_alone(api, lms, seats, learner):
    number = api.buy(learner, [seats[0].sku]).json()["order"]["number"]
    Order.objects.filter(number=number).update(status=ORDER.OPEN)
    call_command("retry_fulfillment", "--all")
    assert Order.objects.get(number=number).status == ORDER.OPEN


def test_the_timeout_bounds_the_whole_order_not_each_line(api, lms, seats, learner, settings):
    settings.LMS_ENROLLMENT_TIMEOUT = 1.0
    lms.set_faults(latency_ms=400)
    response = api.buy(learner, [seat.sku for seat in seats[:3]])
    statuses = [line["status"] for line in response.json()["order"]["lines"]]
    # 0.4 s + 0.4 s leave 0.2 s for the third call, which a per-line timeout would have allowed.
    assert statuses == [LINE.COMPLETE, LINE.COMPLETE, LINE.FULFILLMENT_TIMEOUT_ERROR]
    assert response.json()["order"]["status"] == ORDER.FULFILLMENT_ERROR


class _Redirecting(http.server.BaseHTTPRequestHandler):
    """An LMS behind a misconfigured proxy: POST is redirected, GET answers 200."""

    def do_POST(self):
        self.send_response(301)
        self.send_header("Location", "/api/enrollment/v1/enrollment?user=x")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        body = b"[]"
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_a_redirect_is_a_configuration_error_not_a_completed_enrollment(api, seats, learner, settings):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Redirecting)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    settings.LMS_URL = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        failed_order(api, learner, seats[0], LINE.FULFILLMENT_CONFIGURATION_ERROR)
    finally:
        server.shutdown()
        server.server_close()


def test_the_sweep_leaves_a_running_retry_alone(api, lms, seats, learner):
    from ecommerce.fulfillment.api import mark_stale_open_orders
    from ecommerce.fulfillment.models import FulfillmentAttempt

    number = api.buy(learner, [seats[0].sku]).json()["order"]["number"]
    order = Order.objects.get(number=number)
    long_ago = timezone.now() - timezone.timedelta(days=7)
    Order.objects.filter(pk=order.pk).update(status=ORDER.OPEN, date_placed=long_ago)
    FulfillmentAttempt.objects.create(order=order, started=timezone.now())  # a retry just began

    assert mark_stale_open_orders() == 0
    assert Order.objects.get(pk=order.pk).status == ORDER.OPEN

    FulfillmentAttempt.objects.filter(order=order).update(started=long_ago)
    assert mark_stale_open_orders() == 1


def test_fulfil_commits_its_callback_with_the_statuses_or_neither(api, lms, seats, learner):
    """The purchase stores its Idempotency-Key answer in fulfil's callback: if that write
    fails, the statuses roll back with it, and a later fulfil records both."""
    from ecommerce.fulfillment.api import fulfil

    lms.set_faults(error_rate=1.0)
    number = failed_order(api, learner, seats[0], LINE.FULFILLMENT_SERVER_ERROR)
    lms.reset_faults()
    order = Order.objects.get(number=number)

    def failing():
        raise RuntimeError("the callback's write failed")

    with pytest.raises(RuntimeError):
        fulfil(order, list(order.lines.select_related("product")), then=failing)
    assert Order.objects.get(pk=order.pk).status == ORDER.FULFILLMENT_ERROR
    assert list(order.lines.values_list("status", flat=True)) == [LINE.FULFILLMENT_SERVER_ERROR]

    assert fulfil(order, list(order.lines.select_related("product")), then=lambda: "stored") == "stored"
    assert Order.objects.get(pk=order.pk).status == ORDER.COMPLETE
    assert list(order.lines.values_list("status", flat=True)) == [LINE.COMPLETE]
    assert len(lms.enrollments(learner)) == 1  # the first call enrolled; the API is idempotent


def test_the_statuses_are_written_in_one_statement_each_line_its_own(api, lms, seats, learner):
    """record_fulfillment writes the order's status and every changed line's in one UPDATE, each
    line getting its own status, and leaves an unchanged line and other orders alone."""
    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext

    from ecommerce.fulfillment.api import record_fulfillment

    Line = get_model("order", "Line")
    other = api.buy(learner, [seats[3].sku]).json()["order"]["number"]
    number = api.buy(learner, [seat.sku for seat in seats[:3]]).json()["order"]["number"]
    order = Order.objects.get(number=number)
    lines = list(order.lines.order_by("pk"))
    assert [line.status for line in lines] == [LINE.COMPLETE] * 3
    wanted = [LINE.FULFILLMENT_SERVER_ERROR, LINE.COMPLETE, LINE.FULFILLMENT_TIMEOUT_ERROR]
    with CaptureQueriesContext(connection) as captured, transaction.atomic():
        record_fulfillment(order, lines, wanted)
    updates = [q["sql"] for q in captured.captured_queries if q["sql"].startswith("UPDATE")]
    assert len(updates) == 1, updates
    assert [line.status for line in lines] == wanted and order.status == ORDER.FULFILLMENT_ERROR
    assert list(Line.objects.filter(order=order).order_by("pk").values_list("status", flat=True)) == wanted
    assert Order.objects.get(pk=order.pk).status == ORDER.FULFILLMENT_ERROR
    assert Order.objects.get(number=other).status == ORDER.COMPLETE
    assert set(Line.objects.filter(order__number=other).values_list("status", flat=True)) == {LINE.COMPLETE}
    # Nothing changed on the lines: the order's status alone.
    with transaction.atomic():
        record_fulfillment(order, lines, wanted)
    assert Order.objects.get(pk=order.pk).status == ORDER.FULFILLMENT_ERROR
