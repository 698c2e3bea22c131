"""purge_payment_records: refused and failed notifications and Idempotency-Key records go once
past their ages (settings), taken notifications stay. Against the test MariaDB."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from common.contract.statuses import NOTIFICATION
from ecommerce.orders.models import IdempotencyRecord
from ecommerce.payment.models import PaymentNotification
from tests.ecommerce.payments import notification, notify, pay

pytestmark = pytest.mark.django_db(transaction=True)


def aged(rows, days: float) -> None:
    rows.update(created=timezone.now() - timedelta(days=days))


def test_refused_notifications_and_old_keys_are_purged_taken_ones_stay(api, lms, seats, learner, settings):
    from common.contract.courses import paid_seat

    settings.NOTIFICATION_RETENTION_DAYS, settings.IDEMPOTENCY_RETENTION_DAYS = 30, 7
    checkout = pay(api, learner, [paid_seat(seats[0].number).sku], key="purge-old")
    pay(api, learner, [paid_seat(seats[1].number).sku], key="purge-new")
    assert notify(api, notification(checkout, secret="a-guess")).status_code == 400
    assert notify(api, notification(checkout)).status_code == 200
    refused = PaymentNotification.objects.filter(outcome=NOTIFICATION.INVALID_SIGNATURE)
    placed = PaymentNotification.objects.filter(outcome=NOTIFICATION.PLACED)
    PaymentNotification.objects.create(processor="cybersource", outcome=NOTIFICATION.FAILED)
    PaymentNotification.objects.create(processor="cybersource", outcome=NOTIFICATION.MALFORMED)
    young_refusal = PaymentNotification.objects.create(
        processor="cybersource", outcome=NOTIFICATION.MALFORMED
    )
    aged(PaymentNotification.objects.exclude(pk=young_refusal.pk), 31)
    aged(PaymentNotification.objects.filter(pk=young_refusal.pk), 29)
    aged(IdempotencyRecord.objects.filter(key="purge-old"), 8)
    aged(IdempotencyRecord.objects.filter(key="purge-new"), 6)

    out = StringIO()
    call_command("purge_payment_records", stdout=out)

    assert out.getvalue().strip() == "deleted 3 notifications, 1 idempotency records"
    assert not refused.exists()
    assert placed.count() == 1  # the payment's record
    assert list(PaymentNotification.objects.exclude(outcome=NOTIFICATION.PLACED)) == [young_refusal]
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["purge-new"]
    call_command("purge_payment_records", stdout=out)
    assert out.getvalue().strip().endswith("deleted 0 notifications, 0 idempotency records")
