"""/auto_auth: a learner logged in (a fresh one unless named), edX's answer fields, and the CSRF
token to send back."""

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


def test_a_fresh_learner_costs_one_insert_and_no_transaction(client):
    """A load run calls /auto_auth for every purchase: a learner of the stand-in's own naming is
    one INSERT, committed by itself (no SET autocommit, savepoint or look-up first)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        response = client.get("/auto_auth")
    assert response.status_code == 201
    assert [q["sql"].split()[0] for q in captured.captured_queries] == ["INSERT"]


def test_a_learner_named_in_the_query_is_looked_for_first(client):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        response = client.get("/auto_auth", {"username": "grace"})
    assert response.status_code == 201
    assert [q["sql"].split()[0] for q in captured.captured_queries] == ["SELECT", "INSERT"]


def test_the_learner_stays_logged_in_for_later_requests(client):
    client.get("/auto_auth")
    response = client.post("/api/commerce/v0/baskets/", "{}", content_type="application/json")
    assert response.status_code == 400  # logged in: what is wrong is the body, not the login
    assert response.json()["error"] == "invalid_request"


def test_a_session_without_the_remembered_learner_is_read_from_the_database(client):
    """A session from before /auto_auth remembered the learner (or one whose remembered id is
    not the logged-in one) is read as Django reads it: the learner's row, and its checks."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from lms_stub.learners.session import LEARNER_KEY

    client.get("/auto_auth")
    for remembered in (None, [0, "someone_else", "x@example.com"]):
        session = client.session
        if remembered is None:
            del session[LEARNER_KEY]
        else:
            session[LEARNER_KEY] = remembered
        session.save()
        client.cookies["sessionid"] = session.session_key
        with CaptureQueriesContext(connection) as captured:
            response = client.post("/api/commerce/v0/baskets/", "{}", content_type="application/json")
        assert response.status_code == 400 and response.json()["error"] == "invalid_request"
        assert [q["sql"].split()[0] for q in captured.captured_queries] == ["SELECT"]
        assert "auth_user" in captured.captured_queries[0]["sql"]


def test_the_answer_has_edx_fields_and_a_password_that_logs_the_learner_in_again(client):
    first = client.get("/auto_auth").json()
    assert set(first) == {
        "created_status",
        "username",
        "email",
        "password",
        "user_id",
        "anonymous_id",
        "csrf_token",
    }
    assert first["created_status"] == "Created"
    assert len(first["anonymous_id"]) == 32 and int(first["anonymous_id"], 16) >= 0

    again = Client(HTTP_HOST="127.0.0.1").get(
        "/auto_auth", {"username": first["username"], "password": first["password"]}
    )
    assert again.status_code == 200
    body = again.json()
    assert (body["created_status"], body["user_id"], body["anonymous_id"]) == (
        "Logged in",
        first["user_id"],
        first["anonymous_id"],
    )
    assert get_user_model().objects.filter(username=first["username"]).count() == 1


def test_the_username_email_and_password_asked_for_are_honoured(client):
    response = client.get(
        "/auto_auth", {"username": "Ada.L", "email": "ada@lovelace.example", "password": "s3cret"}
    )
    assert response.status_code == 201
    assert (response.json()["username"], response.json()["email"], response.json()["password"]) == (
        "Ada.L",
        "ada@lovelace.example",
        "s3cret",
    )
    user = get_user_model().objects.get(username="Ada.L")
    assert user.email == "ada@lovelace.example" and user.check_password("s3cret")
    assert user.password.startswith("pbkdf2_sha256_loadtest$100$")  # see lms_stub/learners/hashers.py


def test_an_existing_learner_needs_its_password(client):
    client.get("/auto_auth", {"username": "grace", "password": "right"})
    for query in ({"username": "grace"}, {"username": "grace", "password": "wrong"}):
        response = Client(HTTP_HOST="127.0.0.1").get("/auto_auth", query)
        assert response.status_code == 403
        assert response.json()["error"] == "invalid_credentials"
        assert "sessionid" not in response.cookies


@pytest.mark.parametrize(
    "query",
    [
        {"username": "has space"},
        {"username": ""},
        {"password": ""},
        {"username": "x" * 151},
        {"email": "not-an-address"},
        {"email": "ada@example.com\n"},
        {"email": "ad\x1ca@example.com"},
        {"email": "a@" + "b" * 260},
        {"password": "p" * 129},
    ],
)
def test_a_username_email_or_password_it_cannot_take_is_a_400_and_creates_nobody(client, query):
    before = get_user_model().objects.count()
    response = client.get("/auto_auth", query)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"
    assert get_user_model().objects.count() == before


def test_a_database_that_cannot_be_reached_is_a_json_503(client, monkeypatch):
    """What a learner sees while MariaDB restarts (the chaos run does it for real)."""
    from django.db import OperationalError
    from django.db.backends.utils import CursorWrapper

    def unreachable(*args, **kwargs):
        raise OperationalError(2003, "Can't connect to MySQL server on '127.0.0.1'")

    monkeypatch.setattr(CursorWrapper, "execute", unreachable)  # every statement, whoever sends it
    response = client.get("/auto_auth")
    assert response.status_code == 503
    assert response["Retry-After"] == "1"
    assert response.json()["error"] == "database_unavailable"
