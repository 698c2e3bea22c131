"""/auto_auth: a fresh learner per call, logged in, with the CSRF token to send back."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

pytestmark = pytest.mark.django_db


def test_each_call_creates_and_logs_in_a_new_learner(client):
    first = client.get("/auto_auth")
    assert first.status_code == 201
    body = first.json()
    assert body["username"].startswith("learner_")
    assert body["email"] == body["username"] + "@example.com"
    assert "sessionid" in first.cookies and "csrftoken" in first.cookies

    second = Client(HTTP_HOST="127.0.0.1").get("/auto_auth").json()

    assert second["username"] != body["username"]
    names = [body["username"], second["username"]]
    assert get_user_model().objects.filter(username__in=names).count() == 2


def test_the_learner_stays_logged_in_for_later_requests(client):
    client.get("/auto_auth")
    response = client.post("/api/commerce/v0/baskets/", "{}", content_type="application/json")
    assert response.status_code == 400  # logged in: what is wrong is the body, not the login
    assert response.json()["error"] == "invalid_request"


def test_learners_have_no_usable_password(client):
    name = client.get("/auto_auth").json()["username"]
    assert not get_user_model().objects.get(username=name).has_usable_password()


def test_a_database_that_cannot_be_reached_is_a_json_503(client, monkeypatch):
    """What a learner sees while MariaDB restarts (the chaos run does it for real)."""
    from django.contrib.auth import get_user_model
    from django.db import OperationalError

    def unreachable(*args, **kwargs):
        raise OperationalError(2003, "Can't connect to MySQL server on '127.0.0.1'")

    monkeypatch.setattr(get_user_model(), "save", unreachable)
    response = client.get("/auto_auth")
    assert response.status_code == 503
    assert response["Retry-After"] == "1"
    assert response.json()["error"] == "database_unavailable"
