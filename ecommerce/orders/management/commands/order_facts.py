"""Facts about the orders table for the load suite's audit, as one JSON object.

The suite must not read Oscar's tables after a run or copy this service's status names, so it
asks here: the order statuses by name, every order above a watermark (the highest order id
before the run) with its status, its lines' products and how many lines are Complete, and how
many orders some learners have. One call answers all of it, so an audit costs one process, not
one query per order.
"""

import json
from collections import defaultdict

from django.core.management.base import BaseCommand
from django.db.models import Count, Q
from oscar.core.loading import get_model

from common.contract.statuses import LINE, ORDER

Order = get_model("order", "Order")
Line = get_model("order", "Line")


class Command(BaseCommand):
    help = (
        "Print one JSON object: the order status names, the orders above the id --since with "
        "their lines, and the order counts of --learner names."
    )

    def add_arguments(self, parser):
        parser.add_argument("--since", type=int, help="list the orders whose id is above this watermark")
        parser.add_argument(
            "--learner", action="append", default=[], help="count this learner's orders (repeatable)"
        )

    def handle(self, *args, since=None, learner=(), **options):
        facts = {"statuses": {name.lower(): value for name, value in vars(ORDER).items() if name.isupper()}}
        if since is not None:
            facts["orders"] = orders_since(since)
        if learner:
            facts["learners"] = orders_of(learner)
        self.stdout.write(json.dumps(facts))


def orders_since(order_id: int) -> list[dict]:
    """Orders above the watermark in the order they were placed: number, status, user id,
    placed (Unix seconds), the product of each line, how many lines are Complete."""
    products = defaultdict(list)
    lines = Line._default_manager.filter(order_id__gt=order_id).order_by("id")
    for order, product in lines.values_list("order_id", "product_id").iterator(chunk_size=2000):
        products[order].append(product)
    orders = (
        Order._default_manager.filter(id__gt=order_id)
        .annotate(complete_lines=Count("lines", filter=Q(lines__status=LINE.COMPLETE)))
        .order_by("id")
        .values_list("id", "number", "status", "user_id", "date_placed", "complete_lines")
    )
    return [
        {
            "number": number,
            "status": status,
            "user": user,
            "placed": placed.timestamp(),
            "products": products.get(pk, []),
            "complete_lines": complete,
        }
        for pk, number, status, user, placed, complete in orders.iterator(chunk_size=2000)
    ]


def orders_of(usernames: list[str]) -> dict[str, int]:
    counts = dict(
        Order._default_manager.filter(user__username__in=usernames)
        .values_list("user__username")
        .annotate(orders=Count("id"))
        .order_by()
    )
    return {name: counts.get(name, 0) for name in usernames}
