"""Learner tokens as the LMS signs them, staff tokens signed with the staff key, and the broken
ones an attacker would send."""

import time

import jwt

from common.contract import tokens

SECRET = "local-only-jwt-secret-do-not-deploy"
# The key the test settings and the test stacks sign staff tokens with (STAFF_JWT_SECRET_KEY).
STAFF_SECRET = "test-only-staff-jwt-secret-not-the-learners-key"
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


def staff_token(name: str, **overrides) -> str:
    """A token that acts for the staff account ``name``: signed with the staff key."""
    return token(name, key=STAFF_SECRET, **overrides)


def auth_header(name: str, **overrides) -> dict:
    """Django test-client keyword arguments for an authenticated request."""
    return {"HTTP_AUTHORIZATION": tokens.authorization(token(name, **overrides))["Authorization"]}
