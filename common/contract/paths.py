"""The HTTP paths of both services, as callers write them. Each service's URLconf routes them
(tests resolve every one against it)."""

from urllib.parse import quote

# The order service (ecommerce).
BASKETS = "/api/v2/baskets/"
ORDERS = "/api/v2/orders/"
HEALTH = "/health/"
PAYMENT_PROCESSORS = "/api/v2/payment/processors/"


def can_be_segment(value: str) -> bool:
    """Whether ``value`` can be one path segment behind the balancer, which puts the path in
    RFC 3986's normal form and refuses one that decoded still holds an escape
    (docs/decisions/0087-the-balancer-judges-the-path.md): not "", "." or ".." (escaped or
    not, an empty or a dot segment, removed: "/api/v2/orders/%2E/" is the order list), and no
    "%" (escaped as "%25", a second decoding would read it)."""
    return value not in ("", ".", "..") and "%" not in value


def segment(value: str) -> str:
    """``value`` as one path segment, whatever else it holds: unescaped, "/" would start another
    and "#" or "?" end the path. ValueError if it cannot be one (``can_be_segment``)."""
    if not can_be_segment(value):
        raise ValueError(f"{value!r} cannot be a path segment")
    return quote(value, safe="")


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
