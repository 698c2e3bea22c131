"""What both services' OpenAPI documents must say alike."""

ERROR_REF = {"$ref": "#/components/schemas/Error"}


def errors_not_in_the_error_shape(document: dict) -> list[tuple[str, str, str]]:
    """(method, path, status) of every 4xx or 5xx answer whose schema is not the Error shape."""
    return [
        (method, path, status)
        for path, operations in document["paths"].items()
        for method, operation in operations.items()
        for status, response in operation["responses"].items()
        if int(status) >= 400 and response["content"]["application/json"]["schema"] != ERROR_REF
    ]
