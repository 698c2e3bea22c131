"""Health, the OpenAPI document, and the JSON answers for errors Django raises before a view
runs."""

from django.db import connection, transaction
from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt

from lms_stub.http import allow_methods, error
from lms_stub.openapi import document


@csrf_exempt  # it changes nothing, so an unsafe method gets a 405, not a CSRF refusal
@transaction.non_atomic_requests
@allow_methods("GET")
def health(request):
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception:  # any database failure means "not healthy"
        return error(503, "unavailable", "The database cannot be reached.")
    return JsonResponse({"status": "ok", "database": "ok"})


@csrf_exempt
@transaction.non_atomic_requests
@allow_methods("GET")
def schema(request):
    """GET /api/schema/ — the OpenAPI 3 document of this service (lms_stub/openapi.py)."""
    return JsonResponse(document())


def bad_request(request, exception=None):
    return error(400, "bad_request", "The request could not be read.")


def forbidden(request, exception=None):
    return error(403, "permission_denied", "Not allowed.")


def not_found(request, exception=None):
    return error(404, "not_found", "No such resource.")


def server_error(request):
    return error(500, "server_error", "The server failed to answer this request.")


def csrf_failure(request, reason=""):
    return error(
        403, "csrf_failed", f"CSRF check failed ({reason}). Send the csrftoken cookie's value as X-CSRFToken."
    )
