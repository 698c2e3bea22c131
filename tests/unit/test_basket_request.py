"""parse_basket_request: the parts of basket validation that the API tests do not spell out."""

import pytest
from rest_framework.exceptions import ValidationError

from ecommerce.orders.requests import BasketRequest, parse_basket_request


def test_quantity_defaults_to_one_and_checkout_to_false():
    assert parse_basket_request({"products": [{"sku": "A"}]}) == BasketRequest(("A",), False)


def test_every_invalid_field_is_reported_at_once():
    with pytest.raises(ValidationError) as raised:
        parse_basket_request(
            {"products": [{"sku": 1}, {"sku": "B", "quantity": 3}], "checkout": "no", "x": 1}
        )
    assert set(raised.value.detail) == {"products.0.sku", "products.1.quantity", "checkout", "x"}


def test_the_fingerprint_depends_on_skus_order_and_checkout():
    a = BasketRequest(("A", "B"), True)
    assert a.fingerprint == BasketRequest(("A", "B"), True).fingerprint
    assert a.fingerprint != BasketRequest(("B", "A"), True).fingerprint
    assert a.fingerprint != BasketRequest(("A", "B"), False).fingerprint


def test_the_processor_is_read_and_part_of_the_fingerprint():
    parsed = parse_basket_request(
        {"products": [{"sku": "A"}], "checkout": True, "payment_processor_name": "x"}
    )
    assert parsed == BasketRequest(("A",), True, "x")
    assert parsed.fingerprint != BasketRequest(("A",), True).fingerprint
    # Requests that name no processor keep the fingerprint they had before processors existed.
    assert BasketRequest(("A",), True).fingerprint == BasketRequest(("A",), True, None).fingerprint


@pytest.mark.parametrize("name", [None, 1, "", "p" * 65, {"name": "x"}])
def test_a_processor_name_must_be_a_short_string(name):
    with pytest.raises(ValidationError) as raised:
        parse_basket_request({"products": [{"sku": "A"}], "payment_processor_name": name})
    assert set(raised.value.detail) == {"payment_processor_name"}
