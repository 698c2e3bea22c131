from django.apps import AppConfig
from django.conf import settings
from oscar.apps.analytics.apps import AnalyticsConfig


class CountersConfig(AppConfig):
    """The exact, lock-free purchase counter: events on the order path, a rollup behind it."""

    default = True  # this module also holds the AppConfig that replaces Oscar's analytics one
    name = "ecommerce.counters"
    label = "counters"


class OscarAnalyticsConfig(AnalyticsConfig):
    """Oscar's analytics app (models, dashboard reports) without its signal receivers.

    Oscar's receivers run ``UPDATE analytics_productrecord SET num_purchases = num_purchases + 1``
    inside every order's transaction: one row per product, locked by every buyer of it. That is
    the bottleneck the 2015 load tests found, so the receivers stay disconnected unless
    ORDER_COUNTER=oscar asks for Oscar's behaviour (to measure the difference); by default the
    counters app counts instead.
    """

    def ready(self):
        if settings.ORDER_COUNTER == "oscar":
            super().ready()
