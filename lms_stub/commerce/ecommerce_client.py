"""Calling ecommerce's order API on behalf of a learner."""

import requests
from django.conf import settings

from common import timing
from common.contract import paths, tokens
from common.http_client import reused_session


def learner_token(user) -> str:
    """A short-lived HS256 token for ``user``, as the LMS signs them for ecommerce."""
    return tokens.mint(
        settings.JWT_SECRET_KEY,
        settings.JWT_ISSUER,
        user.username,
        user.email,
        settings.JWT_LIFETIME_SECONDS,
    )


def create_order(user, sku: str) -> requests.Response:
    """POST /api/v2/baskets/ with checkout: place and fulfil the order. May raise
    requests.Timeout or requests.RequestException."""
    with timing.outbound("ecommerce"):
        response = reused_session().post(
            settings.ECOMMERCE_URL + paths.BASKETS,
            json={"products": [{"sku": sku}], "checkout": True},
            headers=tokens.authorization(learner_token(user)),
            timeout=settings.ECOMMERCE_TIMEOUT,
        )
    timing.forward("ecommerce", response.headers.get("Server-Timing"))
    return response


def read_order(user, number: str) -> requests.Response:
    """GET /api/v2/orders/{number}/ as the learner (ecommerce answers 404 for others' orders);
    the number is one path segment whatever it holds (common.contract.paths.segment)."""
    with timing.outbound("ecommerce"):
        response = reused_session().get(
            settings.ECOMMERCE_URL + paths.order(number),
            headers=tokens.authorization(learner_token(user)),
            timeout=settings.ECOMMERCE_TIMEOUT,
        )
    timing.forward("ecommerce", response.headers.get("Server-Timing"))
    return response
