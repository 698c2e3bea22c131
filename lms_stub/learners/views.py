import secrets

from django.contrib.auth import get_user_model, login
from django.http import JsonResponse
from django.middleware.csrf import get_token
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt

from lms_stub.http import allow_methods


# GET does the same without a CSRF token, so checking one on POST would protect nothing.
@csrf_exempt
@allow_methods("GET", "POST")
def auto_auth(request):
    """GET /auto_auth — create a fresh learner and log it in, as edX's load tests did.

    Answers the learner's name and sets the session and CSRF cookies; the CSRF token is also in
    the body so a client can send it back as X-CSRFToken.
    """
    username = "learner_" + secrets.token_hex(8)
    user = get_user_model()(username=username, email=f"{username}@example.com", last_login=timezone.now())
    user.set_unusable_password()
    user.save()
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    return JsonResponse(
        {"username": username, "email": user.email, "user_id": user.pk, "csrf_token": get_token(request)},
        status=201,
    )
