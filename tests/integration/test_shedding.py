"""Admission control through real gunicorn workers (common/shedding.py): past its in-flight limit
a worker refuses new work at once with a JSON 503 and Retry-After, writes nothing for it, and
still serves everything that completes work it has accepted. Each test starts lms_stub and
ecommerce, one gevent worker each, with the limits it needs, on databases of its own."""

import contextlib
import socket
import threading
import time

import pytest
import requests

from common.contract import cybersource, paths
from common.contract.courses import paid_seat, seat
from common.contract.statuses import ORDER
from common.queueing import WARM_SECONDS
from tests.integration.helpers import new_name, staff_session, wait_for
from tests.support import locks, mysql, servers, tokens

pytestmark = pytest.mark.slow

ECOMMERCE_DB = "test_shed_ecommerce"
LMS_DB = "test_shed_lms"
COURSES = 5
STAFF_PASSWORD = "shedding-staff-password"
API_KEY = {"X-Edx-Api-Key": "local-only-edx-api-key"}
FAULT_KEY = {"X-Fault-Api-Key": "local-only-fault-api-key"}
SECRET = "local-only-cybersource-secret-key"


@pytest.fixture(scope="module")
def databases():
    env = {"CATALOG_COURSES": str(COURSES), "ECOMMERCE_STAFF_PASSWORD": STAFF_PASSWORD}
    servers.prepare_database("ecommerce", ECOMMERCE_DB, env, courses=COURSES)
    servers.prepare_database("lms_stub", LMS_DB, env)
    servers.manage(
        "settings.local", "ensure_staff", env={**env, **servers.AS_OWNER, "ECOMMERCE_DB_NAME": ECOMMERCE_DB}
    )
    yield
    mysql.drop_database(ECOMMERCE_DB)
    mysql.drop_database(LMS_DB)


class Loop:
    def __init__(self, lms, ecommerce):
        self.lms, self.ecommerce = lms, ecommerce

    def faults(self, **faults):
        method = "PUT" if faults else "DELETE"
        requests.request(
            method, self.lms.url + "/api/faults/", json=faults or None, headers=FAULT_KEY, timeout=10
        ).raise_for_status()

    def learner(self) -> tuple[requests.Session, str]:
        browser = requests.Session()
        login = browser.get(self.lms.url + paths.AUTO_AUTH, timeout=10)
        assert login.status_code == 201, login.text
        browser.headers["X-CSRFToken"] = browser.cookies["csrftoken"]
        return browser, login.json()["username"]

    def buy(self, browser, course: int) -> requests.Response:
        return browser.post(
            self.lms.url + paths.COMMERCE_BASKETS, json={"course_id": seat(course).course_id}, timeout=60
        )


@contextlib.contextmanager
def loop(lms_limit: int, ecommerce_limit: int, **settings: str):
    """lms_stub and ecommerce, one gevent worker each, under the in-flight policy with these
    limits (0: off), and any other ``settings``."""
    lms_port, ecommerce_port = servers.free_port(), servers.free_port()
    env = {
        "CATALOG_COURSES": str(COURSES),
        "LMS_URL": f"http://127.0.0.1:{lms_port}",
        "ECOMMERCE_URL": f"http://127.0.0.1:{ecommerce_port}",
        "LMS_FAULT_REFRESH_SECONDS": "0",
        "ECOMMERCE_DB_NAME": ECOMMERCE_DB,
        "LMS_DB_NAME": LMS_DB,
        "LMS_MAX_IN_FLIGHT": str(lms_limit),
        "ECOMMERCE_MAX_IN_FLIGHT": str(ecommerce_limit),
        # The count's policy (the default is queue-delay): the tests that need the other say so.
        "LMS_ADMISSION": "in-flight",
        "ECOMMERCE_ADMISSION": "in-flight",
        **settings,
    }
    started = []
    try:
        started.append(servers.start_service("lms_stub", LMS_DB, env, workers=1, port=lms_port))
        started.append(servers.start_service("ecommerce", ECOMMERCE_DB, env, workers=1, port=ecommerce_port))
        stack = Loop(*started)
        stack.faults()
        yield stack
    finally:
        if started:
            with contextlib.suppress(requests.RequestException):
                Loop(started[0], None).faults()
        for service in reversed(started):
            service.stop()


def rows() -> dict[str, int]:
    """What a purchase writes, table by table, in both databases."""
    return {
        "ecommerce users": mysql.count(ECOMMERCE_DB, "auth_user"),
        "baskets": mysql.count(ECOMMERCE_DB, "basket_basket"),
        "orders": mysql.count(ECOMMERCE_DB, "order_order"),
        "order lines": mysql.count(ECOMMERCE_DB, "order_line"),
        "purchase events": mysql.count(ECOMMERCE_DB, "counters_purchaseevent"),
        "lms learners": mysql.count(LMS_DB, "auth_user"),
        "enrollments": mysql.count(LMS_DB, "enrollment_enrollment"),
    }


def grown(before: dict, after: dict) -> dict:
    return {table: after[table] - before[table] for table in before}


def one_after_another(calls: list, every: float) -> list:
    """Each of ``calls`` from its own thread, started ``every`` seconds after the one before,
    whatever became of it: (answer, seconds it took)."""
    results: list = [None] * len(calls)
    t0 = time.monotonic() + 0.2

    def run(index):
        time.sleep(max(0.0, t0 + index * every - time.monotonic()))
        began = time.monotonic()
        try:
            results[index] = (calls[index](), time.monotonic() - began)
        except Exception as exc:  # the assertions show it
            results[index] = (exc, time.monotonic() - began)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return results


def purchases_with_a_slow_enrollment_api(stack: Loop) -> tuple[list, list, dict, dict]:
    """20 learners buy, one every 0.1 s, while the enrollment API answers a second late: the
    learners, the answers (with their seconds) and the rows before and after."""
    learners = [stack.learner() for _ in range(20)]
    stack.faults(latency_ms=1000)
    before = rows()
    answers = one_after_another(
        [lambda b=browser, i=i: stack.buy(b, 1 + i % COURSES) for i, (browser, _) in enumerate(learners)],
        every=0.1,
    )
    stack.faults()
    return learners, answers, before, rows()


def assert_overloaded(response: requests.Response) -> None:
    assert response.status_code == 503, response.text
    assert response.headers["Content-Type"] == "application/json"
    assert response.headers["Retry-After"] == "1"
    assert response.json()["error"] == "overloaded" and response.json()["message"]


class Background:
    def __init__(self, call):
        self.result = None
        self.thread = threading.Thread(target=self._run, args=(call,), daemon=True)
        self.thread.start()

    def _run(self, call):
        try:
            self.result = call()
        except Exception as exc:  # the assertions show it
            self.result = exc

    def join(self):
        self.thread.join(60)
        return self.result


def test_a_flood_of_purchases_past_the_lms_limit_is_answered_201_or_503_and_writes_only_the_201s(databases):
    """20 learners buy within 2 s from an LMS worker allowed 2 requests in flight. The
    enrollment API answers a second late, so each accepted purchase is in flight for more than
    a second and its enrollment call keeps the worker busy meanwhile: about ten purchases are
    under way at any moment, more than the limit allows."""
    with loop(lms_limit=2, ecommerce_limit=0) as stack:
        learners, answers, before, after = purchases_with_a_slow_enrollment_api(stack)
    statuses = sorted(getattr(answer, "status_code", answer) for answer, _ in answers)
    assert set(statuses) == {201, 503}, statuses
    accepted = [(a, s) for a, s in answers if a.status_code == 201]
    shed = [(a, s) for a, s in answers if a.status_code == 503]
    for answer, _ in shed:
        assert_overloaded(answer)
    # Every accepted purchase was enrolled: the enrollment API was never refused, though its
    # calls kept the worker at or past its limit (each took a second).
    assert all(a.json()["enrolled"] and a.json()["order"]["status"] == ORDER.COMPLETE for a, _ in accepted)
    # A refusal comes at once; an accepted purchase waited for its enrollment.
    assert max(s for _, s in shed) < 1.0 <= min(s for _, s in accepted)
    # Rows written: those of the accepted purchases, nothing for the refused ones.
    n = len(accepted)
    assert grown(before, after) == {
        "ecommerce users": n,
        "baskets": n,
        "orders": n,
        "order lines": n,
        "purchase events": n,
        "lms learners": 0,
        "enrollments": n,
    }
    refused = {
        name
        for (browser, name), (answer, _) in zip(learners, answers, strict=True)
        if answer.status_code == 503
    }
    assert mysql.count(ECOMMERCE_DB, "auth_user", "username IN %s", [tuple(refused)]) == 0


def test_a_busy_lms_refuses_new_work_and_serves_the_enrollment_api_and_health(databases):
    """An LMS worker allowed one request in flight, held by slow enrollment calls."""
    with loop(lms_limit=1, ecommerce_limit=0) as stack:
        browser, _ = stack.learner()
        stack.faults(latency_ms=2500)
        before = rows()

        def enrol(user: str):
            body = {"user": user, "mode": seat(2).mode, "course_details": {"course_id": seat(2).course_id}}
            return requests.post(stack.lms.url + paths.ENROLLMENT, json=body, headers=API_KEY, timeout=30)

        # Two enrollments at once: the second comes past the limit, and is served all the same.
        first = Background(lambda: enrol(new_name("enrol_a")))
        time.sleep(0.3)
        second = Background(lambda: enrol(new_name("enrol_b")))
        time.sleep(0.5)

        login = requests.get(stack.lms.url + paths.AUTO_AUTH, timeout=10)
        purchase = stack.buy(browser, 3)
        order_read = browser.get(stack.lms.url + paths.commerce_order("EDX-100001"), timeout=10)
        health = requests.get(stack.lms.url + paths.HEALTH, timeout=10)
        listed = requests.get(
            stack.lms.url + paths.ENROLLMENT, params={"user": "x"}, headers=API_KEY, timeout=10
        )
        enrolled = [first.join(), second.join()]

        for refused in (login, purchase, order_read):
            assert_overloaded(refused)
        assert (health.status_code, listed.status_code) == (200, 200)
        assert [e.status_code for e in enrolled] == [200, 200]
        assert grown(before, rows())["enrollments"] == 2
        assert grown(before, rows())["lms learners"] == 0  # the refused login made no learner

        stack.faults()
        assert requests.get(stack.lms.url + paths.AUTO_AUTH, timeout=10).status_code == 201


def answer_within(client: socket.socket, deadline: float) -> bool:
    """Whether the server began answering on ``client`` before ``deadline``."""
    client.settimeout(max(0.01, deadline - time.monotonic()))
    try:
        return client.recv(4096).startswith(b"HTTP/1.1 200")
    except TimeoutError:
        return False


def test_idle_client_connections_leave_room_for_the_enrollment_api(databases):
    """Load generators and browsers keep their connections to the LMS open between requests,
    and a gevent worker holds a greenlet for each, up to worker_connections; past that it
    accepts nothing. The enrollment call of an accepted order comes on a new connection from
    ecommerce: with the LMS's greenlets all held by idle clients it waited unaccepted until it
    timed out (at 1.5 x capacity, a quarter of the purchases took 14 s and ended 202). 150 idle
    clients on one LMS worker (the old default allowed 100) must leave the purchase complete."""
    with loop(lms_limit=4, ecommerce_limit=4, LMS_ENROLLMENT_TIMEOUT="3") as stack:
        browser, _ = stack.learner()
        before = rows()
        idle = []
        try:
            for _ in range(150):
                client = socket.create_connection(("127.0.0.1", stack.lms.port), timeout=10)
                client.sendall(f"GET {paths.HEALTH} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
                idle.append(client)
            # Each answered, then idle and kept alive. (The health checks count toward the
            # in-flight limit while they run: the purchase waits for them, not to be refused.)
            answered = sum(answer_within(client, time.monotonic() + 3) for client in idle)
            purchase = stack.buy(browser, 4)
        finally:
            for client in idle:
                client.close()
        assert answered == 150
        assert purchase.status_code == 201, purchase.text
        assert purchase.json()["order"]["status"] == ORDER.COMPLETE
        assert grown(before, rows())["enrollments"] == 1


class RowLock:
    """A connection holding an exclusive lock on a product's row: an order for it waits (its
    lines' foreign key takes a shared lock), keeping its ecommerce worker busy."""

    def __init__(self, sku: str):
        (product,) = mysql.query(
            ECOMMERCE_DB, "SELECT product_id FROM partner_stockrecord WHERE partner_sku = %s", [sku]
        )[0]
        self.conn = mysql.connect(ECOMMERCE_DB)
        self.conn.autocommit(False)
        with self.conn.cursor() as cursor:  # that row only (a join would lock every row it read)
            cursor.execute("SELECT id FROM catalogue_product WHERE id = %s FOR UPDATE", [product])

    def release(self):
        self.conn.commit()
        self.conn.close()


def order(url: str, username: str, sku: str, **extra) -> requests.Response:
    return requests.post(
        url + paths.BASKETS,
        json={"products": [{"sku": sku}], "checkout": True, **extra},
        headers={"Authorization": "JWT " + tokens.token(username)},
        timeout=60,
    )


def test_a_busy_ecommerce_refuses_new_work_and_completes_what_it_accepted(databases):
    """An ecommerce worker allowed one request in flight, held by an order waiting on a row
    lock: new purchases and order reads are refused, the LMS passes the refusal on, and the
    payment notification, the fulfilment retry and the health check are served."""
    with loop(lms_limit=0, ecommerce_limit=1) as stack:
        url = stack.ecommerce.url
        # Accepted before the worker is busy: a paid checkout, and an order left in Fulfillment
        # Error by an LMS outage.
        payer = new_name("payer")
        checkout = order(url, payer, paid_seat(4).sku, payment_processor_name="cybersource")
        assert checkout.status_code == 201, checkout.text
        stack.faults(outage_seconds=60)
        stuck = order(url, new_name("stuck"), seat(5).sku)
        stack.faults()
        assert stuck.json()["order"]["status"] == ORDER.FULFILLMENT_ERROR, stuck.text
        staff = staff_session(url, STAFF_PASSWORD)
        browser, lms_learner = stack.learner()
        newcomer = new_name("newcomer")

        lock = RowLock(seat(1).sku)
        held = Background(lambda: order(url, new_name("held"), seat(1).sku))
        try:
            assert wait_for(lambda: locks.waiters(ECOMMERCE_DB) >= 1, timeout=10)
            before = rows()

            purchase = order(url, newcomer, seat(2).sku)
            reads = requests.get(
                url + paths.ORDERS, headers={"Authorization": "JWT " + tokens.token(payer)}, timeout=10
            )
            started = time.monotonic()
            through_lms = stack.buy(browser, 3)
            lms_seconds = time.monotonic() - started
            health = requests.get(url + paths.HEALTH, timeout=10)
            fields = cybersource.notification(checkout.json()["payment_data"]["payment_form_data"], SECRET)
            notified = requests.post(url + paths.payment_notification("cybersource"), data=fields, timeout=30)
            retried = staff.put(
                url + paths.order_fulfilment(stuck.json()["order"]["number"]),
                headers={"X-CSRFToken": staff.cookies["csrftoken"]},
                timeout=30,
            )
            during = grown(before, rows())
        finally:
            lock.release()
        placed = held.join()

    assert_overloaded(purchase)
    assert_overloaded(reads)
    # The LMS passes ecommerce's refusal on, as quickly, with its Retry-After.
    assert through_lms.status_code == 503 and through_lms.headers["Retry-After"] == "1"
    assert through_lms.json()["error"] == "ecommerce_unavailable"
    assert through_lms.json()["ecommerce"]["error"] == "overloaded"
    assert lms_seconds < 2.0
    # What completes accepted work was served though the worker was at its limit.
    assert health.status_code == 200
    assert (notified.status_code, notified.text) == (200, "")
    assert (retried.status_code, retried.json()["status"]) == (200, ORDER.COMPLETE), retried.text
    assert placed.status_code == 201 and placed.json()["order"]["status"] == ORDER.COMPLETE
    # The refused purchases wrote nothing; the notification placed the paid order.
    assert during["orders"] == 1 and during["baskets"] == 0 and during["ecommerce users"] == 0
    assert mysql.count(ECOMMERCE_DB, "auth_user", "username IN (%s, %s)", [newcomer, lms_learner]) == 0
    assert mysql.count(ECOMMERCE_DB, "order_order", "number = %s", [fields["req_reference_number"]]) == 1


def test_a_queue_delay_lms_takes_every_purchase_while_its_work_only_waits_on_others(databases):
    """The flood the in-flight limit sheds (the first test: about ten purchases under way, each
    waiting a second on the enrollment API) leaves a queue-delay worker's loop on time: nothing
    waits for its CPU, so it refuses nothing. (Late by 50 ms for a whole second: what is under
    test is that requests waiting on another service are no queue, not how long a machine that
    runs other work may keep the process from a core now and then.)"""
    settings = {"LMS_ADMISSION": "queue-delay", "LMS_QUEUE_TARGET_MS": "50", "LMS_QUEUE_INTERVAL_MS": "1000"}
    with loop(lms_limit=2, ecommerce_limit=0, **settings) as stack:
        _, answers, before, after = purchases_with_a_slow_enrollment_api(stack)
    assert [getattr(answer, "status_code", answer) for answer, _ in answers] == [201] * 20, [
        answer.text for answer, _ in answers if getattr(answer, "status_code", 0) != 201
    ]
    assert grown(before, after)["enrollments"] == grown(before, after)["orders"] == 20


def test_a_queue_delay_ecommerce_refuses_new_work_only_while_its_cpu_is_oversubscribed(databases):
    """Two hundred orders in a second on one ecommerce worker, several times what it can place:
    its greenlets wait for the one CPU its process gets, its loop runs late for longer than the
    interval (50 ms here), and it refuses new work (JSON 503, nothing written) until the work it
    accepted has caught up; orders one after another are all taken. (A burst shorter than the
    interval is let through, as CoDel means it to be: the flood lasts twenty intervals. The
    worker's first seconds of work are not judged, so the flood comes after them.)

    The pool holds a connection for every request of the flood (DB_POOL_SIZE=150): with the
    default ten, the flood's queue was the wait for a pooled connection, which takes no CPU and
    leaves the loop on time (common.queueing, "What it does not see"), and once this VM ran
    faster the worker took all of the flood (CI at stop 37, and three runs out of three after
    it; at 500 a second still 2 runs in 22, with a median of 1.4 s). With the pool out of the way
    it refused 56-117 of the 200 in five runs out of five."""
    settings = {
        "ECOMMERCE_ADMISSION": "queue-delay",
        "ECOMMERCE_QUEUE_INTERVAL_MS": "50",
        "DB_POOL_SIZE": "150",
    }
    with loop(lms_limit=0, ecommerce_limit=1, **settings) as stack:
        url = stack.ecommerce.url
        one_by_one = [order(url, new_name("calm"), seat(1 + i % COURSES).sku) for i in range(10)]
        time.sleep(WARM_SECONDS)
        before = rows()
        names = [new_name("flood") for _ in range(200)]
        answers = one_after_another(
            [lambda n=n, i=i: order(url, n, seat(1 + i % COURSES).sku) for i, n in enumerate(names)],
            every=0.005,
        )
        after = rows()
    assert [answer.status_code for answer in one_by_one] == [201] * 10
    statuses = [getattr(answer, "status_code", answer) for answer, _ in answers]
    assert set(statuses) == {201, 503}, statuses
    for answer, _ in answers:
        if answer.status_code == 503:
            assert_overloaded(answer)
    accepted = [name for name, status in zip(names, statuses, strict=True) if status == 201]
    assert grown(before, after)["orders"] == len(accepted)
    refused = sorted(set(names) - set(accepted))
    assert mysql.count(ECOMMERCE_DB, "auth_user", "username IN %s", [tuple(refused)]) == 0
