"""What the OpenAPI schema (drf-spectacular, served at /api/v2/schema/) says about the whole
API: the one error shape, the JWT scheme, and the view that serves the document.

The API validates by hand (no serializers), so its shapes are written as JSON Schema beside
the code they describe and registered as components by the postprocessing hooks named in
SPECTACULAR_SETTINGS. tests/schema fuzzes the running service against the result.
"""

from django.db import transaction
from django.utils.decorators import method_decorator
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.renderers import OpenApiJsonRenderer
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from drf_spectacular.views import SpectacularAPIView
from rest_framework import permissions

from common.contract import errors as contract_errors

ERROR_REF = {"$ref": "#/components/schemas/Error"}


RETRY_AFTER = OpenApiParameter(
    "Retry-After",
    {"type": "string", "pattern": "^[0-9]+$"},
    OpenApiParameter.HEADER,
    description="Seconds to wait before retrying.",
    response=[409, 429, 503],
)
WWW_AUTHENTICATE = OpenApiParameter(
    "WWW-Authenticate",
    str,
    OpenApiParameter.HEADER,
    description='How to authenticate: JWT realm="api".',
    response=[401],
)

# The error answers each endpoint can give, by status; the views pick theirs with errors().
ERRORS = {
    400: "Invalid input (invalid_request, with fields), a body that is not JSON (malformed_json) "
    "or a request Django could not read (bad_request).",
    401: "No token, or a token that is expired, forged, from another issuer or names an invalid "
    "learner (not_authenticated, authentication_failed).",
    403: "Authenticated but not allowed (permission_denied).",
    404: "No such resource (not_found).",
    406: "The Accept header allows no JSON answer (not_acceptable).",
    409: "Conflict.",
    413: "The body is larger than the limit (body_too_large, 64 KiB by default).",
    415: "The body is not application/json (unsupported_media_type).",
    422: "Unprocessable.",
    429: "Too many purchases by this learner in the period (throttled, ECOMMERCE_LEARNER_RATE); "
    "retry after Retry-After seconds.",
    503: "The database cannot be reached or no pooled connection was free in time "
    "(database_unavailable, pool_exhausted); retry after Retry-After seconds.",
}


def errors(*statuses: int, described: dict[int, str] | None = None) -> dict:
    """Error responses for ``statuses``, each in the Error shape; ``described`` replaces the
    general description of a status with what it means for one endpoint."""
    described = described or {}
    return {status: OpenApiResponse(ERROR_REF, described.get(status, ERRORS[status])) for status in statuses}


def add_error_component(result, generator, request, public):
    """drf-spectacular postprocessing hook: register the Error component."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = contract_errors.SCHEMA
    return result


class JwtAuthenticationScheme(OpenApiAuthenticationExtension):
    """The learner tokens of ecommerce.core.auth, as drf-spectacular's security scheme."""

    target_class = "ecommerce.core.auth.JwtAuthentication"
    name = "jwtAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": (
                'A learner token signed by the LMS, sent as "Authorization: JWT <token>" (the keyword '
                "is JWT, not Bearer): HS256, claims username, email, exp (at most "
                "JWT_MAX_LIFETIME_SECONDS ahead) and iss (equal to JWT_ISSUER). A staff account is "
                "reached only by a token signed with STAFF_JWT_SECRET_KEY, never the learners' key."
            ),
        }


@method_decorator(transaction.non_atomic_requests, name="dispatch")
class SchemaView(SpectacularAPIView):
    """GET /api/v2/schema/ — the OpenAPI 3 document of this API, as JSON, for anyone."""

    renderer_classes = [OpenApiJsonRenderer]
    authentication_classes = []
    permission_classes = [permissions.AllowAny]
