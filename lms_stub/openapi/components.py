"""The components of lms_stub's OpenAPI document: the schemas its paths refer to, grouped by the
area of the API that answers them, and the security schemes. Built at each call from the
settings (cookie names, load-test switches) and the wire contract."""

from django.conf import settings

from common.contract import cybersource
from common.contract import errors as contract_errors
from common.contract import health as contract_health
from common.contract.courses import MODES, ORG, RUN, seat
from lms_stub.faults.views import LIMITS

COURSE_ID = {
    "type": "string",
    "minLength": 1,
    "description": f"A course the LMS sells: course-v1:{ORG}+LT<four digits>+{RUN}, one of the catalogue's.",
}


def components() -> dict:
    return {"schemas": schemas(), "securitySchemes": security_schemes()}


def schemas() -> dict:
    described = {
        "Error": contract_errors.SCHEMA,
        "Learner": _learner(),
        **_commerce(),
        **_enrollment(),
        **_faults(),
        "Health": contract_health.SCHEMA,
    }
    # The processor's pages are routed only where switched on (lms_stub/urls.py); the other
    # areas' schemas stay, as the document has always given them.
    if settings.LMS_PAYMENT_PROCESSOR:
        described.update(_processor())
    return described


def _learner() -> dict:
    return {
        "type": "object",
        "description": "As edX's LMS answered auto_auth, with the CSRF token added.",
        "required": [
            "created_status",
            "username",
            "email",
            "password",
            "user_id",
            "anonymous_id",
            "csrf_token",
        ],
        "properties": {
            "created_status": {"type": "string", "enum": ["Created", "Logged in"]},
            "username": {"type": "string", "minLength": 1, "maxLength": 150},
            "email": {"type": "string"},
            "password": {"type": "string", "description": "The one asked for, or a random one."},
            "user_id": {"type": "integer"},
            "anonymous_id": {"type": "string", "pattern": "^[0-9a-f]{32}$"},
            "csrf_token": {"type": "string", "description": "Send it back as X-CSRFToken."},
        },
        "additionalProperties": False,
    }


def _commerce() -> dict:
    order = {
        "type": "object",
        "description": "The order as ecommerce answers it (see ecommerce's Order schema).",
        "required": ["number", "status"],
        "properties": {"number": {"type": "string"}, "status": {"type": "string"}},
    }
    return {
        "Purchase": {
            "type": "object",
            "required": ["course_id"],
            "properties": {"course_id": {**COURSE_ID, "example": seat(1).course_id}},
            "additionalProperties": True,
            "description": "Other fields are ignored.",
        },
        "PurchaseResult": {
            "type": "object",
            "required": ["course_id", "enrolled", "order"],
            "properties": {
                "course_id": {"type": "string"},
                "enrolled": {"type": "boolean"},
                "message": {"type": "string"},
                "order": order,
            },
            "additionalProperties": False,
        },
        "Order": order,
    }


def _enrollment() -> dict:
    return {
        "EnrollmentRequest": {
            "type": "object",
            "required": ["user", "mode", "course_details"],
            "properties": {
                "user": {"type": "string", "minLength": 1, "maxLength": 150},
                "mode": {"type": "string", "enum": list(MODES)},
                "is_active": {"type": "boolean", "default": True},
                "course_details": {
                    "type": "object",
                    "required": ["course_id"],
                    "properties": {"course_id": {**COURSE_ID, "example": seat(1).course_id}},
                },
            },
            "description": "Other fields are ignored. Idempotent on (user, course).",
        },
        "Enrollment": {
            "type": "object",
            "required": ["user", "mode", "is_active", "course_details"],
            "properties": {
                "user": {"type": "string"},
                "mode": {"type": "string"},
                "is_active": {"type": "boolean"},
                "course_details": {
                    "type": "object",
                    "required": ["course_id"],
                    "properties": {"course_id": {"type": "string"}},
                    "additionalProperties": False,
                },
                "created": {"type": "string", "format": "date-time"},
            },
            "additionalProperties": False,
        },
    }


def _faults() -> dict:
    unix_seconds = {"type": "number", "description": "Unix seconds"}
    return {
        "FaultChanges": {
            "type": "object",
            "properties": {
                name: {"type": kind, "minimum": low, "maximum": high}
                for name, (kind, low, high) in LIMITS.items()
            },
            "additionalProperties": False,
            "description": (
                "Any of the fields. jitter_ms is added at random (0..jitter); outage_seconds "
                "and outage_starts_in_seconds set an outage window from now (0 ends one)."
            ),
        },
        "Faults": {
            "type": "object",
            "required": [
                "latency_ms",
                "jitter_ms",
                "error_rate",
                "outage_start",
                "outage_end",
                "now",
                "applies_within_seconds",
            ],
            "properties": {
                "latency_ms": {"type": "integer", "minimum": 0},
                "jitter_ms": {"type": "integer", "minimum": 0},
                "error_rate": {"type": "number", "minimum": 0, "maximum": 1},
                "outage_start": unix_seconds,
                "outage_end": unix_seconds,
                "now": unix_seconds,
                "applies_within_seconds": {"type": "number"},
            },
            "additionalProperties": False,
        },
    }


def _checkout_form() -> dict:
    string = {"type": "string"}
    return {
        "type": "object",
        "description": "A paid checkout's payment_form_data as ecommerce signed it (CyberSource fields).",
        "required": [*cybersource.CHECKOUT_FIELDS, "signature"],
        "properties": {name: string for name in (*cybersource.CHECKOUT_FIELDS, "signature")},
        "additionalProperties": string,
    }


def _processor() -> dict:
    form = _checkout_form()
    return {
        "CheckoutForm": _checkout_form(),
        "PaymentConfirmation": {
            **form,
            "required": [*form["required"], "pay_action"],
            "properties": {
                **form["properties"],
                "card_number": {"type": "string", "example": cybersource.TEST_CARD},
                "pay_action": {"type": "string", "enum": ["pay", "decline"]},
            },
        },
    }


def security_schemes() -> dict:
    described = {
        "session": {
            "type": "apiKey",
            "in": "cookie",
            "name": settings.SESSION_COOKIE_NAME,
            "description": "The learner's session, set by /auto_auth.",
        },
        "csrfCookie": {
            "type": "apiKey",
            "in": "cookie",
            "name": settings.CSRF_COOKIE_NAME,
            "description": "Set by /auto_auth; its value goes in X-CSRFToken too.",
        },
        "csrfHeader": {
            "type": "apiKey",
            "in": "header",
            "name": "X-CSRFToken",
            "description": "The csrftoken cookie's value (unsafe methods only).",
        },
        "apiKey": {
            "type": "apiKey",
            "in": "header",
            "name": "X-Edx-Api-Key",
            "description": "The key ecommerce (and tools) present to the enrollment API.",
        },
    }
    if settings.LMS_FAULT_CONTROL:
        described["faultApiKey"] = {
            "type": "apiKey",
            "in": "header",
            "name": "X-Fault-Api-Key",
            "description": "The fault API's own key (LMS_FAULT_API_KEY), held by the load suite.",
        }
    return described
