"""The order API's answers that are not a success, all in the one JSON error shape of
common.contract.errors (with its shared codes and messages)."""

import logging

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError, connections
from django.http import Http404, JsonResponse
from rest_framework import exceptions
from rest_framework.response import Response

from common.contract import errors as contract
from common.dbpool import PoolExhausted

logger = logging.getLogger(__name__)


class ApiError(exceptions.APIException):
    """An error the API answers on purpose: a status, a code and a sentence."""

    def __init__(self, status_code: int, code: str, message: str, headers=None, **extra):
        super().__init__(detail=message, code=code)
        self.status_code = status_code
        self.code = code
        self.message = message
        self.headers = headers or {}
        self.extra = extra


# DRF's own exceptions, by class, mapped to our codes.
_CODES = {
    exceptions.ParseError: "malformed_json",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "authentication_failed",
    exceptions.PermissionDenied: "permission_denied",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.Throttled: "throttled",
}


error_body = contract.body


def _flatten(detail, prefix="") -> dict[str, list[str]]:
    """Turn DRF's nested validation detail into {"products.0.sku": ["..."]}."""
    if isinstance(detail, dict):
        flat = {}
        for key, value in detail.items():
            name = str(key) if key != "non_field_errors" else ""
            flat.update(_flatten(value, f"{prefix}.{name}" if prefix and name else prefix or name))
        return flat
    if isinstance(detail, list) and detail and all(not isinstance(i, (dict, list)) for i in detail):
        return {prefix or "request": [str(item) for item in detail]}
    if isinstance(detail, list):
        flat = {}
        for index, value in enumerate(detail):
            if value:
                flat.update(_flatten(value, f"{prefix}.{index}" if prefix else str(index)))
        return flat
    return {prefix or "request": [str(detail)]}


def exception_handler(exc, context):
    """DRF's EXCEPTION_HANDLER: every handled error in the one shape, with the right status."""
    if isinstance(exc, PoolExhausted):
        exc = ApiError(
            503,
            contract.POOL_EXHAUSTED,
            "The service is busy; retry shortly.",
            headers={"Retry-After": contract.RETRY_AFTER_SECONDS},
        )
    elif isinstance(exc, (OperationalError, InterfaceError)):
        logger.warning("database unavailable: %s", exc)
        unavailable = contract.DATABASE_UNAVAILABLE
        exc = ApiError(
            unavailable.status,
            unavailable.code,
            unavailable.message,
            headers={"Retry-After": contract.RETRY_AFTER_SECONDS},
        )
    elif isinstance(exc, RequestDataTooBig):
        exc = ApiError(
            413, "body_too_large", f"The body is larger than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes."
        )
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()

    if isinstance(exc, ApiError):
        body = error_body(exc.code, exc.message, **exc.extra)
        headers = dict(exc.headers)
    elif isinstance(exc, exceptions.ValidationError):
        fields = _flatten(exc.detail)
        first = next(iter(fields.values()))[0] if fields else "The request is not valid."
        body = error_body("invalid_request", first, fields)
        headers = {}
    elif isinstance(exc, exceptions.APIException):
        code = _CODES.get(type(exc)) or next(
            (c for klass, c in _CODES.items() if isinstance(exc, klass)), "error"
        )
        body = error_body(code, str(exc.detail))
        headers = {}
        if getattr(exc, "auth_header", None):
            headers["WWW-Authenticate"] = exc.auth_header
        if getattr(exc, "wait", None):
            headers["Retry-After"] = str(int(exc.wait))
    else:
        return None  # a bug: Django's handler500 answers it

    _roll_back_request_transaction(context.get("view"))
    return Response(body, status=exc.status_code, headers=headers)


def _roll_back_request_transaction(view) -> None:
    """Undo the ATOMIC_REQUESTS transaction of a failed request, as DRF does, but only where
    the view runs in one: views marked non_atomic_requests manage their own transactions."""
    skip = getattr(getattr(type(view), "dispatch", None), "_non_atomic_requests", set())
    for db in connections.all():
        if db.alias not in skip and db.settings_dict["ATOMIC_REQUESTS"] and db.in_atomic_block:
            db.set_rollback(True)


def _wants_json(request) -> bool:
    return request.path.startswith(("/api/", "/health", "/payment/"))


def handler404(request, exception=None):
    if _wants_json(request):
        return JsonResponse(contract.NOT_FOUND.body(), status=contract.NOT_FOUND.status)
    from django.views.defaults import page_not_found

    return page_not_found(request, exception)


def handler500(request):
    if _wants_json(request):
        return JsonResponse(contract.SERVER_ERROR.body(), status=contract.SERVER_ERROR.status)
    from django.views.defaults import server_error

    return server_error(request)


def handler400(request, exception=None):
    return JsonResponse(contract.BAD_REQUEST.body(), status=contract.BAD_REQUEST.status)


def handler403(request, exception=None):
    if _wants_json(request):
        return JsonResponse(contract.PERMISSION_DENIED.body(), status=contract.PERMISSION_DENIED.status)
    from django.views.defaults import permission_denied

    return permission_denied(request, exception)
