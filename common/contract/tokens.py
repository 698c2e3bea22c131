"""The learner token the LMS signs for the order API: ``Authorization: JWT <token>``, HS256,
with the claims ``username``, ``email``, ``iss`` and ``exp`` (the order service requires all
four and refuses any other algorithm)."""

import time

import jwt

SCHEME = "JWT"
ALGORITHM = "HS256"
REQUIRED_CLAIMS = ("exp", "username", "email", "iss")


def mint(secret: str, issuer: str, username: str, email: str, lifetime_seconds: int, /, **claims) -> str:
    """A token for ``username``; ``claims`` adds to or overrides the standard ones (a claim
    given as None is left out)."""
    now = int(time.time())
    body = {
        "username": username,
        "email": email,
        "iat": now,
        "exp": now + lifetime_seconds,
        "iss": issuer,
        **claims,
    }
    return jwt.encode({k: v for k, v in body.items() if v is not None}, secret, algorithm=ALGORITHM)


def authorization(token: str) -> dict[str, str]:
    """The header that carries ``token``."""
    return {"Authorization": f"{SCHEME} {token}"}
