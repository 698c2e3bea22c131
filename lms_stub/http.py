"""What every lms_stub endpoint shares: JSON in, JSON errors out, the API key check.

Errors have the same shape as ecommerce's: {"error": code, "message": sentence, ...}.
"""

import functools
import hmac

from django.conf import settings
from django.http import JsonResponse

from common import strict_json
from common.contract import errors as contract


class BadRequest(Exception):
    def __init__(self, message: str, code: str = "invalid_request", status: int = 400):
        super().__init__(message)
        self.message, self.code, self.status = message, code, status


def error(status: int, code: str, message: str, **extra) -> JsonResponse:
    return JsonResponse(contract.body(code, message, **extra), status=status)


def json_body(request) -> dict:
    """The request's JSON object, or BadRequest with the reason."""
    if request.content_type != "application/json":
        raise BadRequest("Send the body as application/json.", "unsupported_media_type", 415)
    try:
        data = strict_json.loads(request.body or b"null")
    except strict_json.NotJson as exc:
        raise BadRequest(contract.not_json(str(exc)), contract.MALFORMED_JSON) from None
    if not isinstance(data, dict):
        raise BadRequest("The body must be a JSON object.")
    return data


def allow_methods(*methods: str):
    """Like Django's require_http_methods, but the 405 is in the JSON error shape (with the
    Allow header HTTP asks for)."""
    allowed = [method.upper() for method in methods]

    def decorator(view):
        @functools.wraps(view)
        def wrapper(request, *args, **kwargs):
            if request.method not in allowed:
                response = error(405, "method_not_allowed", f"Method {request.method} is not allowed here.")
                response["Allow"] = ", ".join(allowed)
                return response
            return view(request, *args, **kwargs)

        return wrapper

    return decorator


def api_view(view):
    """Turn BadRequest and oversized bodies into JSON errors."""

    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except BadRequest as exc:
            return error(exc.status, exc.code, exc.message)
        except Exception as exc:
            from django.core.exceptions import RequestDataTooBig

            if isinstance(exc, RequestDataTooBig):
                return error(413, "body_too_large", "The request body is too large.")
            raise

    return wrapper


def _key_check(header: str, setting: str):
    """A view decorator: callers must send ``header`` with the key of ``setting`` (compared in
    constant time, read at each request)."""
    meta = "HTTP_" + header.upper().replace("-", "_")

    def decorator(view):
        @functools.wraps(view)
        def wrapper(request, *args, **kwargs):
            sent = request.META.get(meta, "")
            if not sent or not hmac.compare_digest(sent.encode(), getattr(settings, setting).encode()):
                return error(403, "invalid_api_key", f"Send a valid {header} header.")
            return view(request, *args, **kwargs)

        return wrapper

    return decorator


# The enrollment API's callers (ecommerce) send X-Edx-Api-Key; the fault API takes its own key,
# so the enrollment key cannot slow or break the enrollment API.
require_api_key = _key_check("X-Edx-Api-Key", "EDX_API_KEY")
require_fault_api_key = _key_check("X-Fault-Api-Key", "LMS_FAULT_API_KEY")


class DatabaseUnavailableMiddleware:
    """A view that cannot reach the database (MariaDB restarting, the pool exhausted) answers
    503 in the JSON error shape with Retry-After, not a bare 500: the caller may retry."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        from django.db import InterfaceError, OperationalError

        from common.dbpool import PoolExhausted

        if isinstance(exception, (OperationalError, InterfaceError, PoolExhausted)):
            unavailable = contract.DATABASE_UNAVAILABLE
            response = error(unavailable.status, unavailable.code, unavailable.message)
            response["Retry-After"] = contract.RETRY_AFTER_SECONDS
            return response
        return None
