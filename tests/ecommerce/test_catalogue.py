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


def test_the_sku_lookup_loads_what_the_orm_would_in_one_statement(django_assert_num_queries):
    """stockrecords_for_skus writes its statement out (the ORM took 2.5 ms to compose it): the
    records, products, classes and partners it makes equal the ORM's, field by field, and
    reading them and their relations costs one statement; unknown SKUs are absent."""
    call_command("seed_catalog", "--courses", "3")
    wanted = [courses.seat(2).sku, courses.paid_seat(3).sku, "NO-SUCH-SKU"]
    with django_assert_num_queries(1):
        found = stockrecords_for_skus(wanted)
        related = {
            sku: (r.product, r.product.product_class, r.partner, enrollment_target(r.product))
            for sku, r in found.items()
        }
    assert set(found) == {courses.seat(2).sku, courses.paid_seat(3).sku}

    def fields(instance):
        return {f.attname: getattr(instance, f.attname) for f in instance._meta.concrete_fields}

    for sku, record in found.items():
        loaded = StockRecord.objects.select_related("product__product_class", "partner")
        expected = loaded.get(partner_sku=sku)
        product, product_class, partner, target = related[sku]
        assert fields(record) == fields(expected)
        assert fields(product) == fields(expected.product)
        assert fields(product_class) == fields(expected.product.product_class)
        assert fields(partner) == fields(expected.partner)
        seat = next(s for s in courses.catalogue(3) if s.sku == sku)
        assert target == (seat.course_id, seat.mode)
        assert not record._state.adding and record._state.db == "default"


def test_no_skus_need_no_statement(django_assert_num_queries):
    with django_assert_num_queries(0):
        assert stockrecords_for_skus([]) == {}


def test_courses_must_be_positive():
    from django.core.management import CommandError

    with pytest.raises(CommandError):
        call_command("seed_catalog", "--courses", "0")
