"""The OpenAPI 3 document of the LMS stand-in, written by hand (lms_stub is plain Django, so
there is nothing to generate it from) and served at GET /api/schema/.

It is built from the running settings (body limit, catalogue size) so it says what this
process does; tests/schema fuzzes the running service against it.
"""

from django.conf import settings

from common.contract import paths
from lms_stub.learners.views import EMAIL_PATTERN, MAX_EMAIL, MAX_PASSWORD
from lms_stub.openapi.answers import (
    BAD_REQUEST,
    NOT_JSON,
    OR_NO_DATABASE,
    RETRY_AFTER,
    error,
    html,
    json_answer,
    no_database,
    ref,
    too_large,
)
from lms_stub.openapi.components import components

API_KEY_REFUSED = "No or a wrong X-Edx-Api-Key (invalid_api_key)."
FAULT_KEY_REFUSED = "No or a wrong X-Fault-Api-Key (invalid_api_key)."

FORM = "application/x-www-form-urlencoded"
NOT_FORM = "The body is not a form (unsupported_media_type)."
CHECKOUT_REFUSED = (
    "The checkout form's signature is missing or wrong (invalid_signature), a field is missing, "
    "unsigned or given twice, or it is not a sale of an amount in a currency (invalid_request), "
    "or the access key or profile is not this processor's (unknown_profile)."
)


def document() -> dict:
    AUTO_AUTH_QUERY = [
        {
            "name": "username",
            "in": "query",
            "required": False,
            "schema": {"type": "string", "pattern": "^[\\w.@+-]{1,150}$"},
        },
        {
            "name": "email",
            "in": "query",
            "required": False,
            "schema": {"type": "string", "maxLength": MAX_EMAIL, "pattern": EMAIL_PATTERN},
        },
        {
            "name": "password",
            "in": "query",
            "required": False,
            "schema": {"type": "string", "minLength": 1, "maxLength": MAX_PASSWORD},
        },
    ]
    AUTO_AUTH_ANSWERS = {
        "200": json_answer(ref("Learner"), "The learner existed and gave its password: logged in."),
        "201": json_answer(ref("Learner"), "A new learner, logged in."),
        "400": error("A username, email or password this service cannot take (invalid_request)."),
        "403": error("The learner exists and the password is missing or wrong (invalid_credentials)."),
        "503": no_database(),
    }
    learner = [{"session": []}]
    learner_unsafe = [{"session": [], "csrfCookie": [], "csrfHeader": []}]
    api_key = [{"apiKey": []}]
    fault_key = [{"faultApiKey": []}]
    csrf_refused = error(
        "No CSRF cookie, or an X-CSRFToken that does not match it (csrf_failed); checked before the session."
    )
    faults_answer = json_answer(ref("Faults"), "The faults in force.")
    described = {
        "openapi": "3.0.3",
        "info": {
            "title": "LMS stand-in (lms_stub)",
            "version": "1",
            "description": (
                "The LMS side of the order loop: learners, the commerce endpoint that asks ecommerce "
                "for an order, the enrollment API ecommerce calls back, fault injection, and a "
                "stand-in for the payment processor. Every error answer has one shape "
                "(components/schemas/Error)."
            ),
        },
        "paths": {
            "/auto_auth": {
                "get": {
                    "operationId": "auto_auth",
                    "summary": "Log a learner in, creating it first",
                    "description": (
                        "Without a query, a fresh learner with a random name and password. Sets the "
                        "session and csrftoken cookies."
                    ),
                    "security": [],
                    "parameters": AUTO_AUTH_QUERY,
                    "responses": AUTO_AUTH_ANSWERS,
                },
                "post": {
                    "operationId": "auto_auth_post",
                    "summary": "The same as GET (any body is ignored)",
                    "security": [],
                    "parameters": AUTO_AUTH_QUERY,
                    "responses": AUTO_AUTH_ANSWERS,
                },
            },
            "/api/commerce/v0/baskets/": {
                "post": {
                    "operationId": "buy_course",
                    "summary": "The learner buys a course's seat (ecommerce places and fulfils the order)",
                    "security": learner_unsafe,
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": ref("Purchase")}},
                    },
                    "responses": {
                        "201": json_answer(ref("PurchaseResult"), "Enrolled (order Complete)."),
                        "202": json_answer(
                            ref("PurchaseResult"),
                            "The order is placed but the enrollment failed; ecommerce will retry it.",
                        ),
                        "400": error(
                            "The body is not JSON (malformed_json), not an object or names no "
                            f"course (invalid_request). {BAD_REQUEST}"
                        ),
                        "401": error("Not logged in (not_authenticated)."),
                        "403": csrf_refused,
                        "406": error(
                            "No such course for sale (unknown_course), or the course has no free seat "
                            "(no_free_seat); with course_id."
                        ),
                        "409": error(
                            "Already enrolled (already_enrolled) or already bought (already_purchased)."
                        ),
                        "413": too_large(),
                        "415": error(NOT_JSON),
                        "502": error(
                            "ecommerce refused or failed (ecommerce_error, with its answer) or could "
                            "not be reached (ecommerce_unreachable)."
                        ),
                        "429": error(
                            "The learner bought too often (too_many_purchases, ecommerce's per-learner "
                            "limit).",
                            RETRY_AFTER,
                        ),
                        "503": error(
                            "ecommerce is overloaded or restarting (ecommerce_unavailable), or "
                            f"{OR_NO_DATABASE}.",
                            RETRY_AFTER,
                        ),
                        "504": error("ecommerce did not answer in time (ecommerce_timeout)."),
                    },
                }
            },
            "/api/commerce/v1/orders/{number}/": {
                "get": {
                    "operationId": "read_order",
                    "summary": "The learner reads one of their orders back (proxied to ecommerce)",
                    "security": learner,
                    "parameters": [
                        {"name": "number", "in": "path", "required": True, "schema": {"type": "string"}}
                    ],
                    "responses": {
                        "200": json_answer(ref("Order"), "The order, as ecommerce answers it."),
                        "401": error("Not logged in (not_authenticated)."),
                        "404": error("No such order, or not this learner's (ecommerce's not_found)."),
                        "502": error("ecommerce answered something else, or could not be reached."),
                        "503": error(
                            "ecommerce is overloaded or restarting (ecommerce_unavailable).", RETRY_AFTER
                        ),
                        "504": error("ecommerce did not answer in time (ecommerce_timeout)."),
                    },
                }
            },
            "/api/enrollment/v1/enrollment": {
                "get": {
                    "operationId": "list_enrollments",
                    "summary": "A user's enrollments",
                    "security": api_key,
                    "parameters": [
                        {
                            "name": "user",
                            "in": "query",
                            "required": True,
                            "schema": {"type": "string", "minLength": 1},
                        }
                    ],
                    "responses": {
                        "200": json_answer(
                            {"type": "array", "items": ref("Enrollment")},
                            "The user's enrollments, oldest first.",
                        ),
                        "400": error("No user named (invalid_request)."),
                        "403": error(API_KEY_REFUSED),
                        "503": no_database(),
                    },
                },
                "post": {
                    "operationId": "enroll",
                    "summary": "Enrol a user in a course's mode (idempotent on user and course)",
                    "security": api_key,
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": ref("EnrollmentRequest")}},
                    },
                    "responses": {
                        "200": json_answer(ref("Enrollment"), "Enrolled (or already enrolled)."),
                        "400": error(
                            "The body is not JSON (malformed_json) or a field is invalid "
                            "(invalid_request), the course is unknown (unknown_course) or has no such "
                            f"mode (unknown_mode, with modes). {BAD_REQUEST}"
                        ),
                        "403": error(API_KEY_REFUSED),
                        "413": too_large(),
                        "415": error(NOT_JSON),
                        "500": error(
                            "Injected failure (injected_error), only while /api/faults/ sets error_rate."
                        ),
                        "503": error(
                            "An injected outage (outage), only while /api/faults/ sets one, or "
                            f"{OR_NO_DATABASE}.",
                            RETRY_AFTER,
                        ),
                    },
                },
            },
            "/api/faults/": {
                "get": {
                    "operationId": "read_faults",
                    "summary": "The faults of the enrollment API",
                    "security": fault_key,
                    "responses": {
                        "200": faults_answer,
                        "403": error(FAULT_KEY_REFUSED),
                        "503": no_database(),
                    },
                },
                "put": {
                    "operationId": "set_faults",
                    "summary": "Change the faults of the enrollment API",
                    "description": "Every worker applies them within applies_within_seconds.",
                    "security": fault_key,
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": ref("FaultChanges")}},
                    },
                    "responses": {
                        "200": faults_answer,
                        "400": error(
                            "The body is not JSON (malformed_json), not an object, names an unknown "
                            f"field or a value out of range (invalid_request). {BAD_REQUEST}"
                        ),
                        "403": error(FAULT_KEY_REFUSED),
                        "413": too_large(),
                        "415": error(NOT_JSON),
                        "503": no_database(),
                    },
                },
                "delete": {
                    "operationId": "reset_faults",
                    "summary": "Return to the LMS_FAULT_* settings",
                    "security": fault_key,
                    "responses": {
                        "200": faults_answer,
                        "403": error(FAULT_KEY_REFUSED),
                        "503": no_database(),
                    },
                },
            },
            paths.PROCESSOR_PAY: {
                "post": {
                    "operationId": "processor_payment_page",
                    "summary": "The payment processor stand-in's hosted payment page",
                    "description": (
                        "The learner's browser posts a paid checkout's payment_form_data here (from "
                        "another site: no CSRF token). The signature must hold under "
                        "the stand-in's own LMS_PROCESSOR_SECRET_KEY and the access key and profile "
                        "must be this processor's; the page shows the amount, the test card and Pay "
                        "and Decline."
                    ),
                    "security": [],
                    "requestBody": {"required": True, "content": {FORM: {"schema": ref("CheckoutForm")}}},
                    "responses": {
                        "200": html("The payment page."),
                        "400": error(CHECKOUT_REFUSED),
                        "413": too_large(),
                        "415": error(NOT_FORM),
                    },
                }
            },
            paths.PROCESSOR_CONFIRM: {
                "post": {
                    "operationId": "processor_confirm_payment",
                    "summary": "Pay or decline on the payment page: ecommerce is notified",
                    "description": (
                        "The page's form: the checkout form again (verified again), card_number and "
                        "pay_action. The stand-in signs the notification (decision ACCEPT or DECLINE), "
                        "posts it to LMS_PAYMENT_NOTIFY_URL and shows the receipt with ecommerce's answer."
                    ),
                    "security": [],
                    "requestBody": {
                        "required": True,
                        "content": {FORM: {"schema": ref("PaymentConfirmation")}},
                    },
                    "responses": {
                        "200": html("The receipt: the decision, the order number and ecommerce's answer."),
                        "400": error(
                            f"{CHECKOUT_REFUSED} Or pay_action is not pay or decline (invalid_request), or "
                            "the card number is not one (invalid_card)."
                        ),
                        "413": too_large(),
                        "415": error(NOT_FORM),
                        "502": error("ecommerce could not be reached (ecommerce_unreachable)."),
                        "504": error("ecommerce did not answer in time (ecommerce_timeout)."),
                    },
                }
            },
            "/health/": {
                "get": {
                    "operationId": "health",
                    "summary": "Whether the service can reach its database",
                    "security": [],
                    "responses": {
                        "200": json_answer(ref("Health"), "The database answers."),
                        "503": error("The database does not answer (unavailable)."),
                    },
                }
            },
        },
        "components": components(),
    }
    # Load-test machinery the settings do not route is not described either (lms_stub/urls.py).
    if not settings.LMS_AUTO_AUTH:
        del described["paths"]["/auto_auth"]
    if not settings.LMS_FAULT_CONTROL:
        del described["paths"]["/api/faults/"]
    if not settings.LMS_PAYMENT_PROCESSOR:
        del described["paths"][paths.PROCESSOR_PAY]
        del described["paths"][paths.PROCESSOR_CONFIRM]
    return described
