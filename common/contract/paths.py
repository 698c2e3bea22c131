"""The HTTP paths of both services, as callers write them. Each service's URLconf routes them
(tests resolve every one against it)."""

from urllib.parse import quote

# The order service (ecommerce).
BASKETS = "/api/v2/baskets/"
ORDERS = "/api/v2/orders/"
HEALTH = "/health/"


def segment(value: str) -> str:
    """``value`` as one path segment, whatever it holds: unescaped, "#" or "?" would end the
    path and "." or ".." name another one."""
    return quote(value, safe="").replace(".", "%2E")


def order(number: str) -> str:
    return f"{ORDERS}{segment(number)}/"


def order_fulfilment(number: str) -> str:
    return f"{order(number)}fulfill/"


# The LMS (lms_stub), as edX's LMS names them.
AUTO_AUTH = "/auto_auth"
COMMERCE_BASKETS = "/api/commerce/v0/baskets/"
COMMERCE_ORDERS = "/api/commerce/v1/orders/"
ENROLLMENT = "/api/enrollment/v1/enrollment"


def commerce_order(number: str) -> str:
    return f"{COMMERCE_ORDERS}{segment(number)}/"
