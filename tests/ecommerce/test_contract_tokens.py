"""A learner token minted by the contract (as lms_stub and the load suite mint them) is one
the order service accepts, and one it refuses once a required claim is gone."""

import pytest
from django.conf import settings
from rest_framework import exceptions

from common.contract import tokens
from ecommerce.core.auth import decode_token


def mint(**claims) -> str:
    return tokens.mint(
        settings.JWT_SECRET_KEY,
        settings.JWT_ISSUER,
        "learner_0123456789abcdef",
        "l@example.com",
        60,
        **claims,
    )


def test_a_contract_token_is_accepted():
    claims, staff = decode_token(mint())
    assert not staff
    assert (claims["username"], claims["email"], claims["iss"]) == (
        "learner_0123456789abcdef",
        "l@example.com",
        settings.JWT_ISSUER,
    )


@pytest.mark.parametrize("claim", tokens.REQUIRED_CLAIMS)
def test_each_required_claim_is_required(claim):
    with pytest.raises(exceptions.AuthenticationFailed):
        decode_token(mint(**{claim: None}))


def test_the_header_names_the_scheme_the_service_reads():
    assert tokens.authorization("abc") == {"Authorization": "JWT abc"}


def test_a_token_as_edx_ecommerce_api_client_1_1_2_minted_it_is_accepted():
    """edX's 2015 load client signed with ecommerce-api-client 1.1.2: username, full_name (None
    when unknown), email, iss and a 30-second exp, no iat."""
    import time

    import jwt

    token = jwt.encode(
        {
            "username": "learner_0123456789abcdef",
            "full_name": None,
            "email": "l@example.com",
            "iss": settings.JWT_ISSUER,
            "exp": int(time.time()) + 30,
        },
        settings.JWT_SECRET_KEY,
        algorithm="HS256",
    )
    claims, staff = decode_token(token)
    assert claims["username"] == "learner_0123456789abcdef" and not staff
