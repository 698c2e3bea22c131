"""The exact, lock-free purchase counter: events on the order path, folded exactly once."""

import threading

import pytest
from django.core.management import call_command
from django.db import connections
from oscar.core.loading import get_model

from ecommerce.counters.models import PurchaseEvent
from ecommerce.counters.rollup import fold, fold_all
from tests.ecommerce.helpers import session_status

pytestmark = pytest.mark.django_db(transaction=True)

ProductRecord = get_model("analytics", "ProductRecord")
Product = get_model("catalogue", "Product")


def purchases(product_id) -> int:
    record = ProductRecord.objects.filter(product_id=product_id).first()
    return record.num_purchases if record else 0


def test_each_order_line_writes_one_event(api, lms, seats, learner):
    api.buy(learner, [seats[0].sku, seats[1].sku])
    assert PurchaseEvent.objects.count() == 2


def test_folding_counts_every_purchase_once(api, lms, seats, learner, other_learner):
    api.buy(learner, [seats[0].sku, seats[1].sku])
    api.buy(other_learner, [seats[0].sku])
    first, second = (Product.objects.get(stockrecords__partner_sku=s.sku).pk for s in seats[:2])

    assert fold_all() == 3
    assert (purchases(first), purchases(second)) == (2, 1)
    assert PurchaseEvent.objects.count() == 0
    assert fold_all() == 0
    assert (purchases(first), purchases(second)) == (2, 1)


def test_folding_adds_to_existing_records(seats):
    product = Product.objects.first()
    ProductRecord.objects.create(product=product, num_views=7, num_purchases=5)
    PurchaseEvent.objects.bulk_create([PurchaseEvent(product=product, quantity=1) for _ in range(3)])
    fold_all()
    record = ProductRecord.objects.get(product=product)
    assert (record.num_purchases, record.num_views) == (8, 7)


def test_concurrent_rollups_never_count_an_event_twice(seats):
    products = list(Product.objects.all()[:3])
    PurchaseEvent.objects.bulk_create(
        [PurchaseEvent(product=products[i % 3], quantity=1) for i in range(600)]
    )
    barrier = threading.Barrier(4)
    folded = []

    def rollup():
        try:
            barrier.wait()
            total = 0
            while PurchaseEvent.objects.exists():
                total += fold(batch=25)
            folded.append(total)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=rollup) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)

    assert len(folded) == 4 and sum(folded) == 600
    assert [purchases(p.pk) for p in products] == [200, 200, 200]
    assert PurchaseEvent.objects.count() == 0


def test_an_idle_rollup_commits_nothing(seats):
    before = session_status("Com_commit")
    assert fold() == 0
    assert session_status("Com_commit") == before


def test_the_rollup_command_folds_everything_waiting(seats, capsys):
    product = Product.objects.first()
    PurchaseEvent.objects.bulk_create([PurchaseEvent(product=product, quantity=2) for _ in range(5)])
    call_command("rollup_counters", "--batch", "2")
    assert "folded 5 purchase events" in capsys.readouterr().out
    assert purchases(product.pk) == 10


def test_the_rollup_loop_outlives_a_database_outage(seats, monkeypatch):
    """While MariaDB restarts a round fails; the loop waits for the next one instead of dying
    (the chaos run restarts MariaDB under the real loop)."""
    from django.db import OperationalError

    from ecommerce.counters.management.commands import rollup_counters

    def unreachable(batch):
        raise OperationalError(2013, "Lost connection to server during query")

    monkeypatch.setattr(rollup_counters, "fold", unreachable)
    assert rollup_counters.fold_round(10) is None
    monkeypatch.undo()
    assert rollup_counters.fold_round(10) == 0
