"""enrollment_facts, what the load suite's audit asks lms_stub: the highest enrollment id and
how many enrollments were written above it."""

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


def test_an_empty_table_has_watermark_zero():
    assert facts() == {"watermark": 0}


def test_enrollments_above_the_watermark():
    enroll("ada")
    mark = facts()["watermark"]
    enroll("grace")
    last = enroll("alan")
    assert facts("--since", str(mark)) == {"watermark": last.id, "enrollments": 2}
