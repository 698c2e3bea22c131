"""Calling ecommerce's order API on behalf of a learner."""

from django.conf import settings

from common import http_client, timing
from common.contract import paths, tokens


def learner_token(user) -> str:
    """A short-lived HS256 token for ``user``, as the LMS signs them for ecommerce."""
    return tokens.mint(
        settings.JWT_SECRET_KEY,
        settings.JWT_ISSUER,
        user.username,
        user.email,
        settings.JWT_LIFETIME_SECONDS,
    )


def create_order(user, sku: str) -> http_client.Reply:
    """POST /api/v2/baskets/ with checkout: place and fulfil the order. May raise
    http_client.Timeout or http_client.RequestError. Not repeated on a broken connection (the
    order may have been placed): the learner is told, and a second purchase is answered 409."""
    with timing.outbound("ecommerce"):
        response = http_client.post(
            settings.ECOMMERCE_URL + paths.BASKETS,
            json={"products": [{"sku": sku}], "checkout": True},
            headers=tokens.authorization(learner_token(user)),
            timeout=settings.ECOMMERCE_TIMEOUT,
        )
    timing.forward("ecommerce", response.headers.get("Server-Timing"))
    return response


def read_order(user, number: str) -> http_client.Reply:
    """GET /api/v2/orders/{number}/ as the learner (ecommerce answers 404 for others' orders);
    the number is one path segment whatever it holds (common.contract.paths.segment)."""
    with timing.outbound("ecommerce"):
        response = http_client.get(
            settings.ECOMMERCE_URL + paths.order(number),
            headers=tokens.authorization(learner_token(user)),
            timeout=settings.ECOMMERCE_TIMEOUT,
        )
    timing.forward("ecommerce", response.headers.get("Server-Timing"))
    return response
