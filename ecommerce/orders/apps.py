from django.apps import AppConfig


class OrdersConfig(AppConfig):
    """The order API: baskets that check out into Oscar orders, idempotent and one seat per learner."""

    name = "ecommerce.orders"
    label = "orders"
