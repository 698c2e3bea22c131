"""Who gets in: the Oscar dashboard is for staff only, and a session (cookie) login must send
the CSRF token to change anything through the API; a JWT needs none (no cookie to ride on)."""

import io
import json

import pytest
from django.core.management import call_command
from django.test import Client

pytestmark = pytest.mark.django_db

HOST = {"HTTP_HOST": "127.0.0.1"}


@pytest.fixture
def learner_account(django_user_model):
    return django_user_model.objects.create_user("a_learner", "l@example.com", "learner-password")


def test_the_dashboard_sends_an_anonymous_visitor_to_the_login(client):
    response = client.get("/dashboard/", **HOST)
    assert response.status_code == 302
    assert response["Location"] == "/dashboard/login/?next=/dashboard/"


def test_a_learner_logged_in_is_forbidden_the_dashboard(client, learner_account):
    client.force_login(learner_account)
    assert client.get("/dashboard/", **HOST).status_code == 403
    assert client.get("/dashboard/orders/", **HOST).status_code == 403


def test_staff_get_the_dashboard(client, staff):
    client.force_login(staff)
    assert client.get("/dashboard/", **HOST).status_code == 200


def basket_post(client, seats, **headers):
    body = json.dumps({"products": [{"sku": seats[0].sku}], "checkout": False})
    return client.post("/api/v2/baskets/", body, content_type="application/json", **HOST, **headers)


def test_a_session_login_without_the_csrf_token_is_refused_and_writes_nothing(learner_account, seats):
    from oscar.core.loading import get_model

    browser = Client(enforce_csrf_checks=True)
    browser.force_login(learner_account)
    baskets = get_model("basket", "Basket").objects.count()

    response = basket_post(browser, seats)

    assert response.status_code == 403
    assert response.json()["error"] == "permission_denied"
    assert "CSRF" in response.json()["message"]
    assert get_model("basket", "Basket").objects.count() == baskets


@pytest.mark.parametrize("page", ["/dashboard/login/", "/accounts/login/"])
def test_the_login_pages_render(client, page):
    response = client.get(page, **HOST)
    assert response.status_code == 200
    assert b"csrfmiddlewaretoken" in response.content


def test_a_session_login_with_the_csrf_token_may_buy(learner_account, seats):
    browser = Client(enforce_csrf_checks=True)
    assert browser.get("/accounts/login/", **HOST).status_code == 200  # the login form sets the cookie
    token = browser.cookies["csrftoken"].value
    browser.force_login(learner_account)
    response = basket_post(browser, seats, HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 201, response.content


def test_a_jwt_request_needs_no_csrf_token(api, seats, learner):
    api.client = Client(enforce_csrf_checks=True)
    assert api.buy(learner, [seats[0].sku], checkout=False).status_code == 201


def test_the_staff_account_gets_the_email_the_deployment_sets(settings, monkeypatch, django_user_model):
    """Not a published address anyone could ask a password reset for (issue 28); an account made
    with an older one takes the setting's at the next ensure_staff."""
    monkeypatch.setenv("ECOMMERCE_STAFF_PASSWORD", "a-long-enough-password")
    settings.ECOMMERCE_STAFF_EMAIL = "ops-team@orders.example.com"
    call_command("ensure_staff", "--username", "the_staff", stdout=io.StringIO())
    assert django_user_model.objects.get(username="the_staff").email == "ops-team@orders.example.com"
    settings.ECOMMERCE_STAFF_EMAIL = "night-shift@orders.example.com"
    call_command("ensure_staff", "--username", "the_staff", stdout=io.StringIO())
    assert django_user_model.objects.get(username="the_staff").email == "night-shift@orders.example.com"


def test_the_staff_account_has_no_email_unless_one_is_set(settings, monkeypatch, django_user_model):
    monkeypatch.setenv("ECOMMERCE_STAFF_PASSWORD", "a-long-enough-password")
    settings.ECOMMERCE_STAFF_EMAIL = ""
    call_command("ensure_staff", "--username", "the_staff", stdout=io.StringIO())
    assert django_user_model.objects.get(username="the_staff").email == ""


def dashboard_login(client, username, password):
    return client.post("/dashboard/login/", {"username": username, "password": password}, **HOST)


def test_dashboard_logins_are_throttled_per_username(settings, django_user_model):
    """Issue 28: after AXES_FAILURE_LIMIT wrong passwords for one username, even the right one
    is refused (429) from any client, and no session is made; other usernames are unaffected."""
    django_user_model.objects.create_user("guarded", "g@example.com", "the-right-password", is_staff=True)
    django_user_model.objects.create_user("bystander", "b@example.com", "the-other-password", is_staff=True)
    attacker = Client()
    for attempt in range(settings.AXES_FAILURE_LIMIT - 1):
        assert dashboard_login(attacker, "guarded", f"guess-{attempt}").status_code == 200  # the form again
    assert dashboard_login(attacker, "guarded", "guess-last").status_code == 429
    owner = Client()
    locked = dashboard_login(owner, "guarded", "the-right-password")
    assert locked.status_code == 429
    assert "_auth_user_id" not in owner.session
    assert dashboard_login(Client(), "bystander", "the-other-password").status_code == 302


def test_a_successful_login_clears_the_failures(settings, django_user_model):
    django_user_model.objects.create_user("forgetful", "f@example.com", "the-right-password", is_staff=True)
    client = Client()
    for round_ in range(2):
        for attempt in range(settings.AXES_FAILURE_LIMIT - 1):
            assert dashboard_login(client, "forgetful", f"guess-{round_}-{attempt}").status_code == 200
        assert dashboard_login(client, "forgetful", "the-right-password").status_code == 302
        client.logout()
