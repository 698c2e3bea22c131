"""Reading orders back: own orders only (staff see all), cursor pages, never a COUNT."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.ecommerce.helpers import ADMIN

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
    response = api.get("/api/v2/orders/", staff.username, claims=ADMIN)
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
    assert api.get(f"/api/v2/orders/{orders['theirs']}/", staff.username, claims=ADMIN).status_code == 200


def test_orders_need_authentication(api, orders):
    response = api.get("/api/v2/orders/")
    assert response.status_code == 401
    assert response.json()["error"] == "not_authenticated"


def test_health_answers_without_authentication(api, db):
    response = api.get("/health/")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok"}
