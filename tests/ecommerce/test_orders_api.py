"""Reading orders back: own orders only (staff see all), cursor pages, never a COUNT."""

import base64
import urllib.parse
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def orders(api, lms, seats, learner, other_learner):
    """Three orders of ``learner`` and one of ``other_learner``: their numbers, newest first."""
    mine = [api.buy(learner, [seat.sku]).json()["order"]["number"] for seat in seats[:3]]
    theirs = api.buy(other_learner, [seats[0].sku]).json()["order"]["number"]
    return {"mine": mine[::-1], "theirs": theirs}


def numbers(response):
    return [order["number"] for order in response.json()["results"]]


def test_a_learner_lists_only_their_own_orders_newest_first(api, orders, learner):
    response = api.get("/api/v2/orders/", learner)
    assert response.status_code == 200
    assert numbers(response) == orders["mine"]
    first = response.json()["results"][0]
    assert set(first) == {"number", "status", "total_excl_tax", "currency", "date_placed", "lines"}


def test_staff_list_every_order(api, orders, staff):
    response = api.get("/api/v2/orders/", staff.username, staff=True)
    assert numbers(response) == [orders["theirs"], *orders["mine"]]


def test_the_list_is_paged_by_cursor_without_counting(api, orders, learner):
    with CaptureQueriesContext(connection) as queries:
        page = api.get("/api/v2/orders/?page_size=2", learner)
    body = page.json()
    assert numbers(page) == orders["mine"][:2]
    assert "count" not in body
    assert body["previous"] is None and body["next"]
    assert not any("COUNT(" in q["sql"].upper() for q in queries.captured_queries)

    rest = api.get(body["next"].replace("http://127.0.0.1", ""), learner)
    assert numbers(rest) == orders["mine"][2:]
    assert rest.json()["next"] is None


def test_an_order_is_readable_by_its_owner(api, orders, learner):
    number = orders["mine"][0]
    response = api.get(f"/api/v2/orders/{number}/", learner)
    assert response.status_code == 200
    assert response.json()["number"] == number
    assert len(response.json()["lines"]) == 1


def test_another_learners_order_is_404(api, orders, learner):
    response = api.get(f"/api/v2/orders/{orders['theirs']}/", learner)
    assert response.status_code == 404
    assert response.json()["error"] == "not_found"


def test_staff_read_any_order(api, orders, staff):
    assert api.get(f"/api/v2/orders/{orders['theirs']}/", staff.username, staff=True).status_code == 200


# Equal under the database's utf8mb4_unicode_ci: case, and any two characters outside the Basic
# Multilingual Plane (all weigh the same there). The token's username pattern (\w) admits both.
LOOK_ALIKES = [("Ana", "ana"), ("\U0001d49cna", "\U0001d49ena")]  # 𝒜na, 𝒞na


@pytest.mark.parametrize("names", LOOK_ALIKES, ids=["case", "astral"])
def test_usernames_equal_under_unicode_ci_are_two_learners(api, lms, seats, names, django_user_model):
    suffix = "_" + uuid.uuid4().hex[:8]  # the LMS database lives for the whole session
    first, second = (name + suffix for name in names)
    bought = {}
    for name in (first, second):
        response = api.buy(name, [seats[0].sku])
        assert response.status_code == 201, response.json()
        assert response.json()["order"]["status"] == "Complete"
        bought[name] = response.json()["order"]["number"]
    assert sorted(django_user_model.objects.values_list("username", flat=True)) == sorted([first, second])
    for me, them in ((first, second), (second, first)):
        assert numbers(api.get("/api/v2/orders/", me)) == [bought[me]]
        assert api.get(f"/api/v2/orders/{bought[them]}/", me).status_code == 404
        assert [e["user"] for e in lms.enrollments(me)] == [me]


def test_orders_need_authentication(api, orders):
    response = api.get("/api/v2/orders/")
    assert response.status_code == 401
    assert response.json()["error"] == "not_authenticated"


def test_health_answers_without_authentication(api, db):
    response = api.get("/health/")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok"}


@pytest.mark.parametrize("page_size", ["0", "-1", "abc", "1.5", "", "\u0661"])
def test_a_page_size_that_is_not_a_whole_number_of_at_least_1_is_400(api, learner, page_size):
    """DRF silently used the default; the schema promises an integer of at least 1."""
    response = api.get(f"/api/v2/orders/?page_size={page_size}", learner)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"
    assert "page_size" in response.json()["fields"]


@pytest.mark.parametrize("page_size", ["1000", "0100", "9" * 5000])
def test_a_large_page_size_is_answered_as_100(api, orders, learner, page_size):
    response = api.get(f"/api/v2/orders/?page_size={page_size}", learner)
    assert response.status_code == 200
    assert numbers(response) == orders["mine"]


@pytest.mark.parametrize("position", ["abc", "1e3", "9" * 5000, "-1"])
def test_a_cursor_whose_position_is_not_an_id_is_404_not_a_server_error(api, orders, learner, position):
    """DRF passed any position to the query, where a non-number failed as a 500."""
    cursor = base64.b64encode(urllib.parse.urlencode({"p": position}).encode()).decode()
    response = api.get(f"/api/v2/orders/?cursor={urllib.parse.quote(cursor)}", learner)
    assert response.status_code == 404
    assert response.json()["error"] == "not_found"


def test_health_takes_get_only_and_answers_others_in_json(api, db):
    response = api.client.post("/health/")
    assert response.status_code == 405
    assert response.json()["error"] == "method_not_allowed"
    assert "GET" in response["Allow"]


def test_health_without_a_database_is_503_in_the_error_shape(api, db, monkeypatch, caplog):
    from django.db import OperationalError

    from common import database

    class NoDatabase:
        def cursor(self):
            raise OperationalError('(2003, "Can\'t connect")')

    monkeypatch.setattr(database, "connections", {"default": NoDatabase()})
    response = api.get("/health/")
    assert response.status_code == 503
    body = response.json()
    assert (body["error"], body["status"], body["database"]) == ("unavailable", "unavailable", "error")
    assert "Can't connect" not in response.content.decode()  # the error stays in the log
    assert "Can't connect" in caplog.text
