"""Facts about the enrollments table for the load suite's audit, as one JSON object.

The suite does not read this service's tables after a run: it asks here how many enrollments
were written above a watermark (the highest enrollment id before the run), and which of them
are in a paid seat's mode (the audit finds the payment behind each).
"""

import json

from django.core.management.base import BaseCommand

from common.contract.courses import PAID_MODE
from lms_stub.enrollment.models import Enrollment


class Command(BaseCommand):
    help = (
        "Print one JSON object: the number of enrollments above the id --since, and the learner "
        f"and course of each of them in the paid mode ({PAID_MODE})."
    )

    def add_arguments(self, parser):
        parser.add_argument("--since", type=int, required=True, help="the watermark: an enrollment id")

    def handle(self, *args, since: int, **options):
        above = Enrollment.objects.filter(id__gt=since)
        paid = above.filter(mode=PAID_MODE).order_by("id").values_list("user", "course_id")
        found = {"enrollments": above.count(), "paid": [list(row) for row in paid.iterator(chunk_size=2000)]}
        self.stdout.write(json.dumps(found))
