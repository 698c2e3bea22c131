"""Health, the OpenAPI document, and the JSON answers for errors Django raises before a view
runs."""

from django.db import transaction
from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt

from common.contract import errors as contract
from common.contract import health as contract_health
from common.database import unreachable
from lms_stub.http import allow_methods, error
from lms_stub.openapi import document


@csrf_exempt  # it changes nothing, so an unsafe method gets a 405, not a CSRF refusal
@transaction.non_atomic_requests
@allow_methods("GET")
def health(request):
    reason = unreachable()
    if reason is not None:
        return JsonResponse(contract_health.unhealthy(), status=503)
    return JsonResponse(contract_health.HEALTHY)


@csrf_exempt
@transaction.non_atomic_requests
@allow_methods("GET")
def schema(request):
    """GET /api/schema/ — the OpenAPI 3 document of this service (lms_stub/openapi/)."""
    return JsonResponse(document())


def bad_request(request, exception=None):
    return error(contract.BAD_REQUEST.status, contract.BAD_REQUEST.code, contract.BAD_REQUEST.message)


def forbidden(request, exception=None):
    denied = contract.PERMISSION_DENIED
    return error(denied.status, denied.code, denied.message)


def not_found(request, exception=None):
    return error(contract.NOT_FOUND.status, contract.NOT_FOUND.code, contract.NOT_FOUND.message)


def server_error(request):
    failed = contract.SERVER_ERROR
    return error(failed.status, failed.code, failed.message)


def csrf_failure(request, reason=""):
    return error(
        403, "csrf_failed", f"CSRF check failed ({reason}). Send the csrftoken cookie's value as X-CSRFToken."
    )
