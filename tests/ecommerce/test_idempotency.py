"""Idempotency-Key and concurrent purchases: one order, whatever arrives and however at once."""

import threading

import pytest
from django.db import connections
from django.utils import timezone
from oscar.core.loading import get_model

from common.contract.statuses import ORDER
from ecommerce.orders.models import IdempotencyRecord
from tests.ecommerce.helpers import Api, row_counts

pytestmark = pytest.mark.django_db(transaction=True)

Order = get_model("order", "Order")


def concurrently(count: int, request) -> list:
    """Run ``request(api)`` from ``count`` threads released at the same moment."""
    barrier = threading.Barrier(count)
    results: list = [None] * count

    def worker(index):
        try:
            api = Api()
            barrier.wait()
            results[index] = request(api)
        except Exception as exc:  # reported by the assertion below
            results[index] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not any(isinstance(r, Exception) for r in results), results
    return results


def test_replaying_a_key_returns_the_first_answer_and_places_one_order(api, lms, seats, learner):
    first = api.buy(learner, [seats[0].sku], key="order-1")
    before = row_counts()

    replay = api.buy(learner, [seats[0].sku], key="order-1")

    assert first.status_code == replay.status_code == 201
    assert replay.json() == first.json()
    assert replay["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first
    assert row_counts() == before
    assert Order.objects.filter(user__username=learner).count() == 1


def test_the_same_key_from_another_learner_is_another_request(api, lms, seats, learner, other_learner):
    mine = api.buy(learner, [seats[0].sku], key="shared-key")
    theirs = api.buy(other_learner, [seats[0].sku], key="shared-key")
    assert mine.status_code == theirs.status_code == 201
    assert mine.json()["order"]["number"] != theirs.json()["order"]["number"]


def test_a_key_reused_for_another_request_is_422(api, lms, seats, learner):
    api.buy(learner, [seats[0].sku], key="order-1")
    before = row_counts()

    other = api.buy(learner, [seats[1].sku], key="order-1")

    assert other.status_code == 422
    assert other.json()["error"] == "idempotency_key_reused"
    assert row_counts() == before


def test_a_replayed_basket_only_request_returns_the_same_basket(api, lms, seats, learner):
    first = api.buy(learner, [seats[0].sku], checkout=False, key="basket-1")
    replay = api.buy(learner, [seats[0].sku], checkout=False, key="basket-1")
    assert replay.status_code == 201
    assert replay.json() == first.json()


def test_a_replayed_failed_fulfilment_returns_the_recorded_answer(api, lms, seats, learner):
    lms.set_faults(error_rate=1.0)
    first = api.buy(learner, [seats[0].sku], key="flaky")
    lms.reset_faults()
    replay = api.buy(learner, [seats[0].sku], key="flaky")
    assert replay.json() == first.json()
    assert replay.json()["order"]["status"] == ORDER.FULFILLMENT_ERROR


def test_concurrent_requests_with_one_key_place_one_order(lms, seats, learner):
    results = concurrently(10, lambda api: api.buy(learner, [seats[0].sku], key="burst"))

    assert [r.status_code for r in results] == [201] * 10
    bodies = {str(r.json()) for r in results}
    assert len(bodies) == 1
    assert sum(1 for r in results if r.has_header("Idempotent-Replayed")) == 9
    assert Order.objects.filter(user__username=learner).count() == 1
    assert len(lms.enrollments(learner)) == 1


def test_concurrent_purchases_of_one_seat_by_one_learner_place_one_order(lms, seats, learner):
    results = concurrently(8, lambda api: api.buy(learner, [seats[0].sku]))

    codes = sorted(r.status_code for r in results)
    assert codes == [201] + [409] * 7
    assert Order.objects.filter(user__username=learner).count() == 1
    assert len(lms.enrollments(learner)) == 1


def test_concurrent_purchases_by_different_learners_all_succeed(lms, seats):
    names = [f"crowd_{i}_{seats[0].sku}" for i in range(8)]
    results = concurrently(8, lambda api: api.buy(names.pop(), [seats[0].sku]))
    assert [r.status_code for r in results] == [201] * 8
    assert {r.json()["order"]["status"] for r in results} == {ORDER.COMPLETE}


def test_keys_differing_only_in_case_are_different_keys(api, lms, seats, learner):
    lower = api.buy(learner, [seats[0].sku], checkout=False, key="abc")
    upper = api.buy(learner, [seats[0].sku], checkout=False, key="ABC")
    assert lower.status_code == upper.status_code == 201
    assert lower.json()["id"] != upper.json()["id"]
    assert not upper.has_header("Idempotent-Replayed")


def test_a_replay_while_the_first_request_runs_is_told_to_retry(api, lms, seats, learner, settings):
    first = api.buy(learner, [seats[0].sku], key="slow")
    IdempotencyRecord.objects.filter(key="slow").update(response_status=None, response_body=None)
    settings.IDEMPOTENCY_WAIT_SECONDS = 0.2

    replay = api.buy(learner, [seats[0].sku], key="slow")

    assert first.status_code == 201
    assert replay.status_code == 409
    assert replay.json()["error"] == "request_in_progress"
    assert replay["Retry-After"] == "1"


def test_a_replay_after_the_first_request_died_answers_from_the_committed_order(api, lms, seats, learner):
    first = api.buy(learner, [seats[0].sku], key="orphan").json()
    # What a worker killed between the two transactions leaves: the order, no stored answer.
    IdempotencyRecord.objects.filter(key="orphan").update(
        response_status=None, response_body=None, created=timezone.now() - timezone.timedelta(minutes=5)
    )
    before = row_counts()

    replay = api.buy(learner, [seats[0].sku], key="orphan")

    assert replay.status_code == 201
    assert replay["Idempotent-Replayed"] == "true"
    assert replay.json()["id"] == first["id"]
    assert replay.json()["order"]["number"] == first["order"]["number"]
    assert row_counts() == before
