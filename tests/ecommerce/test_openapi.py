"""GET /api/v2/schema/: the OpenAPI document is public JSON, covers every endpoint, and every
error answer in it is the one Error shape. (tests/schema holds the running service to it.)"""

import pytest

from tests.support.openapi import errors_not_in_the_error_shape

pytestmark = pytest.mark.django_db


@pytest.fixture
def document(api):
    response = api.client.get("/api/v2/schema/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/vnd.oai.openapi+json")
    return response.json()


def test_every_endpoint_is_described(document):
    operations = {(method, path) for path, ops in document["paths"].items() for method in ops}
    assert operations == {
        ("post", "/api/v2/baskets/"),
        ("get", "/api/v2/baskets/{basket_id}/order/"),
        ("get", "/api/v2/orders/"),
        ("get", "/api/v2/orders/{number}/"),
        ("put", "/api/v2/orders/{number}/fulfill/"),
        ("get", "/api/v2/payment/processors/"),
        ("post", "/payment/{processor}/notify/"),
        ("get", "/health/"),
    }


def test_every_error_answer_is_the_error_shape(document):
    assert errors_not_in_the_error_shape(document) == []


def test_the_api_is_secured_by_the_jwt_scheme(document):
    assert document["components"]["securitySchemes"]["jwtAuth"]["name"] == "Authorization"
    basket = document["paths"]["/api/v2/baskets/"]["post"]
    assert {"jwtAuth": []} in basket["security"]
    assert basket["requestBody"]["required"] is True


def test_the_basket_request_states_the_configured_limits(api, settings):
    settings.MAX_BASKET_PRODUCTS = 3
    schemas = api.client.get("/api/v2/schema/").json()["components"]["schemas"]
    assert schemas["BasketRequest"]["properties"]["products"]["maxItems"] == 3
    assert schemas["ProductRequest"]["properties"]["sku"]["maxLength"] == 128


def test_a_paid_basket_and_the_notification_are_described(document):
    from common.contract import cybersource

    schemas = document["components"]["schemas"]
    assert schemas["Basket"]["properties"]["payment_data"]["$ref"] == "#/components/schemas/PaymentData"
    assert "payment_data" not in schemas["Basket"]["required"]  # a free basket has none
    assert schemas["BasketRequest"]["properties"]["payment_processor_name"]["type"] == "string"
    form = schemas["PaymentData"]["properties"]["payment_form_data"]
    assert set(form["required"]) == {*cybersource.CHECKOUT_FIELDS, "signature"}
    notify = document["paths"]["/payment/{processor}/notify/"]["post"]
    assert notify["security"] == []
    assert notify["parameters"][0]["schema"]["enum"] == ["cybersource"]
    assert list(notify["requestBody"]["content"]) == ["application/x-www-form-urlencoded"]
    assert set(notify["responses"]) == {"200", "400", "404", "413", "415", "503"}
