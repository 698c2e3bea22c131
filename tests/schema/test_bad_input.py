"""Bad input by hand, to every write endpoint of both services: oversized bodies, malformed
JSON, wrong content types, awkward unicode and very long strings in every field. Each must be
refused (or, where the value is legitimately any string, accepted) with no server error, the
one error shape, and nothing written when refused."""

import json
import uuid
from dataclasses import dataclass, field

import pytest
import requests

from common.contract import cybersource, paths
from common.contract.courses import seat
from tests.schema.conftest import API_KEY, CASES, ECOMMERCE_DB, FAULT_API_KEY, learner_token, staff_token
from tests.schema.invariants import assert_nothing_written, assert_rejected_cleanly, error_shape_problem
from tests.support import mysql

pytestmark = pytest.mark.slow

ECOMMERCE_LIMIT = 64 * 1024  # DATA_UPLOAD_MAX_MEMORY_SIZE of each service (settings)
PROCESSOR_SECRET = "local-only-cybersource-secret-key"  # the stack's, from common/environment
LMS_LIMIT = 16 * 1024


@dataclass
class Endpoint:
    """A write endpoint: how to call it with a valid body, and that body's fields."""

    name: str
    service: str  # "ecommerce" or "lms"
    method: str
    path: str
    body: dict | None  # a valid body (None: the endpoint reads no body)
    credentials: str  # "learner", "staff", "session", "api_key", "fault_key"
    limit: int
    # Fields (dotted paths into the body) where any string is valid input, so a 2xx is right.
    free_text: tuple[str, ...] = field(default_factory=tuple)


def _basket() -> dict:
    return {
        "products": [{"sku": seat(3).sku, "quantity": 1}],
        "checkout": True,
        "payment_processor_name": "cybersource",
    }


ENDPOINTS = [
    Endpoint(
        "ecommerce basket", "ecommerce", "POST", "/api/v2/baskets/", _basket(), "learner", ECOMMERCE_LIMIT
    ),
    Endpoint(
        "ecommerce fulfill",
        "ecommerce",
        "PUT",
        "/api/v2/orders/999999999/fulfill/",
        None,
        "staff",
        ECOMMERCE_LIMIT,
    ),
    Endpoint(
        "lms purchase",
        "lms",
        "POST",
        "/api/commerce/v0/baskets/",
        {"course_id": seat(4).course_id},
        "session",
        LMS_LIMIT,
    ),
    Endpoint(
        "lms enrollment",
        "lms",
        "POST",
        "/api/enrollment/v1/enrollment",
        {
            "user": "enrolled_by_hand",
            "mode": "verified",
            "is_active": True,
            "course_details": {"course_id": seat(5).course_id},
        },
        "api_key",
        LMS_LIMIT,
        free_text=("user",),
    ),
    Endpoint(
        "lms faults", "lms", "PUT", "/api/faults/", {"latency_ms": 0, "error_rate": 0}, "fault_key", LMS_LIMIT
    ),
]
WITH_BODY = [e for e in ENDPOINTS if e.body is not None]


class Caller:
    """Sends raw requests to the stack with each endpoint's credentials."""

    def __init__(self, stack):
        self.stack = stack
        self._session: dict | None = None

    def url(self, endpoint: Endpoint, path: str | None = None) -> str:
        base = self.stack.ecommerce.url if endpoint.service == "ecommerce" else self.stack.lms.url
        return base + (path or endpoint.path)

    def credentials(self, endpoint: Endpoint, learner: str | None = None) -> tuple[dict, dict]:
        """(headers, cookies) for ``endpoint``."""
        if endpoint.credentials == "learner":
            return {"Authorization": "JWT " + learner_token(learner or new_learner())}, {}
        if endpoint.credentials == "staff":
            return {"Authorization": "JWT " + staff_token()}, {}
        if endpoint.credentials == "api_key":
            return {"X-Edx-Api-Key": API_KEY}, {}
        if endpoint.credentials == "fault_key":
            return {"X-Fault-Api-Key": FAULT_API_KEY}, {}
        if self._session is None:
            browser = requests.Session()
            login = browser.get(self.stack.lms.url + "/auto_auth", timeout=10)
            login.raise_for_status()
            self._session = {"cookies": browser.cookies.get_dict(), "csrf": login.json()["csrf_token"]}
        return {"X-CSRFToken": self._session["csrf"]}, self._session["cookies"]

    def send(
        self,
        endpoint: Endpoint,
        data=None,
        content_type: str | None = "application/json",
        headers: dict | None = None,
        path: str | None = None,
        learner: str | None = None,
    ) -> requests.Response:
        auth_headers, cookies = self.credentials(endpoint, learner)
        all_headers = {**auth_headers, **(headers or {})}
        if content_type is not None:
            all_headers["Content-Type"] = content_type
        CASES[(endpoint.service.replace("lms", "lms_stub"), "explicit bad input")] += 1
        return requests.request(
            endpoint.method,
            self.url(endpoint, path),
            data=data,
            headers=all_headers,
            cookies=cookies,
            timeout=60,
        )


def new_learner() -> str:
    return "bad_input_" + uuid.uuid4().hex[:10]


def quote(value: str) -> str:
    """``value`` percent-encoded for a URL, lone surrogates as the bytes UTF-8 would give them."""
    return requests.utils.quote(value.encode("utf-8", "surrogatepass"), safe="")


@pytest.fixture(scope="module")
def caller(stack):
    handle = Caller(stack)
    handle.credentials(ENDPOINTS[2])  # log the learner in now: auto_auth writes a user
    return handle


def refused(caller, databases, endpoint, **send):
    before = databases.fingerprint()
    response = caller.send(endpoint, **send)
    assert_rejected_cleanly(response, databases, before)
    return response


def encode(body) -> bytes:
    return json.dumps(body).encode()


def with_value(body: dict, path: str, value) -> dict:
    """A deep copy of ``body`` with the field at dotted ``path`` set to ``value``."""
    copy = json.loads(json.dumps(body))
    *parents, last = path.split(".")
    node = copy
    for name in parents:
        node = node[int(name)] if isinstance(node, list) else node[name]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return copy


def fields_of(body, prefix="") -> list[str]:
    """Every leaf field of ``body`` as a dotted path."""
    paths = []
    items = body.items() if isinstance(body, dict) else enumerate(body)
    for name, value in items:
        path = f"{prefix}{name}"
        if isinstance(value, dict | list):
            paths.extend(fields_of(value, path + "."))
        else:
            paths.append(path)
    return paths


# --- Oversized bodies -------------------------------------------------------------------------


@pytest.mark.parametrize("endpoint", WITH_BODY, ids=lambda e: e.name)
@pytest.mark.parametrize("size", ["limit+1", "1MiB"])
def test_an_oversized_body_is_413(caller, databases, endpoint, size):
    target = endpoint.limit + 1 if size == "limit+1" else 1024 * 1024
    body = encode({**endpoint.body, "padding": ""})  # ends with ""}
    body = body[:-2] + b"x" * (target - len(body)) + b'"}'
    assert len(body) >= target
    response = refused(caller, databases, endpoint, data=body)
    assert (response.status_code, response.json()["error"]) == (413, "body_too_large")


@pytest.mark.parametrize("endpoint", WITH_BODY, ids=lambda e: e.name)
def test_an_oversized_chunked_body_is_refused(caller, databases, endpoint):
    """No Content-Length, so the limit cannot be checked up front."""
    body = encode({**endpoint.body, "padding": "x" * (endpoint.limit * 2)})
    refused(caller, databases, endpoint, data=iter([body[i : i + 8192] for i in range(0, len(body), 8192)]))


def test_an_oversized_body_to_fulfill_is_refused_for_the_order_it_names(caller, databases):
    (endpoint,) = [e for e in ENDPOINTS if e.body is None]
    response = refused(caller, databases, endpoint, data=b"x" * (1024 * 1024))
    assert response.status_code == 404


# --- Malformed JSON ---------------------------------------------------------------------------

MALFORMED = {
    "truncated": b'{"a": [1, 2',
    "single quotes": b"{'a': 1}",
    "trailing comma": b'{"a": 1,}',
    "NaN": b'{"a": NaN}',
    "Infinity": b'{"a": -Infinity}',
    "invalid UTF-8": b'{"a": "\xff\xfe"}',
    "UTF-16 with BOM": '{"a": 1}'.encode("utf-16"),
    "UTF-8 BOM": b'\xef\xbb\xbf{"a": 1}',
    "empty": b"",
    "whitespace": b" \n\t ",
    "null": b"null",
    "array": b"[]",
    "string": b'"products"',
    "number": b"1e999",
    "deep nesting": b"[" * 5000 + b"]" * 5000,
    "deep object nesting": b'{"a":' * 2000 + b"1" + b"}" * 2000,
    "lone surrogate": b'{"a": "\\ud800"}',
    "NUL byte": b'{"a": 1}\x00',
    "two documents": b'{"a": 1}{"a": 2}',
}


@pytest.mark.parametrize("endpoint", WITH_BODY, ids=lambda e: e.name)
@pytest.mark.parametrize("body", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_json_is_400(caller, databases, endpoint, body):
    response = refused(caller, databases, endpoint, data=body)
    assert response.status_code == 400


def test_a_lone_surrogate_in_a_valid_basket_is_refused(caller, databases):
    (endpoint,) = [e for e in ENDPOINTS if e.name == "ecommerce basket"]
    body = json.dumps(_basket()).replace(seat(3).sku, "\\ud800" + seat(3).sku).encode()
    response = refused(caller, databases, endpoint, data=body)
    assert response.status_code == 400


# --- Wrong content types ----------------------------------------------------------------------

CONTENT_TYPES = {
    "text/plain": "text/plain",
    "form": "application/x-www-form-urlencoded",
    "multipart": "multipart/form-data; boundary=xyz",
    "xml": "application/xml",
    "json-patch": "application/json-patch+json",
    "text/json": "text/json",
    "none": None,
}


@pytest.mark.parametrize("endpoint", WITH_BODY, ids=lambda e: e.name)
@pytest.mark.parametrize("content_type", CONTENT_TYPES.values(), ids=CONTENT_TYPES.keys())
def test_a_valid_body_with_a_wrong_content_type_is_refused(caller, databases, endpoint, content_type):
    response = refused(caller, databases, endpoint, data=encode(endpoint.body), content_type=content_type)
    if content_type is not None:
        assert response.status_code == 415


@pytest.mark.parametrize("endpoint", WITH_BODY, ids=lambda e: e.name)
def test_a_form_body_is_refused(caller, databases, endpoint):
    form = "&".join(f"{name}=x" for name in fields_of(endpoint.body))
    refused(caller, databases, endpoint, data=form, content_type="application/x-www-form-urlencoded")


# --- Unicode and very long strings in every field ---------------------------------------------

AWKWARD = {
    "emoji": "🎓💥👩🏽‍💻",
    "NUL": "a\x00b",
    "RTL override": "\u202eredro\u202c",
    "Hebrew": "שלום",
    "combining": "e\u0301\u0302\u0303\u0304",
    "zero width": "\u200b",
    "BOM": "\ufeff",
    "astral": "𝕏𝔸",
    "lone surrogate": "\ud800",
    "10k": "x" * 10_000,
    "10k emoji": "🎓" * 10_000,
    "100k": "y" * 100_000,
}
FIELD_CASES = [
    pytest.param(endpoint, path, value, id=f"{endpoint.name}-{path}-{label}")
    for endpoint in WITH_BODY
    for path in [*fields_of(endpoint.body), "unknown"]
    for label, value in AWKWARD.items()
]


@pytest.mark.parametrize("endpoint, path, value", FIELD_CASES)
def test_an_awkward_string_in_a_field(caller, databases, endpoint, path, value):
    body = with_value(endpoint.body, path, value) if path != "unknown" else {**endpoint.body, value[:50]: 1}
    if path not in endpoint.free_text:
        if path == "unknown" and endpoint.name in ("lms purchase", "lms enrollment"):
            return accepted_or_refused(caller, databases, endpoint, body)  # they ignore unknown fields
        refused(caller, databases, endpoint, data=encode(body))
        return
    accepted_or_refused(caller, databases, endpoint, body, echo=(path, value))


def accepted_or_refused(caller, databases, endpoint, body, echo=None):
    """Any string is valid here: a 2xx must store it exactly, a refusal must be clean."""
    before = databases.fingerprint()
    response = caller.send(endpoint, data=encode(body))
    if response.status_code >= 300:
        assert_rejected_cleanly(response, databases, before)
        return
    if echo:
        path, value = echo
        assert response.json()[path] == value


def test_a_long_idempotency_key_is_refused(caller, databases):
    (endpoint,) = [e for e in ENDPOINTS if e.name == "ecommerce basket"]
    for key in ["k" * 256, "k" * 8000]:
        response = refused(
            caller, databases, endpoint, data=encode(_basket()), headers={"Idempotency-Key": key}
        )
        assert response.json()["error"] == "invalid_idempotency_key"


@pytest.mark.parametrize("label", ["emoji", "Hebrew", "combining", "zero width", "astral", "BOM"])
def test_an_awkward_idempotency_key_is_refused(caller, databases, label):
    (endpoint,) = [e for e in ENDPOINTS if e.name == "ecommerce basket"]
    key = ("key-" + AWKWARD[label]).encode()  # sent as UTF-8 bytes, read as Latin-1
    response = refused(caller, databases, endpoint, data=encode(_basket()), headers={"Idempotency-Key": key})
    assert response.json()["error"] == "invalid_idempotency_key"


@pytest.mark.parametrize("claim", ["username", "email"])
@pytest.mark.parametrize("label", list(AWKWARD))
def test_an_awkward_token_claim(caller, databases, claim, label):
    """A signed token whose username or email is awkward: refused (401), or a learner whose
    name is stored exactly."""
    (endpoint,) = [e for e in ENDPOINTS if e.name == "ecommerce basket"]
    value = AWKWARD[label]
    name = value if claim == "username" else new_learner()
    claims = {"email": value} if claim == "email" else {}
    token = learner_token(name, **claims)
    before = databases.fingerprint()
    response = caller.send(endpoint, data=encode(_basket()), headers={"Authorization": "JWT " + token})
    if response.status_code >= 300:
        assert_rejected_cleanly(response, databases, before)
        if len(token) < 8000:  # longer ones are refused by the HTTP server as too large (431)
            assert response.status_code == 401
        return
    # Accepted: the learner is stored under exactly that name (and email), compared in Python,
    # not by the column's case- and accent-insensitive collation.
    stored = mysql.query(ECOMMERCE_DB, "SELECT username, email FROM auth_user WHERE username = %s", [name])
    assert [row[0] for row in stored].count(name) == 1, stored
    if claim == "email":
        assert [row[1] for row in stored if row[0] == name] == [value]


@pytest.mark.parametrize("label", list(AWKWARD))
def test_an_awkward_order_number_to_fulfill(caller, databases, label):
    (endpoint,) = [e for e in ENDPOINTS if e.body is None]
    number = quote(AWKWARD[label])
    response = refused(caller, databases, endpoint, path=f"/api/v2/orders/{number}/fulfill/")
    assert response.status_code in (404, 414)


@pytest.mark.parametrize("label", list(AWKWARD))
def test_an_awkward_string_in_every_read_parameter(stack, databases, label):
    """The read endpoints' path and query parameters: refused cleanly or answered."""
    value = quote(AWKWARD[label])
    learner = {"Authorization": "JWT " + learner_token(new_learner())}
    api_key = {"X-Edx-Api-Key": API_KEY}
    calls = [
        (stack.ecommerce.url + f"/api/v2/orders/{value}/", learner),
        (stack.ecommerce.url + f"/api/v2/orders/?cursor={value}", learner),
        (stack.ecommerce.url + f"/api/v2/orders/?page_size={value}", learner),
        (stack.lms.url + f"/api/enrollment/v1/enrollment?user={value}", api_key),
    ]
    for url, headers in calls:
        before = databases.fingerprint()
        CASES[("ecommerce" if url.startswith(stack.ecommerce.url) else "lms_stub", "explicit bad input")] += 1
        response = requests.get(url, headers=headers, timeout=30)
        assert response.status_code < 500, f"{url[:100]}: {response.status_code} {response.text[:300]}"
        problem = error_shape_problem(
            response.status_code, response.headers.get("Content-Type", ""), response.content
        )
        assert problem is None, problem
        changed = databases.changed_tables(before, databases.fingerprint())
        assert not changed, f"a read wrote to {changed}"


@pytest.mark.parametrize("number", ["#", "?page_size=1", "..", ".", "%2F", "100001#x"])
def test_the_lms_reads_back_only_the_order_it_is_asked_for(caller, databases, number):
    """The order number is a path segment of ecommerce's URL, whatever characters it holds."""
    (endpoint,) = [e for e in ENDPOINTS if e.name == "lms purchase"]
    headers, cookies = caller.credentials(endpoint)
    before = databases.fingerprint()
    CASES[("lms_stub", "explicit bad input")] += 1
    response = requests.get(
        caller.stack.lms.url + f"/api/commerce/v1/orders/{quote(number)}/",
        headers=headers,
        cookies=cookies,
        timeout=30,
    )
    assert response.status_code == 404, response.text[:300]
    assert_rejected_cleanly(response, databases, before)


@pytest.mark.parametrize("service", ["ecommerce", "lms_stub"])
def test_what_the_http_server_refuses_is_in_the_json_shape(stack, databases, service):
    """gunicorn refuses a request line over 4094 bytes (414) and a header over 8190 (431)
    before the application; settings/gunicorn_common.py makes those answers JSON too."""
    url = stack.ecommerce.url if service == "ecommerce" else stack.lms.url
    for path, headers, status in [
        ("/health/?x=" + "a" * 10_000, {}, 414),
        ("/health/", {"X-Long": "b" * 10_000}, 431),
    ]:
        before = databases.fingerprint()
        CASES[(service, "explicit bad input")] += 1
        response = requests.get(url + path, headers=headers, timeout=30)
        assert response.status_code == status
        assert_rejected_cleanly(response, databases, before)


# --- Payment: the processor's notification and the stand-in's pages -------------------------
#
# Form-encoded, not JSON, and answered without credentials. Every notification is recorded, so a
# refused one adds exactly one row to the notification table and changes nothing else.

NOTIFICATION_TABLE = f"{ECOMMERCE_DB}.processors_paymentnotification"


def _notification() -> dict[str, str]:
    """A notification signed with the stack's key for a basket that does not exist."""
    form = {"reference_number": "OSCR-999999999", "amount": "49.00", "currency": "USD"}
    return cybersource.notification(form, PROCESSOR_SECRET)


def _form(fields: dict[str, str]) -> bytes:
    return "&".join(f"{quote(name)}={quote(value)}" for name, value in fields.items()).encode()


def _notifications() -> int:
    return mysql.query(ECOMMERCE_DB, "SELECT COUNT(*) FROM processors_paymentnotification")[0][0]


def send_notification(stack, databases, body, content_type="application/x-www-form-urlencoded", headers=None):
    """POST ``body`` to the notify URL: refused cleanly, recorded once, nothing else written."""
    before, recorded = databases.fingerprint(), _notifications()
    CASES[("ecommerce", "explicit bad input")] += 1
    response = requests.post(
        stack.ecommerce.url + paths.payment_notification("cybersource"),
        data=body,
        headers={**({"Content-Type": content_type} if content_type else {}), **(headers or {})},
        timeout=60,
    )
    assert 400 <= response.status_code < 500, f"{response.status_code}: {response.text[:300]}"
    problem = error_shape_problem(
        response.status_code, response.headers.get("Content-Type", ""), response.content
    )
    assert problem is None, problem
    assert_nothing_written(databases, before, response.text[:200], allowed={NOTIFICATION_TABLE})
    assert _notifications() == recorded + 1
    return response


def test_the_stacks_notification_is_refused_only_for_its_unknown_basket(stack, databases):
    """The notifications below are refused for what they hold, not for their key."""
    response = send_notification(stack, databases, _form(_notification()))
    assert response.json()["error"] == "unknown_reference"


NOTIFICATION_CASES = [
    pytest.param(name, value, id=f"{name}-{label}")
    for name in [*cybersource.NOTIFICATION_FIELDS, "signed_field_names", "signature", "unknown"]
    for label, value in AWKWARD.items()
]


@pytest.mark.parametrize("name, value", NOTIFICATION_CASES)
def test_an_awkward_string_in_a_notification_field(stack, databases, name, value):
    fields = {**_notification(), (value[:50] if name == "unknown" else name): value}
    response = send_notification(stack, databases, _form(fields))
    if name == "unknown" and len(_form(fields)) <= ECOMMERCE_LIMIT:
        # A field the signature does not cover changes nothing: refused for its basket.
        assert response.json()["error"] == "unknown_reference"
    elif len(_form(fields)) > ECOMMERCE_LIMIT:
        assert response.status_code == 413
    else:
        assert response.json()["error"] in ("invalid_signature", "invalid_notification")


@pytest.mark.parametrize("content_type", [c for c in CONTENT_TYPES.values() if c and "form" not in c])
def test_a_notification_that_is_not_a_form_is_415(stack, databases, content_type):
    response = send_notification(stack, databases, encode(_notification()), content_type)
    assert response.status_code == 415


def test_an_oversized_notification_is_413(stack, databases):
    fields = {**_notification(), "padding": "x" * ECOMMERCE_LIMIT}
    assert send_notification(stack, databases, _form(fields)).status_code == 413


def test_a_notification_field_given_twice_is_refused(stack, databases):
    body = _form(_notification()) + b"&decision=DECLINE"
    assert send_notification(stack, databases, body).json()["error"] == "invalid_notification"


def test_a_learners_token_on_a_notification_changes_nothing(stack, databases):
    headers = {"Authorization": "JWT " + learner_token(new_learner())}
    response = send_notification(stack, databases, _form(_notification()), headers=headers)
    assert response.json()["error"] == "unknown_reference"


@pytest.mark.parametrize("path", [paths.PROCESSOR_PAY, paths.PROCESSOR_CONFIRM])
@pytest.mark.parametrize("label", list(AWKWARD))
def test_an_awkward_string_in_the_stand_ins_forms(stack, databases, path, label):
    """The processor stand-in refuses a checkout form it did not sign, whatever it holds, and
    writes nothing (nor does ecommerce: nothing is notified)."""
    form = {name: AWKWARD[label] for name in (*cybersource.CHECKOUT_FIELDS, "signature", "pay_action")}
    before = databases.fingerprint()
    CASES[("lms_stub", "explicit bad input")] += 1
    response = requests.post(
        stack.lms.url + path,
        data=_form(form),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
        timeout=60,
    )
    assert_rejected_cleanly(response, databases, before)
