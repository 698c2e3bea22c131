"""Every answer says where its time went (Server-Timing: db, lms, app, total), with the
statements and commits counted as MariaDB counts them."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from common.contract.server_timing import parse
from tests.ecommerce.helpers import session_status

pytestmark = pytest.mark.django_db(transaction=True)


def entries_of(response) -> dict[str, float]:
    return parse(response["Server-Timing"])


def test_a_checkout_answers_its_database_lms_and_app_time(api, lms, seats, learner, other_learner):
    api.buy(other_learner, [seats[1].sku])  # the first request of a process loads caches (Site)
    commits_before = session_status("Com_commit")
    with CaptureQueriesContext(connection) as captured:
        response = api.buy(learner, [seats[0].sku])
    assert response.status_code == 201

    # Django also logs its transaction markers; they are not statements sent to MariaDB.
    statements = [q for q in captured.captured_queries if q["sql"] not in ("BEGIN", "COMMIT", "ROLLBACK")]
    commits = session_status("Com_commit") - commits_before
    assert commits == 2
    assert (
        f'db;dur={entries_of(response)["db"]:.1f};desc="{len(statements)} queries, 2 commits"'
        in (response["Server-Timing"])
    )
    found = entries_of(response)
    assert set(found) == {"db", "lms", "app", "total"}
    assert found["db"] > 0 and found["lms"] > 0 and found["app"] > 0
    # The parts add up to the whole (each is rounded to 0.1 ms in the header).
    assert found["db"] + found["lms"] + found["app"] == pytest.approx(found["total"], abs=0.2)


def test_a_read_has_no_lms_entry_and_counts_no_commit(api, lms, seats, learner):
    number = api.buy(learner, [seats[0].sku]).json()["order"]["number"]
    response = api.get(f"/api/v2/orders/{number}/", learner)
    assert response.status_code == 200
    assert "lms" not in entries_of(response)
    assert ", 0 commits" in response["Server-Timing"]


def test_a_refused_request_is_timed_too(api, seats, learner):
    response = api.post_json("/api/v2/baskets/", {"products": "nope"}, learner)
    assert response.status_code == 400
    assert {"db", "app", "total"} <= set(entries_of(response))


def test_server_timing_off_sends_no_header(settings):
    settings.SERVER_TIMING = False
    response = Client().get("/health/")  # a new client loads the middleware afresh
    assert response.status_code == 200
    assert "Server-Timing" not in response
