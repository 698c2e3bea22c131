"""Facts about the enrollments table for the load suite's audit, as one JSON object.

The suite does not read this service's tables itself: it asks for the highest enrollment id
(a watermark taken before a run) and, after the run, how many enrollments were written since.
"""

import json

from django.core.management.base import BaseCommand
from django.db.models import Max

from lms_stub.enrollment.models import Enrollment


class Command(BaseCommand):
    help = "Print one JSON object: the highest enrollment id (watermark) and the enrollments since --since."

    def add_arguments(self, parser):
        parser.add_argument("--since", type=int, help="count the enrollments above this id")

    def handle(self, *args, since=None, **options):
        facts = {"watermark": Enrollment.objects.aggregate(top=Max("id"))["top"] or 0}
        if since is not None:
            facts["enrollments"] = Enrollment.objects.filter(id__gt=since).count()
        self.stdout.write(json.dumps(facts))
