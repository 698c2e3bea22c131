from django.apps import AppConfig


class PaymentConfig(AppConfig):
    """Payment processors: the signed form of a paid checkout, and the processor's notification
    that places the order. Labelled ``processors``: Oscar's own payment app (sources,
    transactions) is ``payment``, and this app records its payments there."""

    name = "ecommerce.payment"
    label = "processors"
