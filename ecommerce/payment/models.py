from django.db import models

from common.contract.statuses import NOTIFICATION


class PaymentNotification(models.Model):
    """A payment processor's notification, as it arrived, and what became of it.

    Every notification is recorded, refused ones included (like Otto's PaymentProcessorResponse):
    the raw fields are kept whole; the columns are what the order service looked up by. ``order``
    is the order this notification placed (outcome ``placed``); a replay or a refund owed names
    its basket only.
    """

    OUTCOMES = [(outcome, outcome) for outcome in NOTIFICATION.ALL]

    processor = models.CharField(max_length=32)
    # Compared byte for byte, as the processor sent them (cut to the column's length; the raw
    # fields hold them whole).
    reference_number = models.CharField(max_length=128, blank=True, db_collation="utf8mb4_bin")
    transaction_id = models.CharField(max_length=128, blank=True, db_collation="utf8mb4_bin")
    decision = models.CharField(max_length=32, blank=True)
    fields = models.JSONField()
    outcome = models.CharField(max_length=32, choices=OUTCOMES)
    basket = models.ForeignKey(
        "basket.Basket", null=True, on_delete=models.SET_NULL, related_name="payment_notifications"
    )
    order = models.ForeignKey(
        "order.Order", null=True, on_delete=models.SET_NULL, related_name="payment_notifications"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [
            # A notification's earlier copies: the basket's accepted payments by transaction.
            models.Index(fields=["basket", "transaction_id"], name="notification_basket_txn"),
            models.Index(fields=["reference_number"], name="notification_reference"),
        ]

    def __str__(self):
        return f"{self.processor} {self.reference_number} {self.decision}: {self.outcome}"
