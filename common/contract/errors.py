"""The JSON error shape every non-success answer of both services has, and the errors both
give in the same words.

    {"error": "<machine code>", "message": "<sentence for a human>", "fields": {...}}

``fields`` is present only for invalid input and maps a field path to its messages; some
errors add context next to these keys (``order_number``, ``course_id``, ...).
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Error:
    status: int
    code: str
    message: str

    def body(self, **extra) -> dict:
        return body(self.code, self.message, **extra)


def body(code: str, message: str, fields: dict | None = None, **extra) -> dict:
    answer: dict = {"error": code, "message": message}
    if fields:
        answer["fields"] = fields
    answer.update(extra)
    return answer


# The Error component of both services' OpenAPI documents.
SCHEMA = {
    "type": "object",
    "description": (
        "Every answer that is not a success. Some errors add context next to these keys "
        "(e.g. order_number, order_status)."
    ),
    "required": ["error", "message"],
    "properties": {
        "error": {"type": "string", "description": "A machine-readable code, e.g. invalid_request."},
        "message": {"type": "string", "description": "A sentence for a human."},
        "fields": {
            "type": "object",
            "description": 'Invalid input only: field path (e.g. "products.0.sku") to its messages.',
            "additionalProperties": {"type": "array", "items": {"type": "string"}},
        },
    },
    "additionalProperties": True,
}


# Answered by both services, in these words. Retry-After: 1 goes with the 503s.
DATABASE_UNAVAILABLE = Error(503, "database_unavailable", "The database cannot be reached; retry shortly.")
BAD_REQUEST = Error(400, "bad_request", "The request could not be read.")
PERMISSION_DENIED = Error(403, "permission_denied", "Not allowed.")
NOT_FOUND = Error(404, "not_found", "No such resource.")
SERVER_ERROR = Error(500, "server_error", "The server failed to answer this request.")
# A worker already doing all the work it can finish in time refuses new work (common.shedding).
OVERLOADED = Error(503, "overloaded", "The service is at capacity; retry after Retry-After seconds.")
UNHEALTHY = "unavailable"  # the health check's code when the database does not answer
RETRY_AFTER_SECONDS = "1"


def not_json(reason: str) -> str:
    """The message of a ``malformed_json`` error (``reason`` from common.strict_json)."""
    return f"The body is not valid JSON: {reason}."


# Codes the order service answers that the LMS and the load suite act on.
MALFORMED_JSON = "malformed_json"
ALREADY_PURCHASED = "already_purchased"
REQUEST_IN_PROGRESS = "request_in_progress"
POOL_EXHAUSTED = "pool_exhausted"

# Payment: a basket naming a processor the service does not have, and a processor's
# notification the service refuses (400, recorded, nothing placed).
UNKNOWN_PAYMENT_PROCESSOR = "unknown_payment_processor"
INVALID_SIGNATURE = "invalid_signature"
INVALID_NOTIFICATION = "invalid_notification"
UNKNOWN_REFERENCE = "unknown_reference"
AMOUNT_MISMATCH = "amount_mismatch"
CURRENCY_MISMATCH = "currency_mismatch"
