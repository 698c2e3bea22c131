"""The index audit acts for staff with a token signed by the stack's staff key (given to it on
the controlling machine), never with the learners' key every Locust host holds."""

from types import SimpleNamespace

import jwt
import pytest

from common.contract import tokens
from locustfiles.suite.tools.index_audit import Audit, markdown

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


def test_the_table_is_markdown_with_a_scan_in_bold_and_long_statements_cut_at_a_word():
    statement = "SELECT `order_order`.`id` FROM `order_order` WHERE `status` = 'a|b' AND " + "x = 1 AND " * 20
    rows = [
        {
            "path": "read back",
            "schema": "ecommerce",
            "statement": statement,
            "calls": 3,
            "rows_per_call": 250_000,
        }
        | {"mean_ms": 41.5, "no_index": 3, "scans": True},
        {"path": "read back", "schema": "ecommerce", "statement": "SELECT 1", "calls": 3, "rows_per_call": 1}
        | {"mean_ms": 0.1, "no_index": 0, "scans": False},
    ]
    lines = markdown(rows, 40_000).splitlines()
    assert lines[:3] == [
        "# Index audit: 40,000 preloaded purchases",
        "",
        "A statement scans when it reads more than 10,001 rows per call.",
    ]
    assert lines[4].startswith("| path | database | statement | calls |") and lines[5].endswith(
        "| ---: | --- |"
    )
    assert lines[6].endswith("| 3 | 250,000 | 41.5 | 3 | **scans** |") and "'a\\|b'" in lines[6]
    code = lines[6].split(" | ")[2]  # a double-backtick code span: the digest has backticks of its own
    assert code.startswith("`` SELECT `order_order`") and code.endswith(" ``")
    shown = code[3:-3].replace("\\|", "|")
    assert shown.endswith(" …") and len(shown) <= 142 and shown[:-2] in " ".join(statement.split())
    assert lines[7] == "| read back | ecommerce | `` SELECT 1 `` | 3 | 1 | 0.1 | 0 | no |"
