"""JWT authentication for calls from the LMS.

The LMS signs a short-lived HS256 token for the learner it acts for:
``Authorization: JWT <token>`` with the claims ``username``, ``email``, ``exp`` and ``iss``
(which must equal JWT_ISSUER). Only HS256 is accepted, so ``alg=none`` and public-key
confusion are refused by construction.

A token names a learner; it only reaches a staff account when it also carries
``"administrator": true``, so a learner who registers on the LMS as "staff" gains nothing.

A learner seen for the first time is *not* written here: the request gets an unsaved user and
the view that needs a row (placing an order) saves it inside its own transaction. Reading
endpoints therefore write nothing, and a first purchase costs no extra commit.
"""

import re

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
        claims = decode_token(token)
        return user_for_claims(claims), claims

    def authenticate_header(self, request):
        return f'{self.keyword} realm="api"'


def decode_token(token: bytes) -> dict:
    try:
        claims = jwt.decode(
            token,
            settings.JWT_SECRET_KEY,
            algorithms=[tokens.ALGORITHM],
            issuer=settings.JWT_ISSUER,
            leeway=settings.JWT_LEEWAY_SECONDS,
            options={"require": list(tokens.REQUIRED_CLAIMS)},
        )
    except jwt.ExpiredSignatureError:
        raise exceptions.AuthenticationFailed("The token has expired.") from None
    except jwt.MissingRequiredClaimError as exc:
        raise exceptions.AuthenticationFailed(f"The token lacks the claim {exc.claim!r}.") from None
    except jwt.InvalidIssuerError:
        raise exceptions.AuthenticationFailed("The token was issued by someone else.") from None
    except jwt.InvalidTokenError:
        raise exceptions.AuthenticationFailed("The token is not valid.") from None
    username, email = claims["username"], claims["email"]
    if not isinstance(username, str) or not USERNAME_PATTERN.match(username):
        raise exceptions.AuthenticationFailed("The token's username is not a valid username.")
    if not isinstance(email, str) or len(email) > 254 or not strict_json.is_text(email):
        raise exceptions.AuthenticationFailed("The token's email is not valid.")
    return claims


def user_for_claims(claims: dict):
    """The learner the token speaks for: the stored user, or an unsaved one on first sight."""
    User = get_user_model()
    user = by_unique(User, User.USERNAME_FIELD, claims["username"])
    if user is None:
        return User(username=claims["username"], email=claims["email"])
    if not user.is_active:
        raise exceptions.AuthenticationFailed("This user is inactive.")
    if (user.is_staff or user.is_superuser) and claims.get("administrator") is not True:
        raise exceptions.AuthenticationFailed("A learner token cannot act for a staff account.")
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
