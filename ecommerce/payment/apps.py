import logging

from django.apps import AppConfig
from django.conf import settings

log = logging.getLogger(__name__)


class PaymentConfig(AppConfig):
    """Payment processors: the signed form of a paid checkout, and the processor's notification
    that places the order. Labelled ``processors``: Oscar's own payment app (sources,
    transactions) is ``payment``, and this app records its payments there."""

    name = "ecommerce.payment"
    label = "processors"

    def ready(self):
        if "ECOMMERCE_PAYMENT_STAND_IN" in settings.LOAD_TEST_MACHINERY:
            log.warning(
                "ECOMMERCE_PAYMENT_STAND_IN is on under production settings: a payment notified by "
                "lms_stub's processor stand-in (signed with LMS_PROCESSOR_SECRET_KEY) places a paid "
                "order though no money moved. Only a load-test deployment should set it."
            )
