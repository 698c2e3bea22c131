from django.db import connection, transaction
from django.http import JsonResponse
from django.views.decorators.http import require_GET


@transaction.non_atomic_requests
@require_GET
def health(request):
    """GET /health/ — 200 when the service can reach its database, 503 otherwise."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as exc:  # any database failure means "not healthy"
        return JsonResponse(
            {"status": "unavailable", "database": "error", "message": str(exc)[:200]}, status=503
        )
    return JsonResponse({"status": "ok", "database": "ok"})
