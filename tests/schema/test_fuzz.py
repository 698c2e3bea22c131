"""schemathesis against both running services, from their own OpenAPI documents: with valid
credentials and without. Every case must get no server error, an answer the schema allows
(status, content type, headers, body), the one error shape for every 4xx, and, when refused,
leave both databases untouched. FUZZ_EXAMPLES sets the examples per operation."""

import json

import pytest
import requests
import schemathesis

from tests.schema.conftest import (
    API_KEY,
    CASES,
    ECOMMERCE_DB,
    FAULT_API_KEY,
    learner_token,
    reset_faults,
    staff_token,
)
from tests.schema.invariants import assert_nothing_written, error_shape_problem

pytestmark = pytest.mark.slow

LEARNER = "fuzz_learner"

ecommerce_as_learner = schemathesis.pytest.from_fixture("ecommerce_schema")
ecommerce_as_staff = schemathesis.pytest.from_fixture("ecommerce_schema").include(
    path_regex="^/api/v2/orders/"
)
ecommerce_without_credentials = schemathesis.pytest.from_fixture("ecommerce_schema")
lms_with_credentials = schemathesis.pytest.from_fixture("lms_schema")
lms_without_credentials = schemathesis.pytest.from_fixture("lms_schema")


@ecommerce_as_learner.auth(refresh_interval=None, retry_on=[])
class LearnerToken:
    """A fresh token for one learner on every case (a run lasts longer than a token)."""

    def get(self, case, context):
        return learner_token(LEARNER)

    def set(self, case, data, context):
        case.headers = {**(case.headers or {}), "Authorization": "JWT " + data}


@ecommerce_as_staff.auth(refresh_interval=None, retry_on=[])
class StaffToken:
    def get(self, case, context):
        return staff_token()

    def set(self, case, data, context):
        case.headers = {**(case.headers or {}), "Authorization": "JWT " + data}


@lms_with_credentials.auth(refresh_interval=3600, retry_on=[])
class LmsCallers:
    """A learner's session and CSRF token (commerce) and the API key (enrollment, faults):
    each endpoint reads its own and ignores the others."""

    def get(self, case, context):
        browser = requests.Session()
        login = browser.get(case.operation.schema.get_base_url().rstrip("/") + "/auto_auth", timeout=10)
        login.raise_for_status()
        return {"cookies": browser.cookies.get_dict(), "csrf": login.json()["csrf_token"]}

    def set(self, case, data, context):
        case.cookies = {**(case.cookies or {}), **data["cookies"]}
        case.headers = {
            **(case.headers or {}),
            "X-CSRFToken": data["csrf"],
            "X-Edx-Api-Key": API_KEY,
            "X-Fault-Api-Key": FAULT_API_KEY,
        }


# What a schema cannot say: which SKUs, courses and payment processors exist, which
# Idempotency-Keys were already used, and which signatures are right. A schema-valid request may
# be refused for naming a SKU, course or processor that does not exist, for repeating a SKU with
# other item fields, for reusing a key, or for a signature no fuzzer can make.
UNPREDICTABLE_REFUSALS = {
    ("POST", "/api/v2/baskets/"): {
        400: lambda body: (
            body["error"] in ("unknown_sku", "unknown_payment_processor")
            or all("already in the basket" in m for ms in body.get("fields", {}).values() for m in ms)
        ),
        422: lambda body: body["error"] == "idempotency_key_reused",
    },
    ("POST", "/payment/{processor}/notify/"): {400: lambda body: body["error"] == "invalid_signature"},
    ("POST", "/processor/cybersource/pay/"): {400: lambda body: body["error"] == "invalid_signature"},
    ("POST", "/processor/cybersource/pay/confirm/"): {400: lambda body: body["error"] == "invalid_signature"},
    ("POST", "/api/commerce/v0/baskets/"): {406: lambda body: body["error"] == "unknown_course"},
    ("POST", "/api/enrollment/v1/enrollment"): {400: lambda body: body["error"] == "unknown_course"},
}


def accepted_unless_the_schema_cannot_tell(ctx, response, case):
    """schemathesis's positive_data_acceptance, less the UNPREDICTABLE_REFUSALS."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return None
    status = response.status_code
    if status < 400 or status in (401, 403, 404, 409, 429):
        return None
    allowed = UNPREDICTABLE_REFUSALS.get((case.method.upper(), case.operation.path), {}).get(status)
    try:
        body = response.json()
    except ValueError:
        body = None
    if allowed and isinstance(body, dict) and allowed(body):
        return None
    raise AssertionError(f"Schema-valid data was refused: {status} {response.text[:300]}")


def errors_in_one_shape(ctx, response, case):
    content_type = (response.headers.get("content-type") or [""])[0]
    problem = error_shape_problem(response.status_code, content_type, response.content)
    if problem:
        raise AssertionError(problem)


# What a refused request may write: every payment notification is recorded, refused ones too.
RECORDED_WHEN_REFUSED = {
    ("POST", "/payment/{processor}/notify/"): {f"{ECOMMERCE_DB}.processors_paymentnotification"},
}


def exercise(case, databases, service: str, run: str) -> None:
    CASES[(service, run)] += 1
    before = databases.fingerprint()
    response = case.call()
    if 400 <= response.status_code < 500:
        assert_nothing_written(
            databases,
            before,
            f"{case.method} {case.formatted_path} -> {response.status_code}",
            allowed=RECORDED_WHEN_REFUSED.get((case.method.upper(), case.operation.path), set()),
        )
    case.validate_response(
        response, additional_checks=[accepted_unless_the_schema_cannot_tell, errors_in_one_shape]
    )


@ecommerce_as_learner.parametrize()
def test_ecommerce_as_a_learner(case, databases):
    exercise(case, databases, "ecommerce", "learner token")


@ecommerce_as_staff.parametrize()
def test_ecommerce_orders_as_staff(case, databases):
    exercise(case, databases, "ecommerce", "staff token")


@ecommerce_without_credentials.parametrize()
def test_ecommerce_without_credentials(case, databases):
    exercise(case, databases, "ecommerce", "no or generated credentials")


@lms_with_credentials.parametrize()
def test_lms_stub_with_credentials(case, databases, stack):
    try:
        exercise(case, databases, "lms_stub", "session and API key")
    finally:
        if case.operation.path == "/api/faults/":
            reset_faults(stack)  # a fuzzed latency or outage must not reach the next case


@lms_without_credentials.parametrize()
def test_lms_stub_without_credentials(case, databases, stack):
    try:
        exercise(case, databases, "lms_stub", "no or generated credentials")
    finally:
        if case.operation.path == "/api/faults/":
            reset_faults(stack)


def test_the_schemas_are_served_as_json(stack):
    for url in (stack.ecommerce.url + "/api/v2/schema/", stack.lms.url + "/api/schema/"):
        response = requests.get(url, timeout=30)
        assert response.status_code == 200
        assert response.headers["Content-Type"].startswith(
            ("application/json", "application/vnd.oai.openapi+json")
        )
        document = json.loads(response.content)
        assert document["openapi"].startswith("3.")
        assert document["components"]["schemas"]["Error"]["required"] == ["error", "message"]
