from django.apps import AppConfig


class CoreConfig(AppConfig):
    """What every endpoint shares: JWT authentication, the JSON error shape, health, the
    OpenAPI schema."""

    name = "ecommerce.core"
    label = "ecommerce_core"

    def ready(self):
        # drf-spectacular finds the JWT scheme extension by its registration on import.
        from ecommerce.core import openapi  # noqa: F401
