"""The bulk preload command of both services (ecommerce's ``preload_orders``, lms_stub's
``preload_enrollments``): with --status, how far the preload has come; otherwise the batches of
purchases this service writes, one transaction each (common.contract.preload_plan)."""

import json

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from common.contract import preload_plan as plan


class PreloadCommand(BaseCommand):
    def add_arguments(self, parser):
        plan.add_arguments(parser)

    def prepare(self, cursor, options: dict) -> None:
        """Once, on the batches' connection, before the first batch (temporary tables)."""

    def write_batch(self, cursor, first_index: int, count: int, options: dict) -> None:
        raise NotImplementedError

    def handle(self, *args, **options):
        done, last = plan.progress(get_user_model()._default_manager.all())
        if options["status"]:
            self.stdout.write(json.dumps(plan.status_line(done, last)))
            return
        try:
            with connection.cursor() as cursor:
                self.prepare(cursor, options)
                plan.run_batches(
                    done,
                    options,
                    lambda first_index, count: self.write_batch(cursor, first_index, count, options),
                    lambda line: self.stdout.write(json.dumps(line)),
                )
        except ValueError as exc:
            raise CommandError(str(exc)) from None
