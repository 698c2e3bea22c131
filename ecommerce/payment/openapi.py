"""The payment endpoints in OpenAPI terms: the processors list (a DRF view, described through
``extend_schema``) and the notify URL, a plain Django view drf-spectacular cannot see, added to
the document by a postprocessing hook with the shape of a CyberSource notification."""

from drf_spectacular.utils import OpenApiResponse, extend_schema

from common.contract import cybersource
from common.contract.statuses import NOTIFICATION
from ecommerce.core.openapi import ERROR_REF, RETRY_AFTER, WWW_AUTHENTICATE, errors
from ecommerce.payment import processors

NOTIFY_PATH = "/payment/{processor}/notify/"

list_processors = extend_schema(
    operation_id="list_payment_processors",
    summary="The payment processors a basket may be paid through, the default first",
    parameters=[WWW_AUTHENTICATE, RETRY_AFTER],
    responses={
        200: OpenApiResponse(
            {"type": "array", "items": {"type": "string"}, "example": [cybersource.PROCESSOR]},
            "Processor names, as payment_processor_name takes them.",
        ),
        **errors(401, 406, 503),
    },
)


def components() -> dict:
    string = {"type": "string"}
    return {
        "PaymentData": {
            "type": "object",
            "description": (
                "What a paid checkout answers: post payment_form_data, as an HTML form from the "
                "learner's browser, to payment_page_url. The order is placed when the processor's "
                "notification arrives."
            ),
            "required": ["payment_processor_name", "payment_form_data", "payment_page_url"],
            "properties": {
                "payment_processor_name": {"type": "string", "example": cybersource.PROCESSOR},
                "payment_form_data": {
                    "type": "object",
                    "description": (
                        "CyberSource Secure Acceptance fields, signed (signed_field_names, signature); "
                        "reference_number is the order number the order will have."
                    ),
                    "required": [*cybersource.CHECKOUT_FIELDS, "signature"],
                    "properties": {name: string for name in (*cybersource.CHECKOUT_FIELDS, "signature")},
                    "additionalProperties": string,
                },
                "payment_page_url": {"type": "string", "format": "uri"},
            },
            "additionalProperties": False,
        },
        "PaymentNotification": {
            "type": "object",
            "description": (
                "A CyberSource notification: HMAC-SHA256 over the fields signed_field_names lists, "
                "Base64, in signature. The order service acts only on signed fields."
            ),
            "required": [*cybersource.NOTIFICATION_REQUIRED, "signed_field_names", "signature"],
            "properties": {
                **{name: string for name in cybersource.NOTIFICATION_FIELDS},
                "decision": {"type": "string", "enum": list(cybersource.DECISIONS)},
                "signed_field_names": string,
                "signature": string,
            },
            "additionalProperties": string,
        },
    }


def _notify_operation() -> dict:
    return {
        "operationId": "payment_notification",
        "summary": "A payment processor's signed notification of a payment (the processor's interface)",
        "description": (
            "Form-encoded, authenticated by its signature only (an Authorization header is "
            "ignored). Every notification is recorded, refused ones too. ACCEPT places the basket's "
            "order once and fulfils it; a repeat changes nothing; any other decision places nothing "
            f"and leaves the basket awaiting payment. Outcomes: {', '.join(NOTIFICATION.ALL)}."
        ),
        "security": [],
        "parameters": [
            {
                "name": "processor",
                "in": "path",
                "required": True,
                "schema": {"type": "string", "enum": processors.names()},
            }
        ],
        "requestBody": {
            "required": True,
            "content": {
                "application/x-www-form-urlencoded": {
                    "schema": {"$ref": "#/components/schemas/PaymentNotification"}
                }
            },
        },
        "responses": {
            "200": {
                "description": (
                    "Taken: the order placed (or already placed: a replay), a decline recorded, or a "
                    "refund owed recorded. Empty body."
                ),
                "content": {"text/plain": {"schema": {"type": "string", "maxLength": 0}}},
            },
            "400": _error(
                "Refused and recorded (by reference, size and digest, not its fields), nothing placed: "
                "a missing or wrong signature, or one not checked (more than 64 signed names, one "
                "twice or not sent, a signed string over 8,192 characters: refused before any HMAC) "
                "(invalid_signature); a field missing, unsigned, unreadable or given twice, "
                "signed_field_names not signed itself, or a checkout form's field "
                "(invalid_notification); a "
                "reference no basket awaits payment under (unknown_reference), or an amount or "
                "currency not the basket's (amount_mismatch, currency_mismatch)."
            ),
            "404": _error("No such processor (not_found)."),
            "413": _error(
                "The body is larger than the limit, whatever its content type (body_too_large); "
                "recorded by size alone."
            ),
            "415": _error(
                "The body is not application/x-www-form-urlencoded (unsupported_media_type; "
                "multipart/form-data included): never parsed."
            ),
            "503": _error("The database cannot be reached (database_unavailable); send it again later."),
        },
    }


def _error(description: str) -> dict:
    return {"description": description, "content": {"application/json": {"schema": ERROR_REF}}}


def add_payment_components(result, generator, request, public):
    """drf-spectacular postprocessing hook: the payment shapes, and the notify URL."""
    result.setdefault("components", {}).setdefault("schemas", {}).update(components())
    result.setdefault("paths", {})[NOTIFY_PATH] = {"post": _notify_operation()}
    return result
