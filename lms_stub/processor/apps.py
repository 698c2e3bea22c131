import logging

from django.apps import AppConfig
from django.conf import settings

log = logging.getLogger(__name__)


class ProcessorConfig(AppConfig):
    """A stand-in for the payment processor (CyberSource Secure Acceptance): its hosted payment
    page, and the signed notification it posts to ecommerce."""

    name = "lms_stub.processor"
    label = "processor"

    def ready(self):
        if "LMS_PAYMENT_PROCESSOR" in settings.LOAD_TEST_MACHINERY:
            log.warning(
                "LMS_PAYMENT_PROCESSOR is on in a deployed stand-in: /processor/cybersource/ takes "
                "payments for anyone and tells ecommerce they were made, signed with "
                "LMS_PROCESSOR_SECRET_KEY. Only a load-test deployment should set it."
            )
