"""enrollment_facts, what the load suite's audit asks lms_stub: how many enrollments were
written above a watermark, and which of them are paid seats."""

import io
import json

import pytest
from django.core.management import call_command

from common.contract.courses import FREE_MODE, PAID_MODE
from lms_stub.enrollment.models import Enrollment

pytestmark = pytest.mark.django_db


def facts(*args) -> dict:
    out = io.StringIO()
    call_command("enrollment_facts", *args, stdout=out)
    return json.loads(out.getvalue().strip().splitlines()[-1])


def enroll(user: str, mode: str = FREE_MODE, course: str = "course-v1:edX+Demo+1") -> Enrollment:
    return Enrollment.objects.create(user=user, course_id=course, mode=mode)


def test_enrollments_above_the_watermark():
    mark = enroll("ada").id
    enroll("grace")
    enroll("alan")
    assert facts("--since", str(mark)) == {"enrollments": 2, "paid": []}
    assert facts("--since", "0") == {"enrollments": 3, "paid": []}


def test_the_paid_seats_enrolled_above_the_watermark_name_their_learner_and_course():
    """The audit looks for the payment behind each enrollment in the paid mode."""
    mark = enroll("ada", PAID_MODE).id
    enroll("grace", PAID_MODE, "course-v1:edX+Demo+2")
    enroll("alan")
    enroll("Grace", PAID_MODE)  # another learner: names are compared exactly
    assert facts("--since", str(mark)) == {
        "enrollments": 3,
        "paid": [["grace", "course-v1:edX+Demo+2"], ["Grace", "course-v1:edX+Demo+1"]],
    }
