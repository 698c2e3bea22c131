"""Calling ecommerce's order API on behalf of a learner."""

import os
import threading
import time

import jwt
import requests
from django.conf import settings

_local = threading.local()


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


def http_session() -> requests.Session:
    """One reused HTTP session per process and thread (never shared across a fork)."""
    session = getattr(_local, "session", None)
    if session is None or _local.pid != os.getpid():
        session = requests.Session()
        adapter = requests.adapters.HTTPAdapter(pool_connections=2, pool_maxsize=64, max_retries=0)
        session.mount("http://", adapter)
        session.mount("https://", adapter)
        _local.session, _local.pid = session, os.getpid()
    return session


def create_order(user, sku: str) -> requests.Response:
    """POST /api/v2/baskets/ with checkout: place and fulfil the order. May raise
    requests.Timeout or requests.RequestException."""
    return http_session().post(
        settings.ECOMMERCE_URL + "/api/v2/baskets/",
        json={"products": [{"sku": sku}], "checkout": True},
        headers={"Authorization": "JWT " + learner_token(user)},
        timeout=settings.ECOMMERCE_TIMEOUT,
    )
