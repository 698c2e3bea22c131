"""The enrollment API that ecommerce calls: API key, validation, idempotent on (user, course)."""

import json

import pytest

from common.contract.courses import seat
from lms_stub.enrollment.models import Enrollment

pytestmark = pytest.mark.django_db

URL = "/api/enrollment/v1/enrollment"


def enroll(client, key, **body):
    payload = {
        "user": "ada",
        "is_active": True,
        "mode": "verified",
        "course_details": {"course_id": seat(1).course_id},
    }
    payload.update(body)
    return client.post(URL, json.dumps(payload), content_type="application/json", **key)


@pytest.mark.parametrize("header", [{}, {"HTTP_X_EDX_API_KEY": "wrong"}, {"HTTP_X_EDX_API_KEY": ""}])
def test_the_api_key_is_required(client, header):
    response = enroll(client, header)
    assert response.status_code == 403
    assert response.json()["error"] == "invalid_api_key"
    assert client.get(URL, {"user": "ada"}, **header).status_code == 403
    assert Enrollment.objects.count() == 0


def test_enrolling_creates_an_active_enrollment(client, key):
    response = enroll(client, key)
    assert response.status_code == 200
    assert response.json() == {
        "user": "ada",
        "mode": "verified",
        "is_active": True,
        "course_details": {"course_id": seat(1).course_id},
    }
    row = Enrollment.objects.get()
    assert (row.user, row.course_id, row.mode, row.is_active) == ("ada", seat(1).course_id, "verified", True)


def test_enrolling_twice_keeps_one_enrollment(client, key):
    enroll(client, key)
    assert enroll(client, key).status_code == 200
    assert Enrollment.objects.count() == 1


def test_deactivating_updates_the_same_row(client, key):
    enroll(client, key)
    enroll(client, key, is_active=False)
    assert list(Enrollment.objects.values_list("is_active", flat=True)) == [False]


def test_listing_a_users_enrollments(client, key):
    enroll(client, key)
    enroll(client, key, course_details={"course_id": seat(2).course_id})
    enroll(client, key, user="grace")
    listed = client.get(URL, {"user": "ada"}, **key).json()
    assert [e["course_details"]["course_id"] for e in listed] == [seat(1).course_id, seat(2).course_id]


def test_listing_needs_a_user(client, key):
    response = client.get(URL, **key)
    assert response.status_code == 400


@pytest.mark.parametrize(
    "body",
    [
        {"user": ""},
        {"user": 5},
        {"user": "u" * 151},
        {"course_details": {}},
        {"course_details": "x"},
        {"mode": 3},
        {"is_active": "yes"},
    ],
)
def test_invalid_requests_are_400(client, key, body):
    response = enroll(client, key, **body)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"
    assert Enrollment.objects.count() == 0


def test_unknown_course_is_400(client, key):
    response = enroll(client, key, course_details={"course_id": "course-v1:Nope+X+1"})
    assert response.status_code == 400
    assert response.json()["error"] == "unknown_course"


def test_unknown_mode_is_400_and_lists_the_modes(client, key):
    response = enroll(client, key, mode="professional")
    assert response.status_code == 400
    assert response.json()["modes"] == ["honor", "verified"]


def test_malformed_json_and_wrong_content_type(client, key):
    assert client.post(URL, "{", content_type="application/json", **key).json()["error"] == "malformed_json"
    assert client.post(URL, "user=ada", content_type="text/plain", **key).status_code == 415


@pytest.mark.parametrize(
    "body",
    [
        b"[" * 5000 + b"]" * 5000,
        b'{"user": "\\ud800", "mode": "verified", "course_details": {"course_id": "COURSE"}}',
    ],
    ids=["nested too deeply", "lone surrogate"],
)
def test_json_python_cannot_handle_is_malformed_not_a_server_error(client, key, body):
    """Found by tests/schema: a RecursionError, or a user name MySQL cannot store, used to fail
    as a 500."""
    response = client.post(
        URL, body.replace(b"COURSE", seat(1).course_id.encode()), content_type="application/json", **key
    )
    assert response.status_code == 400
    assert response.json()["error"] == "malformed_json"
    assert Enrollment.objects.count() == 0


# Equal under the database's utf8mb4_unicode_ci: case, and any two characters outside the Basic
# Multilingual Plane (all weigh the same there). Usernames are compared exactly.
LOOK_ALIKES = [("Ana", "ana"), ("\U0001d49cna", "\U0001d49ena")]  # 𝒜na, 𝒞na


@pytest.mark.parametrize("names", LOOK_ALIKES, ids=["case", "astral"])
def test_usernames_equal_under_unicode_ci_have_separate_enrollments(client, key, names):
    first, second = names
    assert enroll(client, key, user=first).status_code == 200
    assert enroll(client, key, user=second, is_active=False).status_code == 200
    assert sorted(Enrollment.objects.values_list("user", "is_active")) == sorted(
        [(first, True), (second, False)]
    )
    for name in names:
        assert [e["user"] for e in client.get(URL, {"user": name}, **key).json()] == [name]


@pytest.mark.parametrize("names", LOOK_ALIKES, ids=["case", "astral"])
def test_usernames_equal_under_unicode_ci_are_two_learners(names, django_user_model):
    users = [django_user_model.objects.create(username=name) for name in names]
    assert [django_user_model.objects.get(username=name) for name in names] == users
