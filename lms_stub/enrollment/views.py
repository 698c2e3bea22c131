import functools

from django.conf import settings
from django.db import connection, transaction
from django.http import JsonResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt

from common.contract.courses import seats_by_course
from lms_stub.enrollment.models import Enrollment
from lms_stub.faults.injection import injected_fault
from lms_stub.http import BadRequest, allow_methods, api_view, error, json_body, require_api_key

_UPSERT = (
    "INSERT INTO enrollment_enrollment (user, course_id, mode, is_active, created) "
    "VALUES (%s, %s, %s, %s, %s) "
    "ON DUPLICATE KEY UPDATE mode = VALUES(mode), is_active = VALUES(is_active)"
)


@functools.cache
def known_courses() -> dict:
    """course id -> mode -> seat, from the one catalogue definition ecommerce seeds from."""
    return seats_by_course(settings.CATALOG_COURSES)


@csrf_exempt
@transaction.non_atomic_requests
@allow_methods("GET", "POST")
@api_view
@require_api_key
def enrollment(request):
    """POST /api/enrollment/v1/enrollment — enrol a user (idempotent on user and course).
    GET /api/enrollment/v1/enrollment?user=NAME — that user's enrollments."""
    if request.method == "GET":
        username = request.GET.get("user", "")
        if not username:
            raise BadRequest("Name the user: ?user=NAME.")
        rows = Enrollment.objects.filter(user=username).order_by("id")
        return JsonResponse([row.as_json() for row in rows], safe=False)

    fault = injected_fault()
    if fault is not None:
        return fault
    data = json_body(request)
    user, mode, is_active = data.get("user"), data.get("mode", ""), data.get("is_active", True)
    details = data.get("course_details")
    course_id = details.get("course_id") if isinstance(details, dict) else None
    if not isinstance(user, str) or not user or len(user) > 150:
        raise BadRequest("'user' must be a username.")
    if not isinstance(course_id, str) or not course_id:
        raise BadRequest("'course_details.course_id' must name a course.")
    if not isinstance(mode, str) or not isinstance(is_active, bool):
        raise BadRequest("'mode' must be a string and 'is_active' true or false.")
    modes = known_courses().get(course_id)
    if modes is None:
        return error(400, "unknown_course", f"No course {course_id!r}.")
    if mode not in modes:
        return error(400, "unknown_mode", f"Course {course_id!r} has no mode {mode!r}.", modes=sorted(modes))
    with connection.cursor() as cursor:
        cursor.execute(_UPSERT, [user, course_id, mode, is_active, timezone.now()])
    return JsonResponse(
        {"user": user, "mode": mode, "is_active": is_active, "course_details": {"course_id": course_id}}
    )
