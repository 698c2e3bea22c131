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
    claims = decode_token(mint())
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
