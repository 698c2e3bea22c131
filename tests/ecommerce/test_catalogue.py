"""seed_catalog: idempotent, corrects drift, and writes what fulfilment reads."""

import pytest
from django.core.management import call_command
from oscar.core.loading import get_model

from common.contract import courses
from ecommerce.courses.seats import enrollment_target, stockrecords_for_skus

pytestmark = pytest.mark.django_db

Product = get_model("catalogue", "Product")
StockRecord = get_model("partner", "StockRecord")
ProductClass = get_model("catalogue", "ProductClass")


def catalogue_state():
    return sorted(StockRecord.objects.values_list("partner_sku", "price", "price_currency", "product__title"))


def test_seeding_twice_changes_nothing(capsys):
    call_command("seed_catalog", "--courses", "4")
    first = catalogue_state()
    call_command("seed_catalog", "--courses", "4")
    assert catalogue_state() == first
    assert "0 seats created, 0 corrected" in capsys.readouterr().out
    assert Product.objects.count() == 8  # a free and a paid seat per course
    prices = dict(StockRecord.objects.values_list("partner_sku", "price"))
    assert prices[courses.seat(3).sku] == 0
    assert prices[courses.paid_seat(3).sku] == courses.paid_seat(3).price > 0


def test_seeding_more_courses_adds_only_the_new_ones():
    call_command("seed_catalog", "--courses", "2")
    call_command("seed_catalog", "--courses", "5")
    assert [sku for sku, *_ in catalogue_state()] == sorted(s.sku for s in courses.catalogue(5))


def test_a_drifted_price_is_corrected():
    call_command("seed_catalog", "--courses", "2")
    StockRecord.objects.filter(partner_sku=courses.seat(1).sku).update(price=1)
    call_command("seed_catalog", "--courses", "2")
    assert StockRecord.objects.get(partner_sku=courses.seat(1).sku).price == courses.seat(1).price


def test_seats_need_no_shipping_and_track_no_stock():
    call_command("seed_catalog", "--courses", "1")
    seat_class = ProductClass.objects.get(name=courses.PRODUCT_CLASS_NAME)
    assert (seat_class.requires_shipping, seat_class.track_stock) == (False, False)


def test_each_seat_knows_its_course_and_mode():
    call_command("seed_catalog", "--courses", "3")
    records = stockrecords_for_skus([s.sku for s in courses.catalogue(3)])
    for seat in courses.catalogue(3):
        assert enrollment_target(records[seat.sku].product) == (seat.course_id, seat.mode)


def test_courses_must_be_positive():
    from django.core.management import CommandError

    with pytest.raises(CommandError):
        call_command("seed_catalog", "--courses", "0")
