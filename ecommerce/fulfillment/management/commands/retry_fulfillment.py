from django.core.management.base import BaseCommand, CommandError
from oscar.core.loading import get_model

from common.contract.statuses import ORDER
from ecommerce.fulfillment import api

Order = get_model("order", "Order")


class Command(BaseCommand):
    help = (
        "Retry the fulfilment of one order (--order NUMBER) or of every order in Fulfillment "
        "Error (--all), including orders left Open by a worker that died mid-fulfilment."
    )

    def add_arguments(self, parser):
        target = parser.add_mutually_exclusive_group(required=True)
        target.add_argument("--order", help="order number")
        target.add_argument("--all", action="store_true", help="every order in Fulfillment Error")

    def handle(self, *args, order=None, all=False, **options):
        if order:
            try:
                orders = [Order._default_manager.select_related("user").get(number=order)]
            except Order.DoesNotExist:
                raise CommandError(f"no order {order}") from None
        else:
            stale = api.mark_stale_open_orders()
            if stale:
                self.stdout.write(f"{stale} stale Open orders moved to {ORDER.FULFILLMENT_ERROR}")
            orders = (
                Order._default_manager.filter(status=ORDER.FULFILLMENT_ERROR)
                .select_related("user")
                .order_by("pk")
                .iterator(chunk_size=200)
            )
        completed = failed = skipped = 0
        for each in orders:
            try:
                api.retry(each)
            except api.NotRetryable:
                if order:
                    raise CommandError(
                        f"order {each.number} is {each.status}, not {ORDER.FULFILLMENT_ERROR}"
                    ) from None
                skipped += 1  # another retry claimed it since the list was read
                continue
            if each.status == ORDER.COMPLETE:
                completed += 1
            else:
                failed += 1
            self.stdout.write(f"order {each.number}: {each.status}")
        summary = f"retried {completed + failed}: {completed} complete, {failed} still failing"
        self.stdout.write(summary + (f", {skipped} taken by another retry" if skipped else ""))
        if failed:
            raise CommandError(f"{failed} orders are still in {ORDER.FULFILLMENT_ERROR}")
