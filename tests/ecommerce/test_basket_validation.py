"""Bad input to POST /api/v2/baskets/: a clear JSON error with the right status, nothing written."""

import json

import pytest

from tests.ecommerce.helpers import row_counts
from tests.support import tokens

pytestmark = pytest.mark.django_db

URL = "/api/v2/baskets/"


@pytest.fixture
def before(seats):
    return row_counts()


def post_raw(api, body: bytes | str, content_type="application/json", **extra):
    return api.client.post(URL, body, content_type=content_type, **tokens.auth_header("learner"), **extra)


def assert_error(response, status, code, field=None):
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["error"] == code
    assert isinstance(body["message"], str) and body["message"]
    if field is not None:
        assert field in body["fields"], body
    return body


def test_malformed_json_is_400(api, before):
    assert_error(post_raw(api, '{"products": [{"sku": '), 400, "malformed_json")
    assert row_counts() == before


def test_nan_is_not_json(api, before, seats):
    assert_error(
        post_raw(api, '{"products": [{"sku": "SKU"}], "checkout": NaN}'.replace("SKU", seats[0].sku)),
        400,
        "malformed_json",
    )
    assert row_counts() == before


@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", "application/xml"]
)
def test_wrong_content_type_is_415(api, before, seats, content_type):
    body = json.dumps({"products": [{"sku": seats[0].sku}], "checkout": True})
    assert_error(post_raw(api, body, content_type=content_type), 415, "unsupported_media_type")
    assert row_counts() == before


def test_body_larger_than_the_limit_is_413(api, before, settings, seats):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024
    body = json.dumps({"products": [{"sku": seats[0].sku}], "checkout": True, "pad": "x" * 2000})
    assert_error(post_raw(api, body), 413, "body_too_large")
    assert row_counts() == before


@pytest.mark.parametrize(
    "body, field",
    [
        ([], "request"),
        ("a string", "request"),
        ({}, "products"),
        ({"products": None}, "products"),
        ({"products": "ABC"}, "products"),
        ({"products": []}, "products"),
        ({"products": ["ABC"]}, "products.0"),
        ({"products": [{}]}, "products.0.sku"),
        ({"products": [{"sku": 123}]}, "products.0.sku"),
        ({"products": [{"sku": None}]}, "products.0.sku"),
        ({"products": [{"sku": ["A"]}]}, "products.0.sku"),
        ({"products": [{"sku": ""}]}, "products.0.sku"),
        ({"products": [{"sku": "S" * 129}]}, "products.0.sku"),
        ({"products": [{"sku": "{sku}", "quantity": 2}]}, "products.0.quantity"),
        ({"products": [{"sku": "{sku}", "quantity": 0}]}, "products.0.quantity"),
        ({"products": [{"sku": "{sku}", "quantity": "1"}]}, "products.0.quantity"),
        ({"products": [{"sku": "{sku}", "quantity": True}]}, "products.0.quantity"),
        ({"products": [{"sku": "{sku}", "quantity": 1.0}]}, "products.0.quantity"),
        ({"products": [{"sku": "{sku}"}, {"sku": "{sku}"}]}, "products.1.sku"),
        ({"products": [{"sku": "{sku}", "colour": "red"}]}, "products.0.colour"),
        ({"products": [{"sku": "{sku}"}], "checkout": "yes"}, "checkout"),
        ({"products": [{"sku": "{sku}"}], "checkout": 1}, "checkout"),
        ({"products": [{"sku": "{sku}"}], "chekout": True}, "chekout"),
    ],
)
def test_invalid_request_is_400_with_the_field(api, before, seats, body, field):
    text = json.dumps(body).replace("{sku}", seats[0].sku)
    assert_error(post_raw(api, text), 400, "invalid_request", field)
    assert row_counts() == before


def test_more_products_than_allowed_is_400(api, before, settings, seats):
    settings.MAX_BASKET_PRODUCTS = 3
    body = {"products": [{"sku": seat.sku} for seat in seats[:4]], "checkout": True}
    assert_error(post_raw(api, json.dumps(body)), 400, "invalid_request", "products")
    assert row_counts() == before


def test_unknown_sku_is_400_and_names_it(api, before, seats):
    body = {"products": [{"sku": seats[0].sku}, {"sku": "NO-SUCH-SKU"}], "checkout": True}
    error = assert_error(post_raw(api, json.dumps(body)), 400, "unknown_sku", "products.1.sku")
    assert "NO-SUCH-SKU" in error["message"]
    assert row_counts() == before


@pytest.mark.parametrize("key", ["", "k" * 256, "naïve", "tab\there"])
def test_invalid_idempotency_key_is_400(api, before, seats, key):
    body = json.dumps({"products": [{"sku": seats[0].sku}], "checkout": True})
    assert_error(post_raw(api, body, HTTP_IDEMPOTENCY_KEY=key), 400, "invalid_idempotency_key")
    assert row_counts() == before


def test_unknown_api_path_is_a_json_404(api):
    response = api.get("/api/v2/nothing-here/", "learner")
    assert_error(response, 404, "not_found")


def test_wrong_method_is_a_json_405(api):
    response = api.get(URL, "learner")
    assert_error(response, 405, "method_not_allowed")


@pytest.mark.parametrize(
    "body",
    [
        '{"products": ' + "[" * 5000 + "]" * 5000 + "}",
        '{"products": [{"sku": "\\ud800SKU"}], "checkout": true}',
        '{"products": [{"sku": "SKU"}], "\\udfff": true}',
    ],
    ids=["nested too deeply", "lone surrogate in a value", "lone surrogate in a key"],
)
def test_json_python_cannot_handle_is_malformed_not_a_server_error(api, before, seats, body):
    """Found by tests/schema: a RecursionError, or a string neither MySQL nor the answer's
    UTF-8 can take, used to fail as a 500."""
    assert_error(post_raw(api, body.replace("SKU", seats[0].sku)), 400, "malformed_json")
    assert row_counts() == before
