"""The index audit acts for staff with a token signed by the stack's staff key (given to it on
the controlling machine), never with the learners' key every Locust host holds."""

from types import SimpleNamespace

import jwt
import pytest

from common.contract import tokens
from locustfiles.suite.tools.index_audit import Audit

LEARNER_KEY = "learner-key-for-this-test-only-0123456789abcdef"
STAFF_KEY = "staff-key-for-this-test-only-0123456789abcdef"
ENV = {"JWT_SECRET_KEY": LEARNER_KEY, "JWT_ISSUER": "lms-stub", "ECOMMERCE_STAFF_USER": "the_staff"}


def header_token(headers: dict) -> str:
    scheme, token = headers["Authorization"].split()
    assert scheme == tokens.SCHEME
    return token


def test_the_audit_signs_staff_tokens_with_the_staff_key_and_learner_tokens_with_the_learners():
    audit = Audit(SimpleNamespace(env=ENV), "staff-password", STAFF_KEY, preloaded=1, courses=1)
    staff = header_token(audit.staff())
    claims = jwt.decode(staff, STAFF_KEY, algorithms=["HS256"], issuer="lms-stub")
    assert claims["username"] == "the_staff" and "administrator" not in claims
    with pytest.raises(jwt.InvalidSignatureError):
        jwt.decode(staff, LEARNER_KEY, algorithms=["HS256"], issuer="lms-stub")
    learner = header_token(audit.learner("someone"))
    assert jwt.decode(learner, LEARNER_KEY, algorithms=["HS256"], issuer="lms-stub")["username"] == "someone"
