from django.db import connection, transaction
from django.utils.decorators import method_decorator
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import permissions
from rest_framework.response import Response
from rest_framework.views import APIView

from ecommerce.core.errors import error_body
from ecommerce.core.openapi import ERROR_REF, errors

HEALTHY = {
    "type": "object",
    "required": ["status", "database"],
    "properties": {
        "status": {"type": "string", "enum": ["ok"]},
        "database": {"type": "string", "enum": ["ok"]},
    },
    "additionalProperties": False,
}


@method_decorator(transaction.non_atomic_requests, name="dispatch")
class HealthView(APIView):
    """GET /health/ — 200 when the service can reach its database, 503 otherwise. Open to
    anyone: a load balancer sends no token (and a bad one must not make it look down)."""

    authentication_classes = []
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        operation_id="health",
        summary="Whether the service can reach its database",
        responses={
            200: OpenApiResponse(HEALTHY, "The database answers."),
            503: OpenApiResponse(
                ERROR_REF, 'The database does not answer (error "unavailable", status "unavailable").'
            ),
            **errors(406),
        },
    )
    def get(self, request):
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
        except Exception as exc:  # any database failure means "not healthy"
            body = error_body(
                "unavailable",
                f"The database cannot be reached: {str(exc)[:200]}",
                status="unavailable",
                database="error",
            )
            return Response(body, status=503)
        return Response({"status": "ok", "database": "ok"})


health = HealthView.as_view()
