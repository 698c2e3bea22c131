"""Calling ecommerce's order API on behalf of a learner."""

import time
from urllib.parse import quote

import jwt
import requests
from django.conf import settings

from ecommerce.core import timing
from ecommerce.core.http_client import reused_session


def learner_token(user) -> str:
    """A short-lived HS256 token for ``user``, as the LMS signs them for ecommerce."""
    now = int(time.time())
    claims = {
        "username": user.username,
        "email": user.email,
        "iat": now,
        "exp": now + settings.JWT_LIFETIME_SECONDS,
        "iss": settings.JWT_ISSUER,
    }
    return jwt.encode(claims, settings.JWT_SECRET_KEY, algorithm="HS256")


def create_order(user, sku: str) -> requests.Response:
    """POST /api/v2/baskets/ with checkout: place and fulfil the order. May raise
    requests.Timeout or requests.RequestException."""
    with timing.outbound("ecommerce"):
        response = reused_session().post(
            settings.ECOMMERCE_URL + "/api/v2/baskets/",
            json={"products": [{"sku": sku}], "checkout": True},
            headers={"Authorization": "JWT " + learner_token(user)},
            timeout=settings.ECOMMERCE_TIMEOUT,
        )
    timing.forward("ecommerce", response.headers.get("Server-Timing"))
    return response


def read_order(user, number: str) -> requests.Response:
    """GET /api/v2/orders/{number}/ as the learner (ecommerce answers 404 for others' orders).

    The number is one path segment whatever it holds: unescaped, "#" or "?" would read the
    order list instead, and "." or ".." another path."""
    segment = quote(number, safe="").replace(".", "%2E")
    with timing.outbound("ecommerce"):
        response = reused_session().get(
            f"{settings.ECOMMERCE_URL}/api/v2/orders/{segment}/",
            headers={"Authorization": "JWT " + learner_token(user)},
            timeout=settings.ECOMMERCE_TIMEOUT,
        )
    timing.forward("ecommerce", response.headers.get("Server-Timing"))
    return response
