from django.db import models


class FaultSettings(models.Model):
    """The fault settings set at run time through /api/faults/: one row, shared by every
    worker and host of the LMS. Without the row, the LMS_FAULT_* settings apply."""

    latency_ms = models.PositiveIntegerField(default=0)
    jitter_ms = models.PositiveIntegerField(default=0)
    error_rate = models.FloatField(default=0.0)
    outage_start = models.FloatField(default=0.0, help_text="Unix seconds")
    outage_end = models.FloatField(default=0.0, help_text="Unix seconds")
    updated = models.DateTimeField(auto_now=True)
