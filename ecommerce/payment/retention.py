"""What the order service keeps of anyone's requests, and for how long (purge_payment_records).

Refused and failed payment notifications are kept NOTIFICATION_RETENTION_DAYS (by then the
processor has stopped resending, and a refused one is only its reference, size and digest);
Idempotency-Key records IDEMPOTENCY_RETENTION_DAYS (a client retries within minutes). Taken
notifications are the payments' own record and stay. Rows go in small batches, each its own
short transaction, so no purge holds a lock the order path waits on.
"""

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from common.contract.statuses import NOTIFICATION
from ecommerce.orders.models import IdempotencyRecord
from ecommerce.payment.models import PaymentNotification

BATCH = 1000


def purge(now=None) -> dict[str, int]:
    """Delete what is past its age; the rows deleted, by kind."""
    now = now or timezone.now()
    notifications = PaymentNotification._default_manager.filter(
        outcome__in=(*NOTIFICATION.REFUSED, NOTIFICATION.FAILED),
        created__lt=now - timedelta(days=settings.NOTIFICATION_RETENTION_DAYS),
    )
    idempotency = IdempotencyRecord._default_manager.filter(
        created__lt=now - timedelta(days=settings.IDEMPOTENCY_RETENTION_DAYS)
    )
    return {"notifications": _in_batches(notifications), "idempotency_records": _in_batches(idempotency)}


def _in_batches(rows) -> int:
    deleted = 0
    while True:
        ids = list(rows.values_list("pk", flat=True)[:BATCH])
        if not ids:
            return deleted
        deleted += rows.model._default_manager.filter(pk__in=ids).delete()[0]
