"""Fulfilling orders: the one orchestration of calling the LMS and recording the outcome.

Rule 3 of the design: no transaction (and so no row lock) is open while the LMS is called.
The order was committed before; the outcome is written afterwards in one short transaction.
``fulfil`` is that sequence; the purchase and a retry both run it.
"""

import time
from collections.abc import Callable
from typing import TypeVar

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from oscar.core.loading import get_model

from common import dbpool, timing
from common.contract.statuses import LINE, ORDER
from ecommerce.fulfillment.models import FulfillmentAttempt
from ecommerce.fulfillment.modules import module_for

Order = get_model("order", "Order")
Line = get_model("order", "Line")

T = TypeVar("T")


class NotRetryable(Exception):
    """The order is not in Fulfillment Error, so there is nothing to retry."""


def enroll_lines(order, lines) -> list[str]:
    """Call the fulfilment module of each line; returns the new line statuses. No writes.

    LMS_ENROLLMENT_TIMEOUT bounds the whole order, not each line: a basket of ten seats and a
    dead LMS end in one timeout, well inside the gunicorn worker timeout.
    """
    if connection.in_atomic_block:
        raise RuntimeError("fulfilment must not run inside a transaction (it calls the LMS)")
    deadline = time.monotonic() + settings.LMS_ENROLLMENT_TIMEOUT
    statuses = []
    for line in lines:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            statuses.append(LINE.FULFILLMENT_TIMEOUT_ERROR)
        else:
            statuses.append(module_for(line).fulfill_line(order, line, remaining))
    return statuses


def record_fulfillment(order, lines, statuses) -> None:
    """Write line statuses and the resulting order status, in one statement. Call inside a
    transaction.

    The order's row and the rows of the lines whose status changed are updated together by one
    multi-table UPDATE (the order joined to those lines, each line's new status chosen by its id):
    one round trip to MariaDB where an UPDATE per line and one for the order took two for a
    one-seat order.
    """
    changed = [(line, status) for line, status in zip(lines, statuses, strict=True) if line.status != status]
    done = all(status == LINE.COMPLETE for status in statuses)
    order.status = ORDER.COMPLETE if done else ORDER.FULFILLMENT_ERROR
    if not changed:
        Order._default_manager.filter(pk=order.pk).update(status=order.status)
        return
    with connection.cursor() as cursor:
        cursor.execute(*_statuses_statement(order, changed))
    for line, status in changed:
        line.status = status


def _statuses_statement(order, changed) -> tuple[str, list]:
    """UPDATE order JOIN its changed lines SET each status, and its parameters."""
    quote = connection.ops.quote_name
    orders, order_lines = quote(Order._meta.db_table), quote(Line._meta.db_table)
    status, line_id, order_id = quote("status"), quote(Line._meta.pk.column), quote(Order._meta.pk.column)
    foreign_key = quote(Line._meta.get_field("order").column)
    whens = " ".join(["WHEN %s THEN %s"] * len(changed))
    places = ", ".join(["%s"] * len(changed))
    sql = (
        f"UPDATE {orders} o JOIN {order_lines} l ON l.{foreign_key} = o.{order_id} "
        f"SET o.{status} = %s, l.{status} = CASE l.{line_id} {whens} END "
        f"WHERE o.{order_id} = %s AND l.{line_id} IN ({places})"
    )
    params = [order.status]
    for line, new in changed:
        params += [line.pk, new]
    params.append(order.pk)
    params += [line.pk for line, _ in changed]
    return sql, params


def fulfil(order, lines, then: Callable[[], T] | None = None) -> T | None:
    """Fulfil ``lines`` of a committed ``order``: the purchase's and a retry's one sequence.

    Returns the pooled connection (rule 3: none is held while the LMS answers), calls the LMS
    for each line with no transaction open, then writes the line and order statuses in one
    short transaction. ``then``, if given, runs inside that transaction after the statuses, so
    what must commit with them (the purchase's stored Idempotency-Key answer) costs no commit
    of its own; its result is returned. Sets ``order.status`` and each line's ``status``.
    """
    dbpool.release()
    statuses = enroll_lines(order, lines)
    with transaction.atomic():
        record_fulfillment(order, lines, statuses)
        result = then() if then else None
    timing.annotate(order_number=str(order.number), fulfilment_status=order.status)
    return result


def retry(order) -> None:
    """Fulfil again the lines of an order in Fulfillment Error that are not Complete.

    The order is claimed with a conditional update, so two retries at once cannot both run;
    an order in any other status raises NotRetryable and is left as it is. The claim's time is
    recorded, so the sweep for stale Open orders leaves a running retry alone.
    """
    with transaction.atomic():
        claimed = Order._default_manager.filter(pk=order.pk, status=ORDER.FULFILLMENT_ERROR).update(
            status=ORDER.OPEN
        )
        if claimed:
            FulfillmentAttempt._default_manager.update_or_create(
                order_id=order.pk, defaults={"started": timezone.now()}
            )
    if not claimed:
        raise NotRetryable(order.number)
    order.status = ORDER.OPEN
    lines = [line for line in order.lines.select_related("product") if line.status != LINE.COMPLETE]
    fulfil(order, lines)


def mark_stale_open_orders() -> int:
    """Orders still Open long after their last fulfilment began lost it (a worker died between
    the two transactions). Move them to Fulfillment Error so a retry picks them up."""
    cutoff = timezone.now() - timezone.timedelta(seconds=settings.STALE_OPEN_ORDER_SECONDS)
    stale = (
        Order._default_manager.filter(status=ORDER.OPEN, date_placed__lt=cutoff)
        .exclude(fulfillment_attempt__started__gte=cutoff)
        .values_list("pk", flat=True)
    )
    with transaction.atomic():
        return Order._default_manager.filter(pk__in=list(stale), status=ORDER.OPEN).update(
            status=ORDER.FULFILLMENT_ERROR
        )
