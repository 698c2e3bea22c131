"""The learner of a request, from its signed session alone.

The LMS's sessions are signed cookies (settings.lms_stub: SESSION_ENGINE): the cookie holds the
session's data, signed with SECRET_KEY, so what /auto_auth put there comes back unaltered or
not at all. Django's AuthenticationMiddleware still read the learner's row for every request
that looked at ``request.user`` (the commerce endpoint does, for every purchase: about 12 % of
the stand-in's CPU in `make profile`, and one statement per purchase). /auto_auth now also
writes the three fields the LMS uses (id, username, email) into the session, and the learner
is built from them without a query.

What that gives up, knowingly, for a stand-in: Django's check that the password has not
changed since the login (the session's hash of it), and that the learner is still active and
still exists. Nothing in the stand-in changes a password, deactivates or deletes a learner; a
session from before this (without the fields) is read from the database as Django reads it.
"""

from django.contrib import auth
from django.contrib.auth import get_user_model
from django.utils.functional import SimpleLazyObject

LEARNER_KEY = "_lms_learner"


def remember(request, user) -> None:
    """After ``login``: keep what the LMS needs of ``user`` in its session."""
    request.session[LEARNER_KEY] = [user.pk, user.username, user.email]


def learner(request):
    """The session's learner: built from the session when /auto_auth remembered it, else read
    as Django reads it (AnonymousUser when there is none)."""
    session = request.session
    remembered = session.get(LEARNER_KEY)
    logged_in = session.get(auth.SESSION_KEY)
    if isinstance(remembered, list) and len(remembered) == 3 and logged_in is not None:
        user_id, username, email = remembered
        if str(user_id) == str(logged_in):
            User = get_user_model()
            user = User(pk=user_id, username=username, email=email)
            user._state.adding, user._state.db = False, "default"
            return user
    return auth.get_user(request)


class SessionLearnerMiddleware:
    """In place of Django's AuthenticationMiddleware: ``request.user``, lazily, from the session."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.user = SimpleLazyObject(lambda: learner(request))
        return self.get_response(request)
