from django.db import transaction
from django.utils.decorators import method_decorator
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import permissions
from rest_framework.response import Response
from rest_framework.views import APIView

from common.contract import health as contract_health
from common.database import unreachable
from ecommerce.core.openapi import ERROR_REF, errors


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
            200: OpenApiResponse(contract_health.SCHEMA, "The database answers."),
            503: OpenApiResponse(
                ERROR_REF, 'The database does not answer (error "unavailable", status "unavailable").'
            ),
            **errors(406),
        },
    )
    def get(self, request):
        reason = unreachable()
        if reason is not None:
            return Response(contract_health.unhealthy(), status=503)
        return Response(contract_health.HEALTHY)


health = HealthView.as_view()
