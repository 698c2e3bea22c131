from django.conf import settings
from django.db import models


class SeatClaim(models.Model):
    """A learner's purchase of one seat, written in the order's own transaction.

    Its unique key is what makes a second purchase of the same seat fail with 409, including
    when two purchases arrive at the same moment: the second insert waits for the first
    transaction and then fails. The rows it locks belong to one learner, never to all buyers.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    product = models.ForeignKey("catalogue.Product", on_delete=models.PROTECT, related_name="+")
    order = models.ForeignKey("order.Order", on_delete=models.CASCADE, related_name="seat_claims")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "product"], name="one_claim_per_learner_and_seat")
        ]

    def __str__(self):
        return f"{self.user_id} owns product {self.product_id} (order {self.order_id})"


class IdempotencyRecord(models.Model):
    """The first answer to a request sent with an ``Idempotency-Key`` header.

    Inserted in the request's first transaction, before the seat claims, so a concurrent
    replay waits on the unique key instead of placing a second order. It points at the basket
    (and so the order) it created: if the first request dies before storing its answer, a
    replay can still answer from what was committed.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    # Keys are compared byte for byte: "abc" and "ABC" are two keys.
    key = models.CharField(max_length=255, db_collation="utf8mb4_bin")
    basket = models.ForeignKey("basket.Basket", on_delete=models.CASCADE, related_name="+")
    # sha256 of the request's meaningful content: a key reused for another request is refused.
    fingerprint = models.CharField(max_length=64)
    response_status = models.PositiveSmallIntegerField(null=True)
    response_body = models.JSONField(null=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="one_record_per_user_and_key")]

    def __str__(self):
        return f"{self.user_id}:{self.key} -> {self.response_status}"
