"""The HTTP paths of both services, as callers write them. Each service's URLconf routes them
(tests resolve every one against it)."""

from urllib.parse import quote

# The order service (ecommerce).
BASKETS = "/api/v2/baskets/"
ORDERS = "/api/v2/orders/"
HEALTH = "/health/"
PAYMENT_PROCESSORS = "/api/v2/payment/processors/"


def segment(value: str) -> str:
    """``value`` as one path segment, whatever it holds: unescaped, "#" or "?" would end the
    path and "." or ".." name another one."""
    return quote(value, safe="").replace(".", "%2E")


def order(number: str) -> str:
    return f"{ORDERS}{segment(number)}/"


def order_fulfilment(number: str) -> str:
    return f"{order(number)}fulfill/"


def basket_order(basket_id: int) -> str:
    """The order placed from a basket (edX's client read a paid order back this way at first)."""
    return f"{BASKETS}{int(basket_id)}/order/"


def payment_notification(processor: str) -> str:
    """Where a payment processor posts its notifications (not under /api/: a processor's URL)."""
    return f"/payment/{segment(processor)}/notify/"


# The LMS (lms_stub), as edX's LMS names them.
AUTO_AUTH = "/auto_auth"
COMMERCE_BASKETS = "/api/commerce/v0/baskets/"
COMMERCE_ORDERS = "/api/commerce/v1/orders/"
ENROLLMENT = "/api/enrollment/v1/enrollment"
# The payment processor's stand-in (lms_stub.processor): its hosted payment page, and where that
# page's form goes.
PROCESSOR_PAY = "/processor/cybersource/pay/"
PROCESSOR_CONFIRM = "/processor/cybersource/pay/confirm/"


def commerce_order(number: str) -> str:
    return f"{COMMERCE_ORDERS}{segment(number)}/"
