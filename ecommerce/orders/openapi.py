"""The order API in OpenAPI terms: the shapes of baskets, orders and basket requests as JSON
Schema, and the schema of each view (used by views.py through ``extend_schema``).

The request schema states what requests.py accepts, constraint by constraint; what JSON
Schema cannot say (a SKU must exist, a seat is listed once whatever else its item holds) is
in the descriptions and answered 400 by the service.
"""

from django.conf import settings
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema

from common.contract.courses import seat
from common.contract.statuses import LINE, ORDER
from ecommerce.core.openapi import ERROR_REF, RETRY_AFTER, WWW_AUTHENTICATE, errors
from ecommerce.orders.requests import MAX_KEY_LENGTH, MAX_PROCESSOR_NAME_LENGTH, MAX_SKU_LENGTH

MONEY = {"type": "string", "pattern": r"^-?[0-9]+\.[0-9]{2}$", "example": "49.00"}


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def components() -> dict:
    """The schemas of this API, by component name (built when the document is generated, so
    settings such as MAX_BASKET_PRODUCTS are the running service's)."""
    return {**_answer_schemas(), **_request_schemas()}


def _answer_schemas() -> dict:
    """What the API answers: a basket, its order and the order's lines."""
    return {
        "Line": {
            "type": "object",
            "required": ["sku", "title", "quantity", "line_price_excl_tax", "status"],
            "properties": {
                "sku": {"type": "string"},
                "title": {"type": "string"},
                "quantity": {"type": "integer", "minimum": 1},
                "line_price_excl_tax": MONEY,
                "status": {
                    "type": "string",
                    "enum": [LINE.OPEN, LINE.COMPLETE, *LINE.ERRORS],
                    "description": "An error status names the reason the enrollment failed.",
                },
            },
            "additionalProperties": False,
        },
        "Order": {
            "type": "object",
            "required": ["number", "status", "total_excl_tax", "currency", "date_placed", "lines"],
            "properties": {
                "number": {"type": "string", "example": "100001"},
                "status": {"type": "string", "enum": [ORDER.OPEN, ORDER.COMPLETE, ORDER.FULFILLMENT_ERROR]},
                "total_excl_tax": MONEY,
                "currency": {"type": "string", "pattern": "^[A-Z]{3}$", "example": "USD"},
                "date_placed": {"type": "string", "format": "date-time"},
                "lines": {"type": "array", "items": _ref("Line")},
            },
            "additionalProperties": False,
        },
        "Basket": {
            "type": "object",
            "required": ["id", "order"],
            "properties": {
                "id": {"type": "integer"},
                "order": {
                    "allOf": [_ref("Order")],
                    "nullable": True,
                    "description": (
                        "The order placed from the basket; null when checkout was false, and for a "
                        "paid basket (its order is placed when the payment is notified)."
                    ),
                },
                "payment_data": {
                    **_ref("PaymentData"),
                    "description": "A paid checkout only: where and what the learner's browser posts to pay.",
                },
            },
            "additionalProperties": False,
        },
    }


def _request_schemas() -> dict:
    """What the API takes: a basket's seats and whether to check it out."""
    return {
        "BasketRequest": {
            "type": "object",
            "required": ["products"],
            "properties": {
                "products": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": settings.MAX_BASKET_PRODUCTS,
                    "uniqueItems": True,
                    "items": _ref("ProductRequest"),
                    "description": (
                        "The seats to buy. Each SKU at most once (a repeated SKU is refused with 400) "
                        "and each must exist (an unknown SKU is refused with 400 unknown_sku)."
                    ),
                },
                "checkout": {
                    "type": "boolean",
                    "default": False,
                    "description": (
                        "true: a free basket is placed and the learner enrolled; a paid one (total "
                        "above 0.00) answers payment_data and places nothing yet. false: the basket only."
                    ),
                },
                "payment_processor_name": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_PROCESSOR_NAME_LENGTH,
                    "example": "cybersource",
                    "description": (
                        "Who takes the payment of a paid basket (GET /api/v2/payment/processors/ lists "
                        "them); the default when left out. A name the service does not have is refused "
                        "with 400 unknown_payment_processor."
                    ),
                },
            },
            "additionalProperties": False,
            "description": "Unknown fields are refused, so a misspelt checkout cannot skip the order.",
        },
        "ProductRequest": _product_request(),
    }


def _product_request() -> dict:
    """One seat of a basket request: its SKU, bought one at a time."""
    return {
        "type": "object",
        "required": ["sku"],
        "properties": {
            "sku": {
                "type": "string",
                "minLength": 1,
                "maxLength": MAX_SKU_LENGTH,
                # Not only whitespace, as Python's str.strip() sees it.
                "pattern": r"[^\s\x1c-\x1f]",
                "example": seat(1).sku,
            },
            "quantity": {
                "type": "integer",
                "enum": [1],
                "default": 1,
                "description": "A seat is bought one at a time.",
            },
        },
        "additionalProperties": False,
    }


def add_order_components(result, generator, request, public):
    """drf-spectacular postprocessing hook: register the order API's components and mark the
    basket body required (a raw schema leaves drf-spectacular unable to tell)."""
    result.setdefault("components", {}).setdefault("schemas", {}).update(components())
    basket = result.get("paths", {}).get("/api/v2/baskets/", {}).get("post")
    if basket and "requestBody" in basket:
        basket["requestBody"]["required"] = True
    return result


IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    {"type": "string", "minLength": 1, "maxLength": MAX_KEY_LENGTH, "pattern": r"^[!-~]([ -~]*[!-~])?$"},
    OpenApiParameter.HEADER,
    description=(
        "Printable ASCII, compared byte for byte. The first answer to a key is stored and repeated "
        "to every later request with the same key and body (header Idempotent-Replayed: true); "
        "one order however many arrive at once."
    ),
)
IDEMPOTENT_REPLAYED = OpenApiParameter(
    "Idempotent-Replayed",
    {"type": "string", "enum": ["true"]},
    OpenApiParameter.HEADER,
    description="Present when this is the stored answer to an earlier request with the same key.",
    response=[201],
)
ORDER_NUMBER = OpenApiParameter("number", str, OpenApiParameter.PATH, description="The order's number.")

create_basket = extend_schema(
    operation_id="create_basket",
    summary="Create a basket and, with checkout, place and fulfil its order, or start its payment",
    description=(
        "A free basket: the order is committed before the LMS is called; the answer says how "
        "fulfilment ended (order status Complete or Fulfillment Error, the reason on the line). "
        "A paid basket (total above 0.00): the basket is frozen, nothing is placed, and the "
        "answer has order null and payment_data, the signed form the learner's browser posts to "
        "the processor's page; the order is placed when the processor notifies the payment "
        "(POST /payment/{processor}/notify/). A rejected request writes nothing."
    ),
    request={"application/json": _ref("BasketRequest")},
    parameters=[IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED, RETRY_AFTER, WWW_AUTHENTICATE],
    examples=[
        OpenApiExample(
            "buy a seat",
            value={"products": [{"sku": seat(1).sku}], "checkout": True},
            request_only=True,
        ),
        OpenApiExample(
            "pay for a seat through CyberSource",
            value={
                "products": [{"sku": seat(1).sku}],
                "checkout": True,
                "payment_processor_name": "cybersource",
            },
            request_only=True,
        ),
    ],
    responses={
        201: OpenApiResponse(
            _ref("Basket"), "The basket, and the order placed from it or (paid) the payment to make."
        ),
        **errors(
            400,
            401,
            403,
            406,
            409,
            413,
            415,
            422,
            429,
            503,
            described={
                400: "Invalid input (invalid_request, with fields), a body that is not JSON "
                "(malformed_json), an unknown SKU (unknown_sku), a payment processor the service "
                "does not have (unknown_payment_processor) or a bad Idempotency-Key "
                "(invalid_idempotency_key).",
                403: "A dashboard session without a valid CSRF token (permission_denied).",
                409: "The learner already owns one of the seats (already_purchased, with "
                "order_number), or the first request with this Idempotency-Key is still running "
                "(request_in_progress, Retry-After).",
                422: "The Idempotency-Key was used for a different request (idempotency_key_reused).",
            },
        ),
    },
)

list_orders = extend_schema(
    operation_id="list_orders",
    summary="The learner's orders, newest first (staff: every order)",
    parameters=[
        OpenApiParameter(
            "cursor",
            str,
            description="The position to continue from, as given in next or previous.",
        ),
        OpenApiParameter(
            "page_size",
            {"type": "integer", "minimum": 1},
            description="Orders per page (default 20); more than 100 are answered as 100.",
        ),
        WWW_AUTHENTICATE,
        RETRY_AFTER,
    ],
    responses={
        # drf-spectacular wraps it in the paginator's page (views.NewestFirst).
        200: OpenApiResponse(_ref("Order"), "One page of orders; no count, follow next."),
        **errors(
            400,
            401,
            404,
            406,
            503,
            described={
                400: "page_size is not a whole number of at least 1 (invalid_request).",
                404: "The cursor is not one this API gave (not_found).",
            },
        ),
    },
)

read_order = extend_schema(
    operation_id="read_order",
    summary="One order (the learner's own; staff: any)",
    parameters=[ORDER_NUMBER, WWW_AUTHENTICATE, RETRY_AFTER],
    responses={
        200: OpenApiResponse(_ref("Order"), "The order."),
        **errors(401, 404, 406, 503, described={404: "No such order, or not this learner's (not_found)."}),
    },
)

read_basket_order = extend_schema(
    operation_id="read_basket_order",
    summary="The order placed from a basket (the learner's own; staff: any)",
    description="Answers as GET /api/v2/orders/{number}/ does; 404 until the order is placed.",
    parameters=[
        OpenApiParameter("basket_id", int, OpenApiParameter.PATH, description="The basket's id."),
        WWW_AUTHENTICATE,
        RETRY_AFTER,
    ],
    responses={
        200: OpenApiResponse(_ref("Order"), "The order."),
        **errors(
            401,
            404,
            406,
            503,
            described={404: "No order placed from this basket yet, or not this learner's (not_found)."},
        ),
    },
)

fulfill_order = extend_schema(
    operation_id="fulfill_order",
    summary="Retry the fulfilment of an order in Fulfillment Error (staff)",
    description="Any request body is ignored.",
    request=None,
    parameters=[ORDER_NUMBER, WWW_AUTHENTICATE, RETRY_AFTER],
    responses={
        200: OpenApiResponse(_ref("Order"), "The order after the retry (Complete or Fulfillment Error)."),
        **errors(401, 403, 404, 503, described={403: "Not a staff account (permission_denied)."}),
        406: OpenApiResponse(
            ERROR_REF,
            "The order is not in Fulfillment Error (not_retryable, with order_status; nothing "
            "changed), or the Accept header allows no JSON answer (not_acceptable).",
        ),
    },
)
