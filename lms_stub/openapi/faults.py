"""The fault API in lms_stub's OpenAPI document: read, change and reset the faults of the
enrollment API, under the fault API's own key (X-Fault-Api-Key)."""

from lms_stub.openapi.answers import BAD_REQUEST, NOT_JSON, error, json_answer, no_database, ref, too_large

FAULT_KEY = [{"faultApiKey": []}]
FAULT_KEY_REFUSED = "No or a wrong X-Fault-Api-Key (invalid_api_key)."


def paths() -> dict:
    return {"/api/faults/": {"get": _read_faults(), "put": _set_faults(), "delete": _reset_faults()}}


def _faults_answer() -> dict:
    return json_answer(ref("Faults"), "The faults in force.")


def _read_faults() -> dict:
    return {
        "operationId": "read_faults",
        "summary": "The faults of the enrollment API",
        "security": FAULT_KEY,
        "responses": {"200": _faults_answer(), "403": error(FAULT_KEY_REFUSED), "503": no_database()},
    }


def _set_faults() -> dict:
    return {
        "operationId": "set_faults",
        "summary": "Change the faults of the enrollment API",
        "description": "Every worker applies them within applies_within_seconds.",
        "security": FAULT_KEY,
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": ref("FaultChanges")}},
        },
        "responses": {
            "200": _faults_answer(),
            "400": error(
                "The body is not JSON (malformed_json), not an object, names an unknown "
                f"field or a value out of range (invalid_request). {BAD_REQUEST}"
            ),
            "403": error(FAULT_KEY_REFUSED),
            "413": too_large(),
            "415": error(NOT_JSON),
            "503": no_database(),
        },
    }


def _reset_faults() -> dict:
    return {
        "operationId": "reset_faults",
        "summary": "Return to the LMS_FAULT_* settings",
        "security": FAULT_KEY,
        "responses": {"200": _faults_answer(), "403": error(FAULT_KEY_REFUSED), "503": no_database()},
    }
