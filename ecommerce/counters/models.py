from django.db import models


class PurchaseEvent(models.Model):
    """One product bought, written in the order's own transaction.

    The order path only ever inserts these rows, so buyers of the same product never wait on
    each other. The rollup folds them into Oscar's ProductRecord.num_purchases and deletes
    them in the same transaction, which makes the folded count exact.
    """

    id = models.BigAutoField(primary_key=True)
    product = models.ForeignKey("catalogue.Product", on_delete=models.CASCADE, related_name="+")
    quantity = models.PositiveIntegerField()
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"product {self.product_id} x{self.quantity}"
