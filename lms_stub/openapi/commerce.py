"""The commerce endpoints in lms_stub's OpenAPI document: the learner buys a seat (the LMS asks
ecommerce for the order) and reads an order back, both for a logged-in learner."""

from lms_stub.openapi.answers import (
    BAD_REQUEST,
    NOT_JSON,
    OR_NO_DATABASE,
    RETRY_AFTER,
    error,
    json_answer,
    ref,
    too_large,
)


def paths() -> dict:
    return {
        "/api/commerce/v0/baskets/": {"post": _buy_course()},
        "/api/commerce/v1/orders/{number}/": {"get": _read_order()},
    }


def _buy_course() -> dict:
    csrf_refused = error(
        "No CSRF cookie, or an X-CSRFToken that does not match it (csrf_failed); checked before the session."
    )
    return {
        "operationId": "buy_course",
        "summary": "The learner buys a course's seat (ecommerce places and fulfils the order)",
        "security": [{"session": [], "csrfCookie": [], "csrfHeader": []}],
        "requestBody": {"required": True, "content": {"application/json": {"schema": ref("Purchase")}}},
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
            "409": error("Already enrolled (already_enrolled) or already bought (already_purchased)."),
            "413": too_large(),
            "415": error(NOT_JSON),
            "502": error(
                "ecommerce refused or failed (ecommerce_error, with its answer) or could "
                "not be reached (ecommerce_unreachable)."
            ),
            "429": error(
                "The learner bought too often (too_many_purchases, ecommerce's per-learner limit).",
                RETRY_AFTER,
            ),
            "503": error(
                f"ecommerce is overloaded or restarting (ecommerce_unavailable), or {OR_NO_DATABASE}.",
                RETRY_AFTER,
            ),
            "504": error("ecommerce did not answer in time (ecommerce_timeout)."),
        },
    }


def _read_order() -> dict:
    return {
        "operationId": "read_order",
        "summary": "The learner reads one of their orders back (proxied to ecommerce)",
        "security": [{"session": []}],
        "parameters": [{"name": "number", "in": "path", "required": True, "schema": {"type": "string"}}],
        "responses": {
            "200": json_answer(ref("Order"), "The order, as ecommerce answers it."),
            "401": error("Not logged in (not_authenticated)."),
            "404": error("No such order, or not this learner's (ecommerce's not_found)."),
            "502": error("ecommerce answered something else, or could not be reached."),
            "503": error("ecommerce is overloaded or restarting (ecommerce_unavailable).", RETRY_AFTER),
            "504": error("ecommerce did not answer in time (ecommerce_timeout)."),
        },
    }
