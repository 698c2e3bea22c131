"""Calling ecommerce's order API on behalf of a learner.

A refusal is one worker's, not the service's. An ecommerce worker whose accepted work is
queueing answers new work 503 ``overloaded`` before it reads the request (common/shedding.py),
but a kept-alive connection reaches the worker that once accepted it, busy or not, while the
service's other workers may have their CPU to spare. So a shed call is made once more at once on
a new connection, which the worker free to accept it first takes; it is safe because the
refusing worker did nothing with the request. A second refusal is the service's, and the learner
gets it (503 ``ecommerce_unavailable``, with Retry-After).
"""

from django.conf import settings

from common import http_client, timing
from common.contract import errors, paths, tokens


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
        response = _past_a_refusal(
            http_client.post,
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
        response = _past_a_refusal(
            http_client.get,
            settings.ECOMMERCE_URL + paths.order(number),
            headers=tokens.authorization(learner_token(user)),
            timeout=settings.ECOMMERCE_TIMEOUT,
        )
    timing.forward("ecommerce", response.headers.get("Server-Timing"))
    return response


def _past_a_refusal(call, url: str, **kwargs) -> http_client.Reply:
    """``call(url, **kwargs)``, and once more on a new connection if a worker shed it (the
    module's docstring)."""
    response = call(url, **kwargs)
    if shed(response):
        response = call(url, fresh=True, **kwargs)
    return response


def shed(response: http_client.Reply) -> bool:
    """Whether ``response`` is a worker's refusal of new work (503 ``overloaded``)."""
    if response.status_code != errors.OVERLOADED.status:
        return False
    try:
        body = response.json()
    except ValueError:
        return False
    return isinstance(body, dict) and body.get("error") == errors.OVERLOADED.code
