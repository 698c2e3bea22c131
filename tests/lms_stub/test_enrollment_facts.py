"""enrollment_facts, what the load suite's audit asks lms_stub: how many enrollments were
written above a watermark."""

import io
import json

import pytest
from django.core.management import call_command

from lms_stub.enrollment.models import Enrollment

pytestmark = pytest.mark.django_db


def facts(*args) -> dict:
    out = io.StringIO()
    call_command("enrollment_facts", *args, stdout=out)
    return json.loads(out.getvalue().strip().splitlines()[-1])


def enroll(user: str) -> Enrollment:
    return Enrollment.objects.create(user=user, course_id="course-v1:edX+Demo+1", mode="verified")


def test_enrollments_above_the_watermark():
    mark = enroll("ada").id
    enroll("grace")
    enroll("alan")
    assert facts("--since", str(mark)) == {"enrollments": 2}
    assert facts("--since", "0") == {"enrollments": 3}
