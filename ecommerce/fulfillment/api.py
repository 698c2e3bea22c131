"""Fulfilling orders: the one orchestration of calling the LMS and recording the outcome.

Rule 3 of the design: no transaction (and so no row lock) is open while the LMS is called.
The order was committed before; the outcome is written afterwards in one short transaction.
"""

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from oscar.core.loading import get_model

from ecommerce.fulfillment.modules import module_for
from ecommerce.fulfillment.status import LINE, ORDER

Order = get_model("order", "Order")
Line = get_model("order", "Line")


class NotRetryable(Exception):
    """The order is not in Fulfillment Error, so there is nothing to retry."""


def enroll_lines(order, lines) -> list[str]:
    """Call the fulfilment module of each line; returns the new line statuses. No writes."""
    if connection.in_atomic_block:
        raise RuntimeError("fulfilment must not run inside a transaction (it calls the LMS)")
    return [module_for(line).fulfill_line(order, line) for line in lines]


def record_fulfillment(order, lines, statuses) -> None:
    """Write line statuses and the resulting order status. Call inside a transaction."""
    for line, status in zip(lines, statuses, strict=True):
        if line.status != status:
            Line._default_manager.filter(pk=line.pk).update(status=status)
            line.status = status
    done = all(status == LINE.COMPLETE for status in statuses)
    order.status = ORDER.COMPLETE if done else ORDER.FULFILLMENT_ERROR
    Order._default_manager.filter(pk=order.pk).update(status=order.status)


def retry(order) -> None:
    """Fulfil again the lines of an order in Fulfillment Error that are not Complete.

    The order is claimed with a conditional update, so two retries at once cannot both run;
    an order in any other status raises NotRetryable and is left as it is.
    """
    with transaction.atomic():
        claimed = Order._default_manager.filter(pk=order.pk, status=ORDER.FULFILLMENT_ERROR).update(
            status=ORDER.OPEN
        )
    if not claimed:
        raise NotRetryable(order.number)
    order.status = ORDER.OPEN
    lines = [line for line in order.lines.select_related("product") if line.status != LINE.COMPLETE]
    statuses = enroll_lines(order, lines)
    with transaction.atomic():
        record_fulfillment(order, lines, statuses)


def mark_stale_open_orders() -> int:
    """Orders still Open long after they were placed lost their fulfilment (a worker died
    between the two transactions). Move them to Fulfillment Error so a retry picks them up."""
    cutoff = timezone.now() - timezone.timedelta(seconds=settings.STALE_OPEN_ORDER_SECONDS)
    with transaction.atomic():
        return Order._default_manager.filter(status=ORDER.OPEN, date_placed__lt=cutoff).update(
            status=ORDER.FULFILLMENT_ERROR
        )
