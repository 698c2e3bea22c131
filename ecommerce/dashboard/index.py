"""The dashboard's landing page without a scan: what it states is exact and cheap, or labelled
an estimate.

Oscar's index page counts and sums every order, line, open basket and customer on each visit
(over a minute at 2 million orders). Here:

* recent orders come from the date_placed index, newest first, at most RECENT_CAP of them in
  the last 24 hours: the page says which span those cover when there were more (the order
  statistics page sums the orders of its date range the same way);
* seats sold all time are the purchase counter (analytics_productrecord.num_purchases, one row
  per product, kept exact by the rollup);
* the sizes of the tables that grow with orders are InnoDB's row estimates, shown as such.
"""

from collections import Counter
from datetime import timedelta
from decimal import Decimal

from django.db import connection
from django.db.models import Sum
from django.utils.timezone import now
from oscar.apps.dashboard.views import IndexView as OscarIndexView
from oscar.core.loading import get_model

Order = get_model("order", "Order")
Product = get_model("catalogue", "Product")
ProductRecord = get_model("analytics", "ProductRecord")
StockAlert = get_model("partner", "StockAlert")
ConditionalOffer = get_model("offer", "ConditionalOffer")

RECENT_HOURS = 24
RECENT_CAP = 10_000
# The tables that grow with every purchase, as the page names them.
GROWING_TABLES = {
    "order_order": "Orders",
    "order_line": "Order lines",
    "basket_basket": "Baskets",
    "auth_user": "Users",
}


class IndexView(OscarIndexView):
    def get_template_names(self):
        return ["ecommerce_dashboard/index.html"]

    def get_stats(self):
        if not self.request.user.is_staff:  # store-wide figures are for staff only
            return {}
        return {
            "recent": newest_orders(
                Order._default_manager.filter(date_placed__gte=now() - timedelta(hours=RECENT_HOURS))
            ),
            "recent_hours": RECENT_HOURS,
            "seats_sold": ProductRecord._default_manager.aggregate(total=Sum("num_purchases"))["total"] or 0,
            "estimates": table_row_estimates(),
            "total_products": Product._default_manager.count(),
            "total_open_stock_alerts": StockAlert._default_manager.filter(status=StockAlert.OPEN).count(),
            "total_active_offers": ConditionalOffer._default_manager.filter(end_datetime__gt=now()).count(),
            "total_vouchers": self.get_active_vouchers().count(),
        }


def newest_orders(queryset) -> dict:
    """Count, revenue and statuses of the orders of ``queryset``, newest first, at most
    RECENT_CAP of them (one range read of the date_placed index when ``queryset`` filters on
    it); ``capped`` says there were more, and ``oldest`` when the ones summed begin."""
    rows = list(
        queryset.order_by("-date_placed").values_list("status", "total_incl_tax", "date_placed")[
            : RECENT_CAP + 1
        ]
    )
    capped = len(rows) > RECENT_CAP
    rows = rows[:RECENT_CAP]
    revenue = sum((total for _, total, _ in rows), Decimal("0.00"))
    return {
        "orders": len(rows),
        "capped": capped,
        "cap": RECENT_CAP,
        "oldest": rows[-1][2] if rows else None,
        "revenue": revenue,
        "average": revenue / len(rows) if rows else Decimal("0.00"),
        "statuses": sorted(Counter(status for status, _, _ in rows).items()),
    }


def table_row_estimates() -> list[tuple[str, int]]:
    """(label, estimated rows) of each growing table from information_schema: InnoDB's sampled
    statistics, free to read and possibly tens of percent off."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT table_name, table_rows FROM information_schema.tables"
            " WHERE table_schema = DATABASE() AND table_name IN (%s, %s, %s, %s)",
            list(GROWING_TABLES),
        )
        rows = dict(cursor.fetchall())
    return [(label, rows.get(table) or 0) for table, label in GROWING_TABLES.items()]
