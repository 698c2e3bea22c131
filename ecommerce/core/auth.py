"""JWT authentication for calls from the LMS.

The LMS signs a short-lived HS256 token for the learner it acts for:
``Authorization: JWT <token>`` with the claims ``username``, ``email``, ``exp`` and ``iss``
(which must equal JWT_ISSUER). Only HS256 is accepted, so ``alg=none`` and public-key
confusion are refused by construction. A token whose ``exp`` lies more than
JWT_MAX_LIFETIME_SECONDS ahead is refused: a stolen token must not live for years.

A token signed with JWT_SECRET_KEY (the learners' key, which the LMS and every Locust host hold)
never reaches a staff account, whatever it claims. Staff act through the API only with a token
signed with STAFF_JWT_SECRET_KEY, a key of its own that no load host holds; unset, no token
reaches staff at all. A staff token must name an active staff account.

A learner seen for the first time is *not* written here: the request gets an unsaved user and
the view that needs a row (placing an order) saves it inside its own transaction. Reading
endpoints therefore write nothing, and a first purchase costs no extra commit.
"""

import re
import time

import jwt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework import authentication, exceptions

from common import strict_json
from common.contract import tokens
from common.rows import by_unique, insert_or_find

USERNAME_PATTERN = re.compile(r"^[\w.@+-]{1,150}\Z")
MAX_TOKEN_LENGTH = 4096


class JwtAuthentication(authentication.BaseAuthentication):
    keyword = tokens.SCHEME

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Send the header as 'Authorization: JWT <token>'.")
        token = header[1]
        if len(token) > MAX_TOKEN_LENGTH:
            raise exceptions.AuthenticationFailed("The token is too long.")
        claims, staff = decode_token(token)
        return (staff_for_claims(claims) if staff else user_for_claims(claims)), claims

    def authenticate_header(self, request):
        return f'{self.keyword} realm="api"'


def decode_token(token: bytes) -> tuple[dict, bool]:
    """The token's claims, and whether it was signed with the staff key."""
    staff_key = settings.STAFF_JWT_SECRET_KEY
    try:
        try:
            claims, staff = _verified_claims(token, settings.JWT_SECRET_KEY), False
        except jwt.InvalidSignatureError:
            if not staff_key:
                raise
            claims, staff = _verified_claims(token, staff_key), True
    except jwt.ExpiredSignatureError:
        raise exceptions.AuthenticationFailed("The token has expired.") from None
    except jwt.MissingRequiredClaimError as exc:
        raise exceptions.AuthenticationFailed(f"The token lacks the claim {exc.claim!r}.") from None
    except jwt.InvalidIssuerError:
        raise exceptions.AuthenticationFailed("The token was issued by someone else.") from None
    except jwt.InvalidTokenError:
        raise exceptions.AuthenticationFailed("The token is not valid.") from None
    check_claims(claims)
    return claims, staff


def _verified_claims(token: bytes, key: str) -> dict:
    return jwt.decode(
        token,
        key,
        algorithms=[tokens.ALGORITHM],
        issuer=settings.JWT_ISSUER,
        leeway=settings.JWT_LEEWAY_SECONDS,
        options={"require": list(tokens.REQUIRED_CLAIMS)},
    )


def check_claims(claims: dict) -> None:
    """What PyJWT does not check: the lifetime left, and the learner's name and e-mail."""
    # PyJWT has read exp as int(exp) already, so this cannot fail.
    ahead = int(claims["exp"]) - time.time()
    if ahead > settings.JWT_MAX_LIFETIME_SECONDS + settings.JWT_LEEWAY_SECONDS:
        raise exceptions.AuthenticationFailed(
            f"The token lives too long: exp may lie at most {settings.JWT_MAX_LIFETIME_SECONDS} s ahead."
        )
    username, email = claims["username"], claims["email"]
    if not isinstance(username, str) or not USERNAME_PATTERN.match(username):
        raise exceptions.AuthenticationFailed("The token's username is not a valid username.")
    if not isinstance(email, str) or len(email) > 254 or not strict_json.is_text(email):
        raise exceptions.AuthenticationFailed("The token's email is not valid.")


def user_for_claims(claims: dict):
    """The learner the token speaks for: the stored user, or an unsaved one on first sight."""
    User = get_user_model()
    user = by_unique(User, User.USERNAME_FIELD, claims["username"])
    if user is None:
        return User(username=claims["username"], email=claims["email"])
    if not user.is_active:
        raise exceptions.AuthenticationFailed("This user is inactive.")
    if user.is_staff or user.is_superuser:
        raise exceptions.AuthenticationFailed("A learner token cannot act for a staff account.")
    return user


def staff_for_claims(claims: dict):
    """The staff account a token signed with STAFF_JWT_SECRET_KEY names: stored, active, staff."""
    User = get_user_model()
    user = by_unique(User, User.USERNAME_FIELD, claims["username"])
    if user is None or not user.is_active or not user.is_staff:
        raise exceptions.AuthenticationFailed("A staff token must name an active staff account.")
    return user


def save_new_user(user):
    """Store a learner met for the first time. Call inside the caller's transaction.

    Two first requests of one learner can race: the second insert waits for the first
    transaction and then finds the username taken; the stored row is used instead. One
    statement does both (``common.rows.insert_or_find``): no savepoint around an INSERT that may
    fail, which cost two more round trips and the ORM's save on every new learner's purchase.
    """
    if user.pk is not None:
        return user
    user.set_unusable_password()
    if not user.date_joined:
        user.date_joined = timezone.now()
    if insert_or_find(user, user.USERNAME_FIELD):
        return user
    return by_unique(get_user_model(), user.USERNAME_FIELD, user.get_username())
