"""The order statistics page without a full sum: Oscar's counts and sums every order its date
range selects (all of them without one); here the newest RECENT_CAP of them are summed and the
page says so when there were more."""

from oscar.apps.dashboard.orders.views import OrderStatsView as OscarOrderStatsView
from oscar.apps.dashboard.orders.views import queryset_orders_for_user

from ecommerce.dashboard.index import newest_orders


class OrderStatsView(OscarOrderStatsView):
    template_name = "ecommerce_dashboard/statistics.html"

    def get_stats(self, filters):
        orders = queryset_orders_for_user(self.request.user).prefetch_related(None).filter(**filters)
        return {"window": newest_orders(orders)}
