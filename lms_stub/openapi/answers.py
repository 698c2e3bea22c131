"""The pieces the areas of lms_stub's OpenAPI document share: references to components, the
JSON, error and HTML answers, and the wording of the refusals every area can give."""

from django.conf import settings


def ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def json_answer(schema: dict, description: str, headers: dict | None = None) -> dict:
    response = {"description": description, "content": {"application/json": {"schema": schema}}}
    if headers:
        response["headers"] = headers
    return response


def error(description: str, headers: dict | None = None) -> dict:
    return json_answer(ref("Error"), description, headers)


def html(description: str) -> dict:
    return {"description": description, "content": {"text/html": {"schema": {"type": "string"}}}}


RETRY_AFTER = {"Retry-After": {"schema": {"type": "string"}, "description": "Seconds to wait."}}
NO_DATABASE = "The database cannot be reached or no pooled connection was free in time (database_unavailable)"
# NO_DATABASE as the second half of a sentence: "X, or the database cannot be reached ...".
OR_NO_DATABASE = f"{NO_DATABASE[0].lower()}{NO_DATABASE[1:]}"

BAD_REQUEST = "The request could not be read (bad_request), e.g. a form body over the size limit."
NOT_JSON = "The body is not application/json (unsupported_media_type)."


def no_database() -> dict:
    return error(f"{NO_DATABASE}; retry after Retry-After seconds.", RETRY_AFTER)


def too_large() -> dict:
    # Read at each call: the document says what the running settings take.
    return error(f"The body is over {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes (body_too_large).")
