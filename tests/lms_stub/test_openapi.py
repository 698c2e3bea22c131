"""GET /api/schema/: the hand-written OpenAPI document is public JSON, covers every endpoint,
and every error answer in it is the one Error shape. (tests/schema holds the running service
to it.)"""

import pytest

from lms_stub.faults.views import LIMITS
from tests.support.openapi import errors_not_in_the_error_shape

pytestmark = pytest.mark.django_db


@pytest.fixture
def document(client):
    response = client.get("/api/schema/")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    return response.json()


def test_every_endpoint_is_described(document):
    operations = {(method, path) for path, ops in document["paths"].items() for method in ops}
    assert operations == {
        ("get", "/auto_auth"),
        ("post", "/auto_auth"),
        ("post", "/api/commerce/v0/baskets/"),
        ("get", "/api/commerce/v1/orders/{number}/"),
        ("get", "/api/enrollment/v1/enrollment"),
        ("post", "/api/enrollment/v1/enrollment"),
        ("get", "/api/faults/"),
        ("put", "/api/faults/"),
        ("delete", "/api/faults/"),
        ("post", "/processor/cybersource/pay/"),
        ("post", "/processor/cybersource/pay/confirm/"),
        ("get", "/health/"),
    }


def test_every_error_answer_is_the_error_shape(document):
    assert errors_not_in_the_error_shape(document) == []


def test_the_fault_limits_are_the_views(document):
    changes = document["components"]["schemas"]["FaultChanges"]
    assert set(changes["properties"]) == set(LIMITS)
    assert changes["properties"]["error_rate"] == {"type": "number", "minimum": 0, "maximum": 1}


def test_the_body_limit_is_the_settings(client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1234
    enroll = client.get("/api/schema/").json()["paths"]["/api/enrollment/v1/enrollment"]["post"]
    assert "1234 bytes" in enroll["responses"]["413"]["description"]


def test_the_processor_pages_take_the_checkout_form_and_answer_html(document):
    from common.contract import cybersource

    for path in ("/processor/cybersource/pay/", "/processor/cybersource/pay/confirm/"):
        operation = document["paths"][path]["post"]
        assert operation["security"] == []
        assert list(operation["requestBody"]["content"]) == ["application/x-www-form-urlencoded"]
        assert list(operation["responses"]["200"]["content"]) == ["text/html"]
    form = document["components"]["schemas"]["CheckoutForm"]
    assert set(form["required"]) == {*cybersource.CHECKOUT_FIELDS, "signature"}
