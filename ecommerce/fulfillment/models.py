from django.db import models


class FulfillmentAttempt(models.Model):
    """When the latest retry of an order's fulfilment began.

    Written only by retries (never on the order path): the sweep for orders left Open by a dead
    worker judges an order by its latest attempt, so it never takes an order from a retry that
    is still running.
    """

    order = models.OneToOneField(
        "order.Order", on_delete=models.CASCADE, primary_key=True, related_name="fulfillment_attempt"
    )
    started = models.DateTimeField()

    def __str__(self):
        return f"order {self.order_id}: retry started {self.started:%Y-%m-%d %H:%M:%S}"
