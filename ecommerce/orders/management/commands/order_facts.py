"""Facts about the orders table for the load suite's audit, as one JSON object.

The suite must not read Oscar's tables after a run or copy this service's status names, so it
asks here: the order statuses by name, every order above a watermark (the highest order id
before the run) with its status, its total, its lines' products and how many lines are Complete
and, for an order that costs something (or was paid), its payment; how many orders some
learners have, and their payments; what became of the payment notifications above another
watermark. One call answers all of it, so an audit costs one process, not one query per order.
The payment facts are ecommerce.payment.facts'.
"""

import json
from collections import defaultdict

from django.core.management.base import BaseCommand
from django.db.models import Count, Q
from oscar.core.loading import get_model

from common.contract.statuses import LINE, ORDER
from ecommerce.payment import facts as payment_facts

Order = get_model("order", "Order")
Line = get_model("order", "Line")


class Command(BaseCommand):
    help = (
        "Print one JSON object: the order status names, the orders above the id --since with "
        "their lines and payments, the order counts and payments of --learner names, and the "
        "notifications above the id --notifications-since."
    )

    def add_arguments(self, parser):
        parser.add_argument("--since", type=int, help="list the orders whose id is above this watermark")
        parser.add_argument(
            "--learner", action="append", default=[], help="count this learner's orders (repeatable)"
        )
        parser.add_argument(
            "--payments-of",
            action="append",
            default=[],
            metavar="LEARNER",
            help="this learner's paid orders with their payments, and the notifications of their baskets "
            "(repeatable)",
        )
        parser.add_argument(
            "--notifications-since",
            type=int,
            metavar="ID",
            help="the payment notifications whose id is above this watermark, by outcome and by payment",
        )

    def handle(self, *args, since=None, learner=(), payments_of=(), notifications_since=None, **options):
        facts = {"statuses": {name.lower(): value for name, value in vars(ORDER).items() if name.isupper()}}
        if since is not None:
            facts["orders"] = orders_since(since)
        if learner:
            facts["learners"] = orders_of(learner)
        if payments_of:
            facts["payments"] = payment_facts.payments_of(payments_of)
            facts["notifications_of"] = payment_facts.notifications_of(payments_of)
        if notifications_since is not None:
            facts["notifications"] = payment_facts.notifications_since(notifications_since)
        self.stdout.write(json.dumps(facts))


def orders_since(order_id: int) -> list[dict]:
    """Orders above the watermark in the order they were placed: number, status, user id,
    placed (Unix seconds), total, the product of each line, how many lines are Complete, and
    the payment of one that costs something or was paid."""
    products = defaultdict(list)
    lines = Line._default_manager.filter(order_id__gt=order_id).order_by("id")
    for order, product in lines.values_list("order_id", "product_id").iterator(chunk_size=2000):
        products[order].append(product)
    orders = list(
        Order._default_manager.filter(id__gt=order_id)
        .annotate(complete_lines=Count("lines", filter=Q(lines__status=LINE.COMPLETE)))
        .order_by("id")
        .values_list("id", "number", "status", "user_id", "date_placed", "total_incl_tax", "complete_lines")
        .iterator(chunk_size=2000)
    )
    payments = payment_facts.payments_since(
        order_id, ((pk, total, products.get(pk, [])) for pk, _, _, _, _, total, _ in orders)
    )
    found = []
    for pk, number, status, user, placed, total, complete in orders:
        order = {
            "number": number,
            "status": status,
            "user": user,
            "placed": placed.timestamp(),
            "total": str(total),
            "products": products.get(pk, []),
            "complete_lines": complete,
        }
        if pk in payments:
            order["payment"] = payments[pk]
        found.append(order)
    return found


def orders_of(usernames: list[str]) -> dict[str, int]:
    counts = dict(
        Order._default_manager.filter(user__username__in=usernames)
        .values_list("user__username")
        .annotate(orders=Count("id"))
        .order_by()
    )
    return {name: counts.get(name, 0) for name in usernames}
