"""Reading a basket request: strict JSON types, one error per field, nothing written.

    {"products": [{"sku": "ABC", "quantity": 1}], "checkout": true, "payment_processor_name": "cybersource"}

A seat is bought once, so ``quantity`` may be left out and otherwise must be 1. Unknown
fields are refused rather than ignored: a typo in ``checkout`` must not silently skip the order.
``payment_processor_name`` (as Otto took it) names who takes the payment of a paid basket;
whether the name is one the service has is the view's to say (ecommerce.payment).
"""

import hashlib
import json
from dataclasses import dataclass

from django.conf import settings
from rest_framework.exceptions import ValidationError

from ecommerce.core.errors import ApiError

IDEMPOTENCY_HEADER = "HTTP_IDEMPOTENCY_KEY"
MAX_SKU_LENGTH = 128
MAX_KEY_LENGTH = 255
MAX_PROCESSOR_NAME_LENGTH = 64


@dataclass(frozen=True)
class BasketRequest:
    skus: tuple[str, ...]
    checkout: bool
    payment_processor: str | None = None  # None: the default processor

    @property
    def fingerprint(self) -> str:
        content = {"skus": self.skus, "checkout": self.checkout}
        if self.payment_processor is not None:
            content["payment_processor_name"] = self.payment_processor
        canonical = json.dumps(content, sort_keys=True)
        return hashlib.sha256(canonical.encode()).hexdigest()


def parse_basket_request(data) -> BasketRequest:
    if not isinstance(data, dict):
        raise ValidationError({"request": ["The body must be a JSON object."]})
    errors: dict[str, list[str]] = {}
    for name in sorted(set(data) - {"products", "checkout", "payment_processor_name"}):
        errors[name] = ["Unknown field."]

    processor = data.get("payment_processor_name")
    if "payment_processor_name" in data and (
        not isinstance(processor, str) or not 1 <= len(processor) <= MAX_PROCESSOR_NAME_LENGTH
    ):
        errors["payment_processor_name"] = [
            f"Must be the name of a payment processor (1 to {MAX_PROCESSOR_NAME_LENGTH} characters)."
        ]

    checkout = data.get("checkout", False)
    if not isinstance(checkout, bool):
        errors["checkout"] = ["Must be true or false."]

    products = data.get("products")
    skus: list[str] = []
    if products is None:
        errors["products"] = ["This field is required."]
    elif not isinstance(products, list):
        errors["products"] = ['Must be a list of {"sku": ...} objects.']
    elif not products:
        errors["products"] = ["Name at least one product."]
    elif len(products) > settings.MAX_BASKET_PRODUCTS:
        errors["products"] = [f"At most {settings.MAX_BASKET_PRODUCTS} products per basket."]
    else:
        for index, item in enumerate(products):
            sku = _parse_product(item, f"products.{index}", errors)
            if sku is None:
                continue
            if sku in skus:
                errors[f"products.{index}.sku"] = ["This seat is already in the basket; buy it once."]
            skus.append(sku)
    if errors:
        raise ValidationError(errors)
    return BasketRequest(tuple(skus), checkout, processor)


def _parse_product(item, path: str, errors: dict) -> str | None:
    if not isinstance(item, dict):
        errors[path] = ['Must be an object with a "sku".']
        return None
    for name in sorted(set(item) - {"sku", "quantity"}):
        errors[f"{path}.{name}"] = ["Unknown field."]
    sku = item.get("sku")
    if sku is None:
        errors[f"{path}.sku"] = ["This field is required."]
        sku = None
    elif not isinstance(sku, str):
        errors[f"{path}.sku"] = ["Must be a string."]
        sku = None
    elif not sku.strip() or len(sku) > MAX_SKU_LENGTH:
        errors[f"{path}.sku"] = [f"Must be 1 to {MAX_SKU_LENGTH} characters."]
        sku = None
    quantity = item.get("quantity", 1)
    if isinstance(quantity, bool) or not isinstance(quantity, int) or quantity != 1:
        errors[f"{path}.quantity"] = ["A seat is bought one at a time: the quantity must be 1."]
    return sku


def idempotency_key(request) -> str | None:
    """The Idempotency-Key header: absent, or 1 to 255 printable ASCII characters."""
    key = request.META.get(IDEMPOTENCY_HEADER)
    if key is None:
        return None
    if not key or len(key) > MAX_KEY_LENGTH or not all(" " <= ch <= "~" for ch in key):
        raise ApiError(
            400,
            "invalid_idempotency_key",
            f"Idempotency-Key must be 1 to {MAX_KEY_LENGTH} printable ASCII characters.",
        )
    return key


def unknown_skus_error(unknown: dict[int, str]) -> ApiError:
    fields = {f"products.{index}.sku": [f"No seat has the SKU {sku!r}."] for index, sku in unknown.items()}
    return ApiError(400, "unknown_sku", next(iter(fields.values()))[0], fields=fields)
