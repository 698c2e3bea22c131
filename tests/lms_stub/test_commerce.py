"""POST /api/commerce/v0/baskets/: who may buy, which courses, and how every ecommerce
outcome is answered (never a bare 500)."""

import http.server
import json
import socket
import threading

import jwt
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from geventhttpclient.header import Headers

from common import http_client
from common.contract.courses import seat
from lms_stub.commerce.views import _answer, _read_answer
from lms_stub.enrollment.models import Enrollment
from tests.support.servers import free_port

pytestmark = pytest.mark.django_db

URL = "/api/commerce/v0/baskets/"


def buy(client, course_id, **extra):
    return client.post(URL, json.dumps({"course_id": course_id}), content_type="application/json", **extra)


@pytest.fixture
def learner(csrf_client):
    """A logged-in learner whose requests carry the CSRF token, as a browser's would."""
    name = csrf_client.get("/auto_auth").json()["username"]
    csrf_client.defaults["HTTP_X_CSRFTOKEN"] = csrf_client.cookies["csrftoken"].value
    return name


def test_anonymous_is_401(client):
    response = buy(client, seat(1).course_id)
    assert response.status_code == 401
    assert response.json()["error"] == "not_authenticated"


def test_missing_csrf_token_is_a_json_403(csrf_client):
    csrf_client.get("/auto_auth")
    response = buy(csrf_client, seat(1).course_id)
    assert response.status_code == 403
    assert response.json()["error"] == "csrf_failed"


def test_unknown_course_is_406(csrf_client, learner):
    response = buy(csrf_client, "course-v1:Nope+X+1")
    assert response.status_code == 406
    assert response.json()["error"] == "unknown_course"


def test_already_enrolled_is_409(csrf_client, learner):
    Enrollment.objects.create(user=learner, course_id=seat(1).course_id, mode="verified")
    response = buy(csrf_client, seat(1).course_id)
    assert response.status_code == 409
    assert response.json()["error"] == "already_enrolled"


@pytest.mark.parametrize("body", ["{}", '{"course_id": 5}', "[1]", "{"])
def test_invalid_body_is_400(csrf_client, learner, body):
    response = csrf_client.post(URL, body, content_type="application/json")
    assert response.status_code == 400


def test_unreachable_ecommerce_is_502(csrf_client, learner, settings):
    settings.ECOMMERCE_URL = f"http://127.0.0.1:{free_port()}"
    response = buy(csrf_client, seat(1).course_id)
    assert response.status_code == 502
    assert response.json()["error"] == "ecommerce_unreachable"


def test_silent_ecommerce_is_504_after_the_timeout(csrf_client, learner, settings):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    accepted = []
    threading.Thread(target=lambda: accepted.append(listener.accept()), daemon=True).start()
    settings.ECOMMERCE_URL = f"http://127.0.0.1:{listener.getsockname()[1]}"
    settings.ECOMMERCE_TIMEOUT = 0.3
    try:
        response = buy(csrf_client, seat(1).course_id)
    finally:
        listener.close()
        for conn, _ in accepted:
            conn.close()
    assert response.status_code == 504
    assert response.json()["error"] == "ecommerce_timeout"


def fake_response(status: int, body, headers=None) -> http_client.Reply:
    content = body.encode() if isinstance(body, str) else json.dumps(body).encode()
    return http_client.Reply(status, Headers(headers or {}), content)


ORDER = {"number": "100001", "status": "Complete", "lines": []}


@pytest.mark.parametrize(
    "status, body, headers, expected_status, expected_error",
    [
        (201, {"id": 1, "order": ORDER}, None, 201, None),
        (201, {"id": 1, "order": {**ORDER, "status": "Fulfillment Error"}}, None, 202, None),
        (409, {"error": "already_purchased"}, None, 409, "already_purchased"),
        (503, {"error": "pool_exhausted"}, {"Retry-After": "2"}, 503, "ecommerce_unavailable"),
        (429, {"error": "throttled"}, {"Retry-After": "2"}, 429, "too_many_purchases"),
        (400, {"error": "unknown_sku"}, None, 502, "ecommerce_error"),
        (401, {"error": "authentication_failed"}, None, 502, "ecommerce_error"),
        (500, "<html>oops</html>", None, 502, "ecommerce_error"),
        (201, {"id": 1, "order": None}, None, 502, "ecommerce_error"),
    ],
)
def test_every_ecommerce_answer_is_mapped(status, body, headers, expected_status, expected_error):
    answer = _answer(fake_response(status, body, headers), "course-v1:X+Y+Z")
    assert answer.status_code == expected_status
    parsed = json.loads(answer.content)
    assert parsed.get("error") == expected_error
    if expected_status in (429, 503):
        assert answer["Retry-After"] == "2"
    if expected_status in (201, 202):
        assert parsed["order"]["number"] == "100001"
        assert parsed["enrolled"] is (expected_status == 201)


def test_reading_an_order_needs_a_login(client):
    response = client.get("/api/commerce/v1/orders/100001/")
    assert response.status_code == 401


def test_reading_an_order_while_ecommerce_is_unreachable_is_502(csrf_client, learner, settings):
    settings.ECOMMERCE_URL = f"http://127.0.0.1:{free_port()}"
    response = csrf_client.get("/api/commerce/v1/orders/100001/")
    assert response.status_code == 502
    assert response.json()["error"] == "ecommerce_unreachable"


@pytest.mark.parametrize("number", ["%2E", "%2E%2E", "..", "%2570", "100%25"])
def test_a_number_no_url_can_carry_is_404_without_asking_ecommerce(csrf_client, learner, settings, number):
    """Sent on, "." would read the learner's order list behind the balancer, which removes dot
    segments, and "%" be refused 400 there (common.contract.paths.can_be_segment); ecommerce
    here is unreachable (502 if asked)."""
    settings.ECOMMERCE_URL = f"http://127.0.0.1:{free_port()}"
    response = csrf_client.get(f"/api/commerce/v1/orders/{number}/")
    assert response.status_code == 404
    assert response.json()["error"] == "not_found"


@pytest.mark.parametrize(
    "status, body, expected_status, expected_error",
    [
        (200, ORDER, 200, None),
        (404, {"error": "not_found"}, 404, "not_found"),
        (503, {"error": "database_unavailable"}, 503, "ecommerce_unavailable"),
        (500, "<html>oops</html>", 502, "ecommerce_error"),
        (200, "not json", 502, "ecommerce_error"),
    ],
)
def test_every_answer_to_an_order_read_is_mapped(status, body, expected_status, expected_error):
    answer = _read_answer(fake_response(status, body, {"Retry-After": "1"}))
    assert answer.status_code == expected_status
    assert json.loads(answer.content).get("error") == expected_error
    if expected_status == 503:
        assert answer["Retry-After"] == "1"


@pytest.mark.parametrize(
    "number, segment",
    [
        ("100001", "100001"),
        ("#", "%23"),
        ("?page_size=1", "%3Fpage_size%3D1"),
        ("a..b", "a..b"),
        ("a/b", "a%2Fb"),
    ],
)
def test_the_order_number_is_one_path_segment_of_ecommerces_url(monkeypatch, settings, number, segment):
    """Found by tests/schema: unescaped, "#" read the learner's order list as if it were an
    order (200) and "?page_size=1" a list query ecommerce refused (502)."""
    from django.contrib.auth.models import User

    from lms_stub.commerce import ecommerce_client

    requested = []

    def get(url, **kwargs):
        requested.append(url)
        return http_client.Reply(404, Headers(), b"{}")

    monkeypatch.setattr(ecommerce_client.http_client, "get", get)
    ecommerce_client.read_order(User(username="ada", email="ada@example.com"), number)
    assert requested == [f"{settings.ECOMMERCE_URL}/api/v2/orders/{segment}/"]


def test_the_lms_sells_the_courses_free_seat(csrf_client, learner, settings):
    """edX's LMS put a course's honor seat in the basket; the paid seat is bought from
    ecommerce directly. A stand-in ecommerce (a real HTTP server) records what it is sent."""
    import http.server

    received, tokens = [], []

    class Ecommerce(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            received.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            tokens.append(self.headers["Authorization"].removeprefix("JWT "))
            body = json.dumps({"id": 1, "order": {"number": "OSCR-100001", "status": "Complete"}}).encode()
            self.send_response(201)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Ecommerce)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    settings.ECOMMERCE_URL = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        with CaptureQueriesContext(connection) as captured:
            response = buy(csrf_client, seat(2).course_id)
    finally:
        server.shutdown()
        server.server_close()
    assert response.status_code == 201
    assert received == [{"products": [{"sku": seat(2).sku}], "checkout": True}]
    # The learner ecommerce is told of is the session's, as /auto_auth made it.
    claims = jwt.decode(tokens[0], settings.JWT_SECRET_KEY, algorithms=["HS256"], issuer=settings.JWT_ISSUER)
    assert (claims["username"], claims["email"]) == (learner, f"{learner}@example.com")
    # The stand-in's own cost per purchase: the enrollment check alone (the learner comes from
    # the signed session, not from a query).
    assert [q["sql"].split()[0] for q in captured.captured_queries] == ["SELECT"]
    assert "enrollment_enrollment" in captured.captured_queries[0]["sql"]
    assert seat(2).mode == "honor" and not seat(2).is_paid


@pytest.fixture
def scripted_ecommerce(settings):
    """A real HTTP server in ecommerce's place that keeps connections alive and answers each
    request with the next of the answers given (status, body); it notes the client's address of
    every request, so a request on a new connection shows as a new port."""
    answers, seen = [], []

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            seen.append(self.client_address)
            status, body = answers.pop(0)
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if status == 503:
                self.send_header("Retry-After", "1")
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    settings.ECOMMERCE_URL = f"http://127.0.0.1:{server.server_address[1]}"
    http_client.close_all()
    yield answers, seen
    http_client.close_all()
    server.shutdown()
    server.server_close()


OVERLOADED = (503, {"error": "overloaded", "message": "The service is at capacity."})


def test_a_workers_refusal_is_tried_once_more_on_a_new_connection(csrf_client, learner, scripted_ecommerce):
    answers, seen = scripted_ecommerce
    answers.extend([OVERLOADED, (201, {"id": 1, "order": ORDER})])
    response = buy(csrf_client, seat(1).course_id)
    assert response.status_code == 201 and response.json()["order"]["number"] == "100001"
    assert len(seen) == 2 and seen[0][1] != seen[1][1]  # the second on a connection of its own


def test_a_second_refusal_is_the_services_and_reaches_the_learner(csrf_client, learner, scripted_ecommerce):
    answers, seen = scripted_ecommerce
    answers.extend([OVERLOADED, OVERLOADED, (201, {"id": 1, "order": ORDER})])
    response = buy(csrf_client, seat(1).course_id)
    assert response.status_code == 503 and response["Retry-After"] == "1"
    assert response.json()["error"] == "ecommerce_unavailable"
    assert response.json()["ecommerce"]["error"] == "overloaded"
    assert len(seen) == 2


def test_any_other_503_is_not_tried_again(csrf_client, learner, scripted_ecommerce):
    """An exhausted pool or a database away is the service's state, not one worker's queue."""
    answers, seen = scripted_ecommerce
    answers.extend([(503, {"error": "pool_exhausted"}), (201, {"id": 1, "order": ORDER})])
    response = buy(csrf_client, seat(1).course_id)
    assert response.status_code == 503 and response.json()["ecommerce"]["error"] == "pool_exhausted"
    assert len(seen) == 1
