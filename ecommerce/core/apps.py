import logging

from django.apps import AppConfig
from django.conf import settings

log = logging.getLogger(__name__)


class CoreConfig(AppConfig):
    """What every endpoint shares: JWT authentication, the JSON error shape, health, the
    OpenAPI schema."""

    name = "ecommerce.core"
    label = "ecommerce_core"

    def ready(self):
        # drf-spectacular finds the JWT scheme extension by its registration on import.
        from ecommerce.core import openapi  # noqa: F401

        if "ECOMMERCE_STOREFRONT" in settings.LOAD_TEST_MACHINERY:
            log.warning(
                "ECOMMERCE_STOREFRONT is on under production settings: anyone can register an "
                "account and check out through Oscar's storefront pages. Only a load-test "
                "deployment should set it."
            )
