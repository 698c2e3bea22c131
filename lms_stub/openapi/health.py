"""/health/ in lms_stub's OpenAPI document: whether the service reaches its database."""

from lms_stub.openapi.answers import error, json_answer, ref


def paths() -> dict:
    return {
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
    }
