from django.db import models

from common.contract.statuses import NOTIFICATION


class PaymentNotification(models.Model):
    """A payment processor's notification, as it arrived, and what became of it.

    Every notification is recorded, refused ones included (like Otto's PaymentProcessorResponse),
    each with its body's size and SHA-256 digest. The fields are kept whole only for one the
    order service took (placed, replay, refund owed, declined: signed by the processor); a refused
    or failed one keeps its columns alone, never anyone's bytes (purge_payment_records removes
    those rows after a while). The columns are what the order service looked up by. ``order`` is
    the order this notification placed (outcome ``placed``); a replay or a refund owed names its
    basket only.
    """

    OUTCOMES = [(outcome, outcome) for outcome in NOTIFICATION.ALL]

    processor = models.CharField(max_length=32)
    # Compared byte for byte, as the processor sent them (cut to the column's length; the raw
    # fields hold them whole).
    reference_number = models.CharField(max_length=128, blank=True, db_collation="utf8mb4_bin")
    transaction_id = models.CharField(max_length=128, blank=True, db_collation="utf8mb4_bin")
    decision = models.CharField(max_length=32, blank=True)
    fields = models.JSONField(null=True)
    size = models.PositiveIntegerField(default=0)  # bytes of the request's body
    digest = models.CharField(max_length=64, blank=True)  # its SHA-256, in hex
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
            # What purge_payment_records looks for: refused notifications by age.
            models.Index(fields=["outcome", "created"], name="notification_outcome_created"),
        ]

    def __str__(self):
        return f"{self.processor} {self.reference_number} {self.decision}: {self.outcome}"
