"""Learner tokens as the LMS signs them, and the broken ones an attacker would send."""

import time

import jwt

from common.contract import tokens

SECRET = "local-only-jwt-secret-do-not-deploy"
ISSUER = "lms-stub"


def claims_for(name: str, **overrides) -> dict:
    claims = {
        "username": name,
        "email": f"{name}@example.com",
        "exp": int(time.time()) + 60,
        "iss": ISSUER,
    }
    claims.update(overrides)
    return {name: value for name, value in claims.items() if value is not None}


def token(name: str, key: str = SECRET, algorithm: str = tokens.ALGORITHM, **overrides) -> str:
    return jwt.encode(claims_for(name, **overrides), key, algorithm=algorithm)


def auth_header(name: str, **overrides) -> dict:
    """Django test-client keyword arguments for an authenticated request."""
    return {"HTTP_AUTHORIZATION": tokens.authorization(token(name, **overrides))["Authorization"]}
