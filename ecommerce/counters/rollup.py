"""Folding purchase events into Oscar's ProductRecord, exactly once each.

A batch of events is locked, added to ``num_purchases`` with one upsert per product, and
deleted, all in one transaction: an event is either still waiting or already counted, never
both and never twice. Events of orders not yet committed are invisible here and wait for the
next batch.

Only one rollup folds at a time, whichever host it runs on: concurrent upserts of the same
product records deadlock in InnoDB, so a rollup that finds the named lock taken skips its turn.
"""

from collections import Counter

from django.db import OperationalError, connection, transaction
from oscar.core.loading import get_model

from ecommerce.counters.models import PurchaseEvent

ProductRecord = get_model("analytics", "ProductRecord")


LOCK_NAME = "ecommerce.counters.rollup"
DEADLOCK = 1213
ATTEMPTS = 3


def fold(batch: int = 1000) -> int:
    """Fold up to ``batch`` waiting events; returns how many were folded (0 when there were
    none, or when another rollup holds the turn)."""
    if not PurchaseEvent._default_manager.exists():  # an idle rollup opens no transaction
        return 0
    with connection.cursor() as cursor:
        cursor.execute("SELECT GET_LOCK(%s, 0)", [LOCK_NAME])
        if cursor.fetchone()[0] != 1:
            return 0
        try:
            for attempt in range(ATTEMPTS):
                try:
                    return _fold_batch(batch)
                except OperationalError as exc:  # a deadlock rolled the whole batch back
                    if exc.args[0] != DEADLOCK or attempt == ATTEMPTS - 1:
                        raise
            return 0
        finally:
            cursor.execute("SELECT RELEASE_LOCK(%s)", [LOCK_NAME])


def _fold_batch(batch: int) -> int:
    with transaction.atomic():
        events = list(
            PurchaseEvent._default_manager.select_for_update(skip_locked=True)
            .order_by("id")
            .values_list("id", "product_id", "quantity")[:batch]
        )
        if not events:
            return 0
        bought = Counter()
        for _, product_id, quantity in events:
            bought[product_id] += quantity
        table = connection.ops.quote_name(ProductRecord._meta.db_table)
        with connection.cursor() as cursor:
            cursor.executemany(
                f"INSERT INTO {table} (product_id, num_views, num_basket_additions, num_purchases, score) "
                "VALUES (%s, 0, 0, %s, 0) "
                "ON DUPLICATE KEY UPDATE num_purchases = num_purchases + VALUES(num_purchases)",
                sorted(bought.items()),
            )
            # One point delete per event: a range or IN-list delete also reads the row after the
            # last id, which may be an order's uncommitted event, and would wait on that order.
            cursor.executemany(
                f"DELETE FROM {connection.ops.quote_name(PurchaseEvent._meta.db_table)} WHERE id = %s",
                [(event_id,) for event_id, _, _ in events],
            )
    return len(events)


def fold_all(batch: int = 1000) -> int:
    total = 0
    while folded := fold(batch):
        total += folded
    return total


def waiting() -> int:
    return PurchaseEvent._default_manager.count()
