"""/auto_auth in lms_stub's OpenAPI document: the page that makes and logs in a learner, for
GET and POST alike, held to the limits of lms_stub/learners/views.py."""

from lms_stub.learners.views import EMAIL_PATTERN, MAX_EMAIL, MAX_PASSWORD
from lms_stub.openapi.answers import error, json_answer, no_database, ref


def paths() -> dict:
    query = _query()
    answers = _answers()
    return {
        "/auto_auth": {
            "get": {
                "operationId": "auto_auth",
                "summary": "Log a learner in, creating it first",
                "description": (
                    "Without a query, a fresh learner with a random name and password. Sets the "
                    "session and csrftoken cookies."
                ),
                "security": [],
                "parameters": query,
                "responses": answers,
            },
            "post": {
                "operationId": "auto_auth_post",
                "summary": "The same as GET (any body is ignored)",
                "security": [],
                "parameters": query,
                "responses": answers,
            },
        },
    }


def _query() -> list[dict]:
    return [
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


def _answers() -> dict:
    return {
        "200": json_answer(ref("Learner"), "The learner existed and gave its password: logged in."),
        "201": json_answer(ref("Learner"), "A new learner, logged in."),
        "400": error("A username, email or password this service cannot take (invalid_request)."),
        "403": error("The learner exists and the password is missing or wrong (invalid_credentials)."),
        "503": no_database(),
    }
