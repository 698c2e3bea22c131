from django.apps import AppConfig


class CoreConfig(AppConfig):
    """What every endpoint shares: JWT authentication, the JSON error shape, health."""

    name = "ecommerce.core"
    label = "ecommerce_core"
