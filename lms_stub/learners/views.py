import hashlib
import hmac
import re
import secrets

from django.conf import settings
from django.contrib.auth import get_user_model, login
from django.db import IntegrityError, transaction
from django.http import JsonResponse
from django.middleware.csrf import get_token
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt

from common import rows, strict_json
from lms_stub.http import BadRequest, allow_methods, api_view, error
from lms_stub.learners import session

# As ecommerce's JWT authentication takes them (ecommerce/core/auth.py): the name travels there.
USERNAME = re.compile(r"^[\w.@+-]{1,150}\Z")
# An address with one "@" before its domain and no spaces or control characters; the OpenAPI
# document states the same pattern (ECMAScript and Python read it alike).
EMAIL_PATTERN = r"^[^\u0000-\u0020@]+@[^\u0000-\u0020]+$"
EMAIL = re.compile(EMAIL_PATTERN)
MAX_EMAIL = 254
MAX_PASSWORD = 128


# GET does the same without a CSRF token, so checking one on POST would protect nothing.
# Not wrapped in ATOMIC_REQUESTS' transaction: the one write is a single INSERT, atomic and
# committed on its own in autocommit, where the transaction cost four more round trips to
# MariaDB (SET autocommit twice, a savepoint's two) on every purchase of a load run.
@csrf_exempt
@transaction.non_atomic_requests
@allow_methods("GET", "POST")
@api_view
def auto_auth(request):
    """GET /auto_auth — log a learner in, creating it first, as edX's LMS did for load tests.

    With no query, a fresh learner with a random name and password. ``username``, ``email`` and
    ``password`` choose them instead; a learner that exists is logged in only with its password.
    The answer has edX's fields (``username``, ``email``, ``password``, ``user_id``,
    ``anonymous_id``, ``created_status``) and the CSRF token to send back as X-CSRFToken; the
    session and CSRF cookies are set.
    """
    username, email, password = _credentials(request.GET)
    User = get_user_model()
    # A name of our own choosing is new (64 random bits): no need to look for it first.
    user = User._default_manager.filter(username=username).first() if "username" in request.GET else None
    created = False
    if user is None:
        user = User(username=username, email=email or f"{username}@example.com", last_login=timezone.now())
        user.set_password(password)
        try:
            # One INSERT composed once (no model signals: none are listened to here), not the
            # ORM's save, which composed it anew for every learner of a load run.
            rows.insert_all([user])
            created = True
        except IntegrityError:  # created by a concurrent call with the same name
            user = User._default_manager.get(username=username)
    if not created and not ("password" in request.GET and user.check_password(password)):
        return error(403, "invalid_credentials", f"Learner {username!r} exists; send its password.")
    login(request, user, backend="lms_stub.learners.backends.LearnerBackend")
    session.remember(request, user)
    body = {
        "created_status": "Created" if created else "Logged in",
        "username": user.username,
        "email": user.email,
        "password": password,
        "user_id": user.pk,
        "anonymous_id": anonymous_id(user.pk),
        "csrf_token": get_token(request),
    }
    return JsonResponse(body, status=201 if created else 200)


def _credentials(query) -> tuple[str, str | None, str]:
    """The username, email and password asked for, or BadRequest saying which is unusable."""
    for name in ("username", "email", "password"):
        if len(query.getlist(name)) > 1:
            raise BadRequest(f"Give '{name}' once.")
        if name in query and not strict_json.is_text(query[name]):
            raise BadRequest(f"'{name}' is not text.")
        if name in query and query[name] == "":
            raise BadRequest(f"'{name}' is empty: give a value or leave it out.")
    username = query.get("username") or "learner_" + secrets.token_hex(8)
    if not USERNAME.match(username):
        raise BadRequest("'username' takes 1 to 150 letters, digits and @.+-_ only.")
    email = query.get("email") or None
    if email is not None and (len(email) > MAX_EMAIL or not EMAIL.fullmatch(email)):
        raise BadRequest(
            f"'email' must be an address (name@domain, no spaces) of at most {MAX_EMAIL} characters."
        )
    password = query.get("password") or secrets.token_urlsafe(12)
    if len(password) > MAX_PASSWORD:
        raise BadRequest(f"'password' takes at most {MAX_PASSWORD} characters.")
    return username, email, password


def anonymous_id(user_id: int) -> str:
    """A learner's stable anonymous id (32 hex digits), as edX's LMS handed out: derived from
    the user id and this service's secret, so it reveals neither."""
    return hmac.new(
        settings.SECRET_KEY.encode(), f"anonymous-id:{user_id}".encode(), hashlib.sha256
    ).hexdigest()[:32]
