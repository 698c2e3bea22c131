"""Placing and fulfilling orders through POST /api/v2/baskets/, against a real lms_stub."""

import pytest
from django.contrib.auth import get_user_model
from oscar.core.loading import get_model

from common.contract.statuses import LINE, ORDER
from tests.ecommerce.helpers import row_counts, session_status, transactions_open_at_lms_calls

pytestmark = pytest.mark.django_db(transaction=True)

Order = get_model("order", "Order")
Basket = get_model("basket", "Basket")


def test_checkout_places_a_complete_order_and_enrols_the_learner(api, lms, seats, learner):
    response = api.buy(learner, [seats[0].sku])

    assert response.status_code == 201, response.content
    body = response.json()
    order = body["order"]
    assert set(body) == {"id", "order"}
    assert order["status"] == ORDER.COMPLETE
    assert order["currency"] == "USD"
    assert order["total_excl_tax"] == str(seats[0].price)
    assert order["number"] == f"OSCR-{100000 + body['id']}"  # as Otto numbered them
    assert [(line["sku"], line["quantity"], line["status"]) for line in order["lines"]] == [
        (seats[0].sku, 1, LINE.COMPLETE)
    ]
    stored = Order.objects.get(number=order["number"])
    assert stored.status == ORDER.COMPLETE
    assert stored.basket_id == body["id"]
    assert stored.basket.status == Basket.SUBMITTED
    assert [line.status for line in stored.lines.all()] == [LINE.COMPLETE]
    assert [
        (e["course_details"]["course_id"], e["mode"], e["is_active"]) for e in lms.enrollments(learner)
    ] == [(seats[0].course_id, "honor", True)]


def test_learner_is_created_on_first_sight_with_the_token_email(api, lms, seats, learner):
    api.buy(learner, [seats[0].sku])
    user = get_user_model().objects.get(username=learner)
    assert user.email == f"{learner}@example.com"
    assert not user.has_usable_password()


def test_checkout_false_creates_only_the_basket(api, lms, seats, learner):
    before = row_counts()
    response = api.buy(learner, [seats[0].sku], checkout=False)

    assert response.status_code == 201
    body = response.json()
    assert body["order"] is None
    basket = Basket.objects.get(pk=body["id"])
    assert basket.status == Basket.OPEN
    assert [line.stockrecord.partner_sku for line in basket.lines.all()] == [seats[0].sku]
    after = row_counts()
    assert after["order_order"] == before["order_order"]
    assert lms.enrollments(learner) == []


def test_a_basket_of_two_seats_is_one_order_with_two_enrollments(api, lms, seats, learner):
    response = api.buy(learner, [seats[0].sku, seats[1].sku])

    order = response.json()["order"]
    assert response.status_code == 201
    assert order["status"] == ORDER.COMPLETE
    assert order["total_excl_tax"] == str(seats[0].price + seats[1].price)
    assert sorted(e["course_details"]["course_id"] for e in lms.enrollments(learner)) == sorted(
        [seats[0].course_id, seats[1].course_id]
    )


def test_each_order_line_has_its_price_row_as_oscar_breaks_it_down(api, lms, seats, learner):
    """Oscar's line price rows (written by the order path in one statement) hold each line's
    quantity and prices, for its own order and line, as Oscar's OrderCreator would write them."""
    number = api.buy(learner, [seats[0].sku, seats[1].sku]).json()["order"]["number"]
    order = Order.objects.get(number=number)
    for line in order.lines.all():
        assert [
            (p.order_id, p.quantity, p.price_incl_tax, p.price_excl_tax, p.tax_code)
            for p in line.prices.all()
        ] == [(order.pk, 1, line.unit_price_incl_tax, line.unit_price_excl_tax, line.tax_code)]
        assert line.unit_price_excl_tax == next(s.price for s in seats if s.sku == line.partner_sku)


def test_buying_an_owned_seat_again_is_409_and_writes_nothing(api, lms, seats, learner):
    first = api.buy(learner, [seats[0].sku]).json()["order"]
    before = row_counts()

    again = api.buy(learner, [seats[0].sku])

    assert again.status_code == 409
    assert again.json()["error"] == "already_purchased"
    assert again.json()["order_number"] == first["number"]
    assert row_counts() == before


def test_another_learner_may_buy_the_same_seat(api, lms, seats, learner, other_learner):
    assert api.buy(learner, [seats[0].sku]).status_code == 201
    assert api.buy(other_learner, [seats[0].sku]).status_code == 201


def test_one_checkout_commits_exactly_twice(api, lms, seats, learner, other_learner):
    """Lesson 1: one commit per unit of work (the order, then the fulfilment outcome)."""
    api.buy(other_learner, [seats[1].sku])  # the first request of a process loads caches (Site)
    before = session_status("Com_commit")
    response = api.buy(learner, [seats[0].sku])
    assert response.status_code == 201
    assert session_status("Com_commit") - before == 2


def test_no_transaction_is_open_while_the_lms_is_called(api, lms, seats, learner, monkeypatch):
    seen = transactions_open_at_lms_calls(monkeypatch)
    assert api.buy(learner, [seats[0].sku]).status_code == 201
    assert seen == [False]


def test_read_only_requests_commit_nothing(api, lms, seats, learner):
    number = api.buy(learner, [seats[0].sku]).json()["order"]["number"]
    before = session_status("Com_commit")
    assert api.get("/api/v2/orders/", learner).status_code == 200
    assert api.get(f"/api/v2/orders/{number}/", learner).status_code == 200
    assert api.get("/health/").status_code == 200
    assert session_status("Com_commit") == before


def test_oscar_analytics_counters_are_not_written_on_the_order_path(api, lms, seats, learner):
    ProductRecord = get_model("analytics", "ProductRecord")
    UserRecord = get_model("analytics", "UserRecord")
    assert api.buy(learner, [seats[0].sku]).status_code == 201
    assert ProductRecord.objects.count() == 0
    assert UserRecord.objects.count() == 0


def test_a_seat_order_holds_what_oscars_order_creator_writes_for_the_same_basket(seats, learner):
    """The order path places a seat order with its own arguments (totals, no shipping, the
    initial status) and writes the line prices itself (ecommerce.orders.placement). Two baskets
    of the same seats, a free one and a paid one, one placed that way and one by Oscar's own
    OrderCreator.place_order: every column of the order, its lines and their prices but the
    keys, the number and the moment of placing is the same."""
    from django.conf import settings
    from django.db import transaction
    from oscar.core import prices
    from oscar.core.loading import get_class

    from common.contract.courses import paid_seat
    from ecommerce.courses.seats import stockrecords_for_skus
    from ecommerce.orders.placement import NoShippingRequired, SeatOrderCreator, SeatStrategy, build_basket

    skus = [seats[0].sku, paid_seat(seats[1].number).sku]
    records = list(stockrecords_for_skus(skus).values())
    user = get_user_model().objects.create(username=learner, email=f"{learner}@example.com")

    def columns(instance, *leave_out):
        return {
            f.attname: getattr(instance, f.attname)
            for f in instance._meta.concrete_fields
            if f.attname not in ("id", *leave_out)
        }

    with transaction.atomic():
        ours_basket, ours_lines = build_basket(user, records, Basket.SUBMITTED)
        ours, _ = SeatOrderCreator().place_seat_order(ours_basket, ours_lines, user)
        oscars_basket, _ = build_basket(user, records, Basket.SUBMITTED)
        oscars_basket.strategy = SeatStrategy()
        total = oscars_basket.total_incl_tax
        oscars = get_class("order.utils", "OrderCreator")().place_order(
            basket=oscars_basket,
            total=prices.Price("USD", excl_tax=oscars_basket.total_excl_tax, incl_tax=total),
            shipping_method=NoShippingRequired(),
            shipping_charge=prices.Price("USD", excl_tax=0, incl_tax=0),
            user=user,
            order_number="OSCAR-ITSELF",
            status=settings.OSCAR_INITIAL_ORDER_STATUS,
        )

    ours, oscars = Order.objects.get(pk=ours.pk), Order.objects.get(pk=oscars.pk)
    assert ours.total_incl_tax > 0 and len(ours.lines.all()) == 2
    apart = ("number", "basket_id", "date_placed")
    assert columns(ours, *apart) == columns(oscars, *apart)
    ours_lines, oscars_lines = list(ours.lines.order_by("id")), list(oscars.lines.order_by("id"))
    assert [columns(line, "order_id") for line in ours_lines] == [
        columns(line, "order_id") for line in oscars_lines
    ]
    assert [[columns(p, "order_id", "line_id") for p in line.prices.all()] for line in ours_lines] == [
        [columns(p, "order_id", "line_id") for p in line.prices.all()] for line in oscars_lines
    ]
