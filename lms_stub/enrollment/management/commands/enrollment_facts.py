"""Facts about the enrollments table for the load suite's audit, as one JSON object.

The suite does not read this service's tables after a run: it asks here how many enrollments
were written above a watermark (the highest enrollment id before the run).
"""

import json

from django.core.management.base import BaseCommand

from lms_stub.enrollment.models import Enrollment


class Command(BaseCommand):
    help = "Print one JSON object: the number of enrollments above the id --since."

    def add_arguments(self, parser):
        parser.add_argument("--since", type=int, required=True, help="the watermark: an enrollment id")

    def handle(self, *args, since: int, **options):
        self.stdout.write(json.dumps({"enrollments": Enrollment.objects.filter(id__gt=since).count()}))
