"""The JSON error shape: DRF's nested validation details become dotted field paths."""

from ecommerce.core.errors import _flatten, error_body


def test_nested_details_become_dotted_paths():
    detail = {"products": [{}, {"sku": ["bad"]}], "non_field_errors": ["whole"], "checkout": ["no"]}
    assert _flatten(detail) == {"products.1.sku": ["bad"], "request": ["whole"], "checkout": ["no"]}


def test_error_body_has_code_message_and_only_given_extras():
    assert error_body("x", "y") == {"error": "x", "message": "y"}
    assert error_body("x", "y", {"f": ["m"]}, order_number="1") == {
        "error": "x",
        "message": "y",
        "fields": {"f": ["m"]},
        "order_number": "1",
    }
