import logging

from django.apps import AppConfig
from django.conf import settings

log = logging.getLogger(__name__)


class FaultsConfig(AppConfig):
    """Fault injection on the enrollment API: latency, errors, outage windows."""

    name = "lms_stub.faults"
    label = "faults"

    def ready(self):
        if "LMS_FAULT_CONTROL" in settings.LOAD_TEST_MACHINERY:
            log.warning(
                "LMS_FAULT_CONTROL is on in a deployed stand-in: /api/faults/ can slow down or break "
                "the enrollment API for whoever holds LMS_FAULT_API_KEY. Only a load-test deployment "
                "should set it."
            )
