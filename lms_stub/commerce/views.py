"""POST /api/commerce/v0/baskets/ — the learner takes a course's free (honor) seat, as edX's
LMS did: ecommerce places and fulfils the order at once. Paid seats are bought from ecommerce
directly, through the payment processor.

    406 unknown course, or one with no free seat       409 already enrolled (or already bought)
    429 the learner bought too often (ecommerce's per-learner limit)
    201 order Complete       202 order placed, enrollment failed (ecommerce will retry it)
    502 ecommerce refused or failed    503 ecommerce overloaded    504 ecommerce too slow

Never a bare 500: every ecommerce outcome is mapped to a status and a JSON body that says it.
"""

from django.db import connection, transaction
from django.http import JsonResponse

from common import dbpool, http_client
from common.contract import errors as contract
from common.contract import paths
from common.contract.courses import FREE_MODE
from lms_stub.commerce import ecommerce_client
from lms_stub.enrollment.models import Enrollment
from lms_stub.enrollment.views import known_courses
from lms_stub.http import BadRequest, allow_methods, api_view, error, json_body


@transaction.non_atomic_requests
@allow_methods("POST")
@api_view
def baskets(request):
    if not request.user.is_authenticated:
        return error(401, "not_authenticated", "Log in first (GET /auto_auth).")
    data = json_body(request)
    course_id = data.get("course_id")
    if not isinstance(course_id, str) or not course_id:
        raise BadRequest("'course_id' must name a course.")
    seats = known_courses().get(course_id)
    if not seats:
        return error(406, "unknown_course", f"No course {course_id!r} is for sale.", course_id=course_id)
    seat = seats.get(FREE_MODE)
    if seat is None:
        return error(
            406,
            "no_free_seat",
            f"Course {course_id!r} has no free seat; buy it from ecommerce.",
            course_id=course_id,
        )
    if _enrolled(request.user.username, course_id):
        return error(409, "already_enrolled", f"Already enrolled in {course_id}.", course_id=course_id)

    dbpool.release()  # no pooled connection is held while ecommerce works (it calls us back)
    try:
        response = ecommerce_client.create_order(request.user, seat.sku)
    except http_client.Timeout:
        return error(504, "ecommerce_timeout", "ecommerce did not answer in time.", course_id=course_id)
    except http_client.RequestError as exc:
        return error(502, "ecommerce_unreachable", f"ecommerce could not be reached: {exc}.")
    return _answer(response, course_id)


@transaction.non_atomic_requests
@allow_methods("GET")
@api_view
def order(request, number: str):
    """GET /api/commerce/v1/orders/<number>/ — the learner reads one of their orders back
    (edX's LMS proxied ecommerce the same way)."""
    if not request.user.is_authenticated:
        return error(401, "not_authenticated", "Log in first (GET /auto_auth).")
    if not paths.can_be_segment(number):  # no order's number, and no URL of ecommerce can carry it
        return error(contract.NOT_FOUND.status, contract.NOT_FOUND.code, contract.NOT_FOUND.message)
    dbpool.release()
    try:
        response = ecommerce_client.read_order(request.user, number)
    except http_client.Timeout:
        return error(504, "ecommerce_timeout", "ecommerce did not answer in time.")
    except http_client.RequestError as exc:
        return error(502, "ecommerce_unreachable", f"ecommerce could not be reached: {exc}.")
    return _read_answer(response)


# Composed once rather than by the ORM at every purchase (about 0.5 ms of CPU each time).
_ENROLLED = (
    f"SELECT 1 FROM {Enrollment._meta.db_table} WHERE `user` = %s AND course_id = %s AND is_active LIMIT 1"
)


def _enrolled(username: str, course_id: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(_ENROLLED, [username, course_id])
        return cursor.fetchone() is not None


def _read_answer(response):
    """ecommerce's answer to an order read: the order or its 404 as they are, a 503 as a 503
    (the caller may retry), anything else as a 502."""
    if response.status_code in (200, 404):
        try:
            return JsonResponse(response.json(), status=response.status_code)
        except ValueError:
            pass
    if response.status_code == 503:
        return _unavailable(response)
    return error(502, "ecommerce_error", f"ecommerce answered {response.status_code}.")


def _unavailable(response):
    try:
        detail = response.json()
    except ValueError:
        detail = {"status": 503}
    answer = error(
        503, "ecommerce_unavailable", "ecommerce is overloaded or restarting; retry later.", ecommerce=detail
    )
    answer["Retry-After"] = response.headers.get("Retry-After", "1")
    return answer


def _answer(response, course_id: str):
    try:
        body = response.json()
    except ValueError:
        body = None
    status = response.status_code
    if status == 201 and isinstance(body, dict) and isinstance(body.get("order"), dict):
        order = body["order"]
        if order.get("status") == "Complete":
            return JsonResponse({"course_id": course_id, "enrolled": True, "order": order}, status=201)
        return JsonResponse(
            {
                "course_id": course_id,
                "enrolled": False,
                "message": "The order is placed; the enrollment failed and will be retried.",
                "order": order,
            },
            status=202,
        )
    detail = body if isinstance(body, dict) else {"status": status}
    if status == 409:
        return error(
            409,
            contract.ALREADY_PURCHASED,
            "This seat was already bought.",
            course_id=course_id,
            ecommerce=detail,
        )
    if status == 503:
        return _unavailable(response)
    if status == 429:
        answer = error(
            429, "too_many_purchases", "Too many purchases for this learner; retry later.", ecommerce=detail
        )
        answer["Retry-After"] = response.headers.get("Retry-After", "60")
        return answer
    return error(
        502, "ecommerce_error", f"ecommerce answered {status}.", course_id=course_id, ecommerce=detail
    )
