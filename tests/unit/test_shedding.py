"""Admission control (common.shedding): the limiter, which requests may be shed, the refusal's
shape, and the middleware, one piece at a time (the real thing under gunicorn:
tests/integration/test_shedding.py)."""

import json

import pytest
from django.core.exceptions import MiddlewareNotUsed
from django.http import HttpResponse
from django.test import RequestFactory

from common import shedding, timing
from common.contract import paths
from common.queueing import WARM_SECONDS, Codel, LoopLag
from common.shedding import (
    ECOMMERCE_SHEDDABLE,
    LMS_SHEDDABLE,
    EcommerceAdmission,
    InFlight,
    LmsAdmission,
    QueueDelay,
    sheddable,
)


def test_the_limiter_admits_up_to_its_limit_then_refuses_new_work():
    in_flight = InFlight(2)
    assert in_flight.admit(True) and in_flight.admit(True)
    assert not in_flight.admit(True)
    assert (in_flight.busy, in_flight.admitted, in_flight.shed) == (2, 2, 1)

    in_flight.give_back()
    assert in_flight.admit(True)
    assert in_flight.busy == 2


def test_work_that_may_not_be_shed_is_admitted_past_the_limit_and_counted():
    in_flight = InFlight(1)
    assert in_flight.admit(True)
    assert in_flight.admit(False) and in_flight.admit(False)  # e.g. two enrollment calls
    assert in_flight.busy == 3 and in_flight.shed == 0
    # ...and new work waits until the worker is back under its limit.
    assert not in_flight.admit(True)
    for _ in range(3):
        in_flight.give_back()
    assert in_flight.admit(True)


def test_a_limit_of_zero_never_refuses():
    in_flight = InFlight(0)
    assert all(in_flight.admit(True) for _ in range(1000))
    assert in_flight.shed == 0


def test_a_negative_limit_is_refused():
    with pytest.raises(ValueError):
        InFlight(-1)


@pytest.mark.parametrize(
    "method, path",
    [
        ("GET", paths.AUTO_AUTH),
        ("POST", paths.AUTO_AUTH),
        ("POST", paths.COMMERCE_BASKETS),
        ("GET", paths.commerce_order("EDX-100123")),
    ],
)
def test_new_work_at_the_lms_may_be_shed(method, path):
    assert sheddable(LMS_SHEDDABLE, method, path)


@pytest.mark.parametrize(
    "method, path",
    [
        ("POST", paths.ENROLLMENT),  # ecommerce completing an order it has committed
        ("GET", paths.ENROLLMENT),
        ("GET", paths.HEALTH),
        ("PUT", "/api/faults/"),
        ("POST", paths.PROCESSOR_CONFIRM),  # a payment under way
        ("GET", paths.COMMERCE_BASKETS),  # not a purchase (answered 405)
        ("GET", paths.COMMERCE_ORDERS + "a/b/"),
        ("GET", "/auto_authx"),
    ],
)
def test_the_lms_never_sheds_what_completes_accepted_work(method, path):
    assert not sheddable(LMS_SHEDDABLE, method, path)


@pytest.mark.parametrize(
    "method, path",
    [
        ("POST", paths.BASKETS),
        ("GET", paths.basket_order(12)),
        ("GET", paths.ORDERS),
        ("GET", paths.order("EDX-100123")),
    ],
)
def test_new_work_at_ecommerce_may_be_shed(method, path):
    assert sheddable(ECOMMERCE_SHEDDABLE, method, path)


@pytest.mark.parametrize(
    "method, path",
    [
        ("POST", paths.payment_notification("cybersource")),  # the learner has paid
        ("PUT", paths.order_fulfilment("EDX-100123")),  # finishes an order already placed
        ("GET", paths.order_fulfilment("EDX-100123")),
        ("GET", paths.HEALTH),
        ("GET", "/dashboard/orders/"),
        ("GET", paths.PAYMENT_PROCESSORS),
        ("DELETE", paths.order("EDX-100123")),
    ],
)
def test_ecommerce_never_sheds_what_completes_accepted_work(method, path):
    assert not sheddable(ECOMMERCE_SHEDDABLE, method, path)


def test_the_refusal_is_a_json_503_overloaded_with_retry_after():
    response = shedding.overloaded()
    assert response.status_code == 503
    assert response["Content-Type"] == "application/json"
    assert response["Retry-After"] == "1"
    body = json.loads(response.content)
    assert body["error"] == "overloaded" and body["message"]


class Recorder:
    """A view that notes how busy its worker was while it ran, and can wait on another service."""

    def __init__(self):
        self.middleware = None
        self.seen: list[int] = []
        self.while_waiting: list[int] = []

    def __call__(self, request):
        self.seen.append(self.middleware.in_flight.busy)
        if request.GET.get("call"):
            with timing.outbound("lms"):
                self.while_waiting.append(self.middleware.in_flight.busy)
        return HttpResponse("done")


@pytest.fixture(autouse=True)
def counted(monkeypatch):
    """The in-flight policy (most tests here count slots), unless a test names another."""
    monkeypatch.setenv("LMS_ADMISSION", "in-flight")
    monkeypatch.setenv("ECOMMERCE_ADMISSION", "in-flight")


def middleware(cls, limit):
    view = Recorder()
    view.middleware = cls(view, limit=limit)
    return view.middleware, view


def test_the_middleware_refuses_new_work_when_full_and_lets_the_rest_through():
    mw, view = middleware(LmsAdmission, limit=1)
    factory = RequestFactory()
    mw.in_flight.admit(True)  # another request of this worker is under way

    refused = mw(factory.post(paths.COMMERCE_BASKETS))
    enrolled = mw(factory.post(paths.ENROLLMENT))
    health = mw(factory.get(paths.HEALTH))

    assert refused.status_code == 503 and json.loads(refused.content)["error"] == "overloaded"
    assert (enrolled.status_code, health.status_code) == (200, 200)
    assert view.seen == [2, 2]  # the view ran for the two that may not be shed, never for the refused
    assert mw.in_flight.busy == 1 and mw.in_flight.shed == 1


def test_a_request_gives_its_slot_back_when_it_ends_even_on_an_exception():
    def boom(request):
        raise RuntimeError("view failed")

    mw = EcommerceAdmission(boom, limit=1)
    with pytest.raises(RuntimeError):
        mw(RequestFactory().post(paths.BASKETS))
    assert mw.in_flight.busy == 0
    assert mw.in_flight.admit(True)


def test_waiting_on_another_service_does_not_count_as_work_in_flight():
    mw, view = middleware(EcommerceAdmission, limit=4)
    response = mw(RequestFactory().post(paths.BASKETS + "?call=1"))
    assert response.status_code == 200
    assert view.seen == [1] and view.while_waiting == [0]
    assert mw.in_flight.busy == 0


def test_outside_a_request_waiting_is_a_no_op():
    with shedding.waiting_on_another_service():
        pass


def test_the_limit_comes_from_the_services_variable_and_zero_turns_it_off(monkeypatch):
    monkeypatch.setenv("LMS_MAX_IN_FLIGHT", "3")
    monkeypatch.setenv("ECOMMERCE_MAX_IN_FLIGHT", "0")
    assert LmsAdmission(lambda r: None).in_flight.limit == 3
    with pytest.raises(MiddlewareNotUsed):
        EcommerceAdmission(lambda r: None)


# --- The queue-delay policy (common.queueing) -----------------------------------------------------


def test_codel_lets_a_burst_pass_and_calls_a_whole_interval_late_queueing():
    gate = Codel(target=0.005, interval=0.1)
    # A burst: late for less than the interval, then one sample on time.
    assert not gate.observe(0.050, now=10.00)
    assert not gate.observe(0.050, now=10.09)
    assert not gate.observe(0.001, now=10.10)
    # Late at every sample for a whole interval: queueing...
    for now in (11.00, 11.05, 11.099):
        assert not gate.observe(0.010, now)
    assert gate.observe(0.010, now=11.11)
    assert gate.observe(0.200, now=11.30)
    # ...until the first sample under the target.
    assert not gate.observe(0.004, now=11.31)
    assert not gate.observe(0.010, now=11.32)


@pytest.mark.parametrize("target, interval", [(0, 0.1), (0.005, 0), (-1, 1)])
def test_codel_needs_a_positive_target_and_interval(target, interval):
    with pytest.raises(ValueError):
        Codel(target, interval)


class FakeClock:
    """A monotonic clock that a fake sleep moves: each sleep oversleeps by the next lateness."""

    def __init__(self, lateness):
        self.now, self.lateness = 100.0, list(lateness)

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds + self.lateness.pop(0)


def test_loop_lag_measures_how_late_each_tick_wakes_and_judges_it():
    clock = FakeClock([0.0, 0.02, 0.02, 0.02, 0.02, 0.02, 0.0])
    lag = LoopLag(Codel(target=0.005, interval=0.05), tick=0.005, clock=clock, sleep=clock.sleep)
    judged = [lag.sample() for _ in range(7)]
    assert judged == [False, False, False, True, True, True, False]
    assert lag.samples == 7 and lag.last == 0.0
    assert lag.worst == pytest.approx(0.02)


def test_the_queue_delay_policy_refuses_new_work_only_while_the_loop_queues():
    gate = Codel(target=0.005, interval=0.1)
    clock = FakeClock([])
    # Its sampler starts at the first work and sleeps for an hour (time.sleep: the fake clock
    # moves only when the test moves it).
    policy = QueueDelay(LoopLag(gate, tick=3600, clock=clock))
    assert all(policy.admit(True) for _ in range(50))  # no count limits it
    gate.queueing = True
    assert policy.admit(True)  # the worker's first seconds of work: not judged
    clock.now += WARM_SECONDS
    assert not policy.admit(True)
    assert policy.admit(False)  # work that completes accepted work is never refused
    gate.queueing = False
    assert policy.admit(True)
    assert (policy.busy, policy.admitted, policy.shed) == (53, 53, 1)
    assert "in flight" in policy.state() and "target 5 ms" in policy.state()


def test_the_queue_delay_policy_samples_only_while_the_worker_has_work_in_flight():
    policy = QueueDelay(LoopLag(Codel(target=0.005, interval=0.1), tick=3600))
    assert not policy.lag.wanted.is_set()
    policy.admit(True)
    policy.admit(True)
    assert policy.lag.wanted.is_set()
    policy.give_back()
    assert policy.lag.wanted.is_set()  # one still in flight
    policy.give_back()
    assert not policy.lag.wanted.is_set()  # idle: no wake-ups
    policy.take_again()  # a request back from another service
    assert policy.lag.wanted.is_set()


def test_the_middleware_takes_the_policy_the_table_names(monkeypatch):
    monkeypatch.setenv("ECOMMERCE_MAX_IN_FLIGHT", "3")
    monkeypatch.delenv("ECOMMERCE_ADMISSION", raising=False)
    assert isinstance(EcommerceAdmission(lambda request: HttpResponse()).in_flight, QueueDelay)  # the default
    monkeypatch.setenv("ECOMMERCE_ADMISSION", "queue-delay")
    monkeypatch.setenv("ECOMMERCE_QUEUE_TARGET_MS", "7")
    monkeypatch.setenv("ECOMMERCE_QUEUE_INTERVAL_MS", "250")
    policy = EcommerceAdmission(lambda request: HttpResponse()).in_flight
    assert isinstance(policy, QueueDelay)
    assert (policy.lag.gate.target, policy.lag.gate.interval) == (0.007, 0.25)

    monkeypatch.setenv("ECOMMERCE_ADMISSION", "in-flight")
    policy = EcommerceAdmission(lambda request: HttpResponse()).in_flight
    assert type(policy) is InFlight and policy.limit == 3

    monkeypatch.setenv("ECOMMERCE_ADMISSION", "fifo")
    with pytest.raises(ValueError, match="ECOMMERCE_ADMISSION is 'fifo'; one of in-flight, queue-delay"):
        EcommerceAdmission(lambda request: HttpResponse())

    monkeypatch.setenv("ECOMMERCE_ADMISSION", "queue-delay")
    monkeypatch.setenv("ECOMMERCE_MAX_IN_FLIGHT", "0")
    with pytest.raises(MiddlewareNotUsed):
        EcommerceAdmission(lambda request: HttpResponse())
