"""What the payment tests share: a paid checkout, the processor's notification as it would post
it, and the rows a payment writes."""

from urllib.parse import urlencode

from common.contract import cybersource, paths
from tests.ecommerce.helpers import row_counts

SECRET = "local-only-cybersource-secret-key"  # settings.test's, from common/environment
# lms_stub's processor stand-in's own (LMS_PROCESSOR_SECRET_KEY): settings.test's payment page is
# the stand-in and ECOMMERCE_PAYMENT_STAND_IN is on, so checkout forms are signed with it.
STAND_IN_SECRET = "local-only-processor-stand-in-secret-key"
NOTIFY = paths.payment_notification(cybersource.PROCESSOR)


def pay(api, username, skus, key=None, processor=None, **headers):
    """POST /api/v2/baskets/ with checkout (and payment_processor_name when given)."""
    body = {"products": [{"sku": sku} for sku in skus], "checkout": True}
    if processor is not None:
        body["payment_processor_name"] = processor
    return api.post_json(paths.BASKETS, body, username, key=key, **headers)


def form_data(response) -> dict:
    """The signed checkout form of a paid checkout's answer."""
    return response.json()["payment_data"]["payment_form_data"]


def notification(response_or_form, decision=cybersource.ACCEPT, secret=SECRET, **overrides) -> dict:
    form = response_or_form if isinstance(response_or_form, dict) else form_data(response_or_form)
    return cybersource.notification(form, secret, decision, **overrides)


def notify(api, fields, **headers):
    """POST the notification form-encoded, as the processor does (no credentials)."""
    return api.client.post(
        NOTIFY, urlencode(fields), content_type="application/x-www-form-urlencoded", **headers
    )


PAYMENT_TABLES = (
    "order_order",
    "order_line",
    "orders_seatclaim",
    "payment_source",
    "payment_transaction",
    "order_paymentevent",
    "order_paymenteventquantity",
    "processors_paymentnotification",
    "basket_basket",
)


def payment_rows() -> dict[str, int]:
    return row_counts(PAYMENT_TABLES)


def outcomes(reference: str) -> list[str]:
    """The recorded outcomes of a reference number's notifications, oldest first."""
    from ecommerce.payment.models import PaymentNotification

    return list(
        PaymentNotification.objects.filter(reference_number=reference)
        .order_by("id")
        .values_list("outcome", flat=True)
    )
