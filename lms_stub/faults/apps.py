from django.apps import AppConfig


class FaultsConfig(AppConfig):
    """Fault injection on the enrollment API: latency, errors, outage windows."""

    name = "lms_stub.faults"
    label = "faults"
