from django.core.management.base import BaseCommand, CommandError

from ecommerce.courses.seeding import seed


class Command(BaseCommand):
    help = (
        "Create (or correct) the seeded course catalogue: a free (honor) and a paid (verified) "
        "seat per course. Idempotent."
    )

    def add_arguments(self, parser):
        parser.add_argument("--courses", type=int, default=100, help="number of courses (default 100)")
        parser.add_argument("--site-domain", help="domain of the Django site (e.g. 127.0.0.1:18130)")

    def handle(self, *args, courses, site_domain, **options):
        if courses < 1:
            raise CommandError("--courses must be at least 1")
        result = seed(courses, site_domain)
        self.stdout.write(
            "catalogue: {courses} courses ({created} seats created, {updated} corrected)".format(**result)
        )
