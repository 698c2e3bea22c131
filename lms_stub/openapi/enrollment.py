"""The enrollment API in lms_stub's OpenAPI document: what ecommerce (holding X-Edx-Api-Key)
calls to list and to make a user's enrollments; /api/faults/ can slow or break the POST."""

from lms_stub.openapi.answers import (
    BAD_REQUEST,
    NOT_JSON,
    OR_NO_DATABASE,
    RETRY_AFTER,
    error,
    json_answer,
    no_database,
    ref,
    too_large,
)

API_KEY = [{"apiKey": []}]
API_KEY_REFUSED = "No or a wrong X-Edx-Api-Key (invalid_api_key)."


def paths() -> dict:
    return {"/api/enrollment/v1/enrollment": {"get": _list_enrollments(), "post": _enroll()}}


def _list_enrollments() -> dict:
    return {
        "operationId": "list_enrollments",
        "summary": "A user's enrollments",
        "security": API_KEY,
        "parameters": [
            {"name": "user", "in": "query", "required": True, "schema": {"type": "string", "minLength": 1}}
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
    }


def _enroll() -> dict:
    return {
        "operationId": "enroll",
        "summary": "Enrol a user in a course's mode (idempotent on user and course)",
        "security": API_KEY,
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
            "500": error("Injected failure (injected_error), only while /api/faults/ sets error_rate."),
            "503": error(
                f"An injected outage (outage), only while /api/faults/ sets one, or {OR_NO_DATABASE}.",
                RETRY_AFTER,
            ),
        },
    }
