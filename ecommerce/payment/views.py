"""The payment endpoints: the processors a learner may pay through (the order API, JWT), and
the notify URL a processor posts to (the processor's interface, not the API).

The notify view is plain Django, not DRF: the processor posts a form, authenticates by the
signature inside it and by nothing else, and sends no CSRF token. An ``Authorization`` header
(edX's 2015 load client sends its learner's JWT with every request) is never read. Its
transactions are its own (ecommerce.payment.notifications), and the LMS is called with none
open, so it does not run in ATOMIC_REQUESTS' transaction.
"""

import logging

from django.conf import settings
from django.core.exceptions import TooManyFieldsSent
from django.db import InterfaceError, OperationalError, transaction
from django.http import HttpResponse, JsonResponse, QueryDict
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import csrf_exempt
from rest_framework.response import Response
from rest_framework.views import APIView

from common.contract import errors as contract
from common.dbpool import PoolExhausted
from ecommerce.fulfillment.api import fulfil
from ecommerce.payment import notifications, openapi, processors

logger = logging.getLogger(__name__)

# A processor posts a plain form; multipart never reaches a parser (Django would spool its file
# parts outside DATA_UPLOAD_MAX_MEMORY_SIZE).
FORM_TYPE = "application/x-www-form-urlencoded"


@method_decorator(transaction.non_atomic_requests, name="dispatch")
class ProcessorListView(APIView):
    """GET /api/v2/payment/processors/ — the names of the processors a basket may be paid
    through, the default first (Otto answered the same list to render payment buttons)."""

    @openapi.list_processors
    def get(self, request):
        return Response(processors.names())


class Unreadable(Exception):
    """A notify request whose form cannot be read as one notification."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@csrf_exempt
@transaction.non_atomic_requests
def notify(request, processor: str):
    """POST /payment/<processor>/notify/ — a processor's signed notification of a payment.

    200 with an empty body when it is taken (an order placed, a replay, a decline, a refund
    owed: the processor has nothing to send again); 400 in the JSON error shape when it is
    refused. Every notification that reaches a known processor is recorded.
    """
    if request.method != "POST":
        response = _error(405, "method_not_allowed", f"Method {request.method} is not allowed here.")
        response["Allow"] = "POST"
        return response
    found = processors.find(processor)
    if found is None:
        return _error(404, contract.NOT_FOUND.code, f"No payment processor {processor[:64]!r}.")
    raw, size = _bounded_body(request)
    body = notifications.Body(size, "") if raw is None else notifications.Body.of(raw)  # too large: unread
    try:
        fields = _form_fields(request, raw)
    except Unreadable as unreadable:
        notifications.record_unreadable(found.name, body)
        return _error(unreadable.status, unreadable.code, unreadable.message)
    try:
        outcome = notifications.receive(found, fields, body)
    except (OperationalError, InterfaceError, PoolExhausted):
        logger.warning("notification not handled: the database is unavailable", exc_info=True)
        notifications.record_failure(found.name, fields, body)
        unavailable = contract.DATABASE_UNAVAILABLE
        response = _error(unavailable.status, unavailable.code, unavailable.message)
        response["Retry-After"] = contract.RETRY_AFTER_SECONDS
        return response
    except Exception:
        notifications.record_failure(found.name, fields, body)
        raise
    if outcome.order is not None:
        fulfil(outcome.order, outcome.lines)  # committed: the LMS is called with no transaction open
    if outcome.status >= 400:
        return _error(outcome.status, outcome.code, outcome.message, outcome=outcome.outcome)
    return HttpResponse(status=200, content_type="text/plain")


def _bounded_body(request) -> tuple[bytes | None, int]:
    """The request's body, read before Django parses anything, and its size; None when it is over
    the limit, by its Content-Length (then unread) or by the bytes actually read (at most one past
    the limit)."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    if declared > limit:
        return None, declared
    raw = request.read(limit + 1)
    return (None if len(raw) > limit else raw), len(raw)


def _form_fields(request, raw: bytes | None) -> dict[str, str]:
    """The POSTed form as one value per name, or Unreadable: over the size limit whatever its
    type (413), not a URL-encoded form (415), too many fields or a field twice (400)."""
    if raw is None:
        raise Unreadable(413, "body_too_large", "The notification is larger than the limit.")
    if request.content_type != FORM_TYPE:
        raise Unreadable(415, "unsupported_media_type", f"Send the notification as {FORM_TYPE}.")
    try:
        form = QueryDict(raw, encoding=request.encoding or settings.DEFAULT_CHARSET)
    except TooManyFieldsSent:
        raise Unreadable(
            400, contract.INVALID_NOTIFICATION, "The notification has too many fields."
        ) from None
    repeated = sorted(name for name, values in form.lists() if len(values) > 1)
    if repeated:
        raise Unreadable(
            400,
            contract.INVALID_NOTIFICATION,
            f"Fields given more than once: {', '.join(repeated)[:200]}.",
        )
    return form.dict()


def _error(status: int, code: str, message: str, **extra) -> JsonResponse:
    return JsonResponse(contract.body(code, message, **extra), status=status)
