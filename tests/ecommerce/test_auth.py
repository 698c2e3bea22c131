"""JWT authentication: only a valid HS256 token from the LMS gets in; nothing else writes."""

import time

import jwt
import pytest

from tests.ecommerce.helpers import row_counts
from tests.support import tokens

pytestmark = pytest.mark.django_db


def buy_with_header(api, seats, header_value):
    extra = {"HTTP_AUTHORIZATION": header_value} if header_value is not None else {}
    return api.post_json("/api/v2/baskets/", {"products": [{"sku": seats[0].sku}], "checkout": True}, **extra)


def assert_401(response, message_part=""):
    assert response.status_code == 401, response.content
    body = response.json()
    assert body["error"] in ("not_authenticated", "authentication_failed")
    assert message_part.lower() in body["message"].lower()
    assert response["WWW-Authenticate"].startswith("JWT")


def unsigned_token(claims: dict) -> str:
    """A token with alg=none: header and claims, no signature."""
    return jwt.encode(claims, key=None, algorithm="none")


@pytest.mark.parametrize(
    "header, message",
    [
        (None, "credentials were not provided"),
        ("JWT", "Authorization: JWT <token>"),
        ("JWT a b", "Authorization: JWT <token>"),
        ("JWT not-a-token", "not valid"),
        ("Bearer " + tokens.token("someone"), "credentials were not provided"),
    ],
    ids=["missing", "no-token", "two-tokens", "garbage", "wrong-scheme"],
)
def test_missing_or_malformed_header_is_401(api, seats, header, message):
    before = row_counts()
    assert_401(buy_with_header(api, seats, header), message)
    assert row_counts() == before


def test_expired_token_is_401(api, seats):
    expired = tokens.token("late", exp=int(time.time()) - 60)
    assert_401(buy_with_header(api, seats, "JWT " + expired), "expired")


def test_token_signed_with_another_key_is_401(api, seats):
    forged = tokens.token("mallory", key="not-the-shared-secret-at-all-but-long-enough-for-hmac-sha")
    assert_401(buy_with_header(api, seats, "JWT " + forged), "not valid")


def test_alg_none_token_is_401(api, seats):
    assert_401(
        buy_with_header(api, seats, "JWT " + unsigned_token(tokens.claims_for("mallory"))), "not valid"
    )


def test_other_hmac_algorithm_is_401(api, seats):
    other = tokens.token("mallory", key=tokens.SECRET * 2, algorithm="HS512")
    assert_401(buy_with_header(api, seats, "JWT " + other), "not valid")


@pytest.mark.parametrize("claim", ["username", "email", "exp", "iss"])
def test_token_missing_a_claim_is_401(api, seats, claim):
    incomplete = tokens.token("someone", **{claim: None})
    assert_401(buy_with_header(api, seats, "JWT " + incomplete), claim)


def test_token_from_another_issuer_is_401(api, seats):
    other = tokens.token("someone", iss="somebody-else")
    assert_401(buy_with_header(api, seats, "JWT " + other), "issued by someone else")


@pytest.mark.parametrize("username", ["", "has space", "x" * 151, 42])
def test_token_with_invalid_username_is_401(api, seats, username):
    bad = tokens.token("placeholder", username=username)
    assert_401(buy_with_header(api, seats, "JWT " + bad), "username")


def test_inactive_user_is_401(api, seats, django_user_model):
    django_user_model.objects.create(username="gone", email="g@example.com", is_active=False)
    assert_401(buy_with_header(api, seats, "JWT " + tokens.token("gone")), "inactive")


def test_token_whose_email_is_not_text_is_401_and_writes_nothing(api, seats):
    """Found by tests/schema: a lone surrogate in the email claim reached MySQL (a 500)."""
    before = row_counts()
    token = tokens.token("surrogate_learner", email="a\ud800@example.com")
    assert_401(buy_with_header(api, seats, "JWT " + token), "email")
    assert row_counts() == before


def test_reading_as_a_new_learner_writes_nothing(api):
    before = row_counts()
    response = api.get("/api/v2/orders/", "first_visit")
    assert response.status_code == 200
    assert response.json()["results"] == []
    assert row_counts() == before


def test_a_learner_token_cannot_act_for_a_staff_account(api, seats, staff):
    before = row_counts()
    assert_401(buy_with_header(api, seats, "JWT " + tokens.token(staff.username)), "staff account")
    assert api.get("/api/v2/orders/", staff.username).status_code == 401
    assert row_counts() == before


def test_an_administrator_claim_signed_with_the_learners_key_is_not_staff(api, seats, staff):
    """Every Locust host and the LMS hold JWT_SECRET_KEY: what it signs never reaches staff."""
    before = row_counts()
    response = api.get("/api/v2/orders/", staff.username, claims={"administrator": True})
    assert_401(response, "staff account")
    admin_claim = tokens.token(staff.username, administrator=True)
    assert_401(buy_with_header(api, seats, "JWT " + admin_claim), "staff account")
    assert row_counts() == before


def test_a_token_signed_with_the_staff_key_acts_for_a_staff_account(api, staff):
    response = api.get("/api/v2/orders/", staff.username, staff=True)
    assert response.status_code == 200, response.content
    # staff may retry any order's fulfilment: an unknown one is 404, not a learner's 403
    assert api.put("/api/v2/orders/999999/fulfill/", staff.username, staff=True).status_code == 404


def test_without_a_staff_key_no_token_reaches_staff(api, staff, settings):
    settings.STAFF_JWT_SECRET_KEY = None
    assert_401(api.get("/api/v2/orders/", staff.username, staff=True), "not valid")
    assert_401(api.get("/api/v2/orders/", staff.username, claims={"administrator": True}), "staff account")


def test_a_staff_token_must_name_a_staff_account(api, django_user_model):
    django_user_model.objects.create(username="plain", email="p@example.com")
    before = row_counts()
    assert_401(api.get("/api/v2/orders/", "plain", staff=True), "staff account")
    assert_401(api.get("/api/v2/orders/", "nobody_yet", staff=True), "staff account")
    assert row_counts() == before


def test_the_administrator_claim_gives_a_learner_nothing(api, django_user_model):
    django_user_model.objects.create(username="plain", email="p@example.com")
    response = api.put("/api/v2/orders/1/fulfill/", "plain", claims={"administrator": True})
    assert response.status_code == 403


THIRTY_ONE_YEARS = 31 * 365 * 86400


@pytest.mark.parametrize("staff_key", [False, True], ids=["learner", "staff"])
def test_a_token_that_lives_31_years_is_401(api, seats, staff, staff_key):
    exp = int(time.time()) + THIRTY_ONE_YEARS
    name = staff.username if staff_key else "patient_learner"
    response = api.get("/api/v2/orders/", name, claims={"exp": exp}, staff=staff_key)
    assert_401(response, "lives too long")


def test_a_token_within_the_maximum_lifetime_is_taken(api, settings):
    exp = int(time.time()) + settings.JWT_MAX_LIFETIME_SECONDS
    assert api.get("/api/v2/orders/", "hour_learner", claims={"exp": exp}).status_code == 200
    settings.JWT_MAX_LIFETIME_SECONDS = 60
    assert_401(api.get("/api/v2/orders/", "hour_learner", claims={"exp": exp}), "at most 60 s ahead")
