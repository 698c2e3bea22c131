"""Recording purchases on the order path: one INSERT per order, no shared row touched."""

from django.conf import settings

from common import rows
from ecommerce.counters.models import PurchaseEvent


def record_purchases(order_lines) -> None:
    """Append a purchase event per line. Call inside the order's transaction.

    With ORDER_COUNTER=oscar, Oscar's own receivers count instead (for comparison runs).
    """
    if settings.ORDER_COUNTER != "events":
        return
    rows.insert_all(
        [PurchaseEvent(product_id=line.product_id, quantity=line.quantity) for line in order_lines],
        returning_ids=False,
    )
