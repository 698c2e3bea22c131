"""The one catalogue definition: deterministic, collision-free, shared by both services."""

from decimal import Decimal

import pytest

from common.contract import courses


def test_seats_are_derived_from_the_course_number_alone():
    assert courses.seat(7) == courses.seat(7)
    assert courses.seat(7).course_id == "course-v1:LoadTestX+LT0007+2015"
    assert courses.seat(7).mode == "honor"
    assert courses.seat(7).sku == courses.seat_sku(courses.course_id(7), "honor")
    assert courses.paid_seat(7).mode == "verified"
    assert courses.paid_seat(7).sku == courses.seat_sku(courses.course_id(7), "verified")
    assert courses.paid_seat(7).course_id == courses.seat(7).course_id


def test_an_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="no seat mode 'professional'"):
        courses.seat(1, "professional")


def test_skus_are_ten_upper_hex_characters_and_unique_over_a_large_catalogue():
    seats = courses.catalogue(20000)
    skus = [seat.sku for seat in seats]
    assert len(set(skus)) == len(skus)
    assert all(len(sku) == 10 and sku == sku.upper() and int(sku, 16) >= 0 for sku in skus)


def test_each_course_has_a_free_honor_seat_and_a_paid_verified_seat():
    seats = courses.catalogue(50)
    assert len(seats) == 100
    assert {seat.mode for seat in seats if seat.price == Decimal("0.00")} == {"honor"}
    assert all(seat.price >= Decimal("49.00") for seat in seats if seat.mode == "verified")
    assert [seat.is_paid for seat in courses.catalogue(1)] == [False, True]
    assert courses.free_seats(3) == [courses.seat(n) for n in (1, 2, 3)]


def test_seats_by_course_maps_course_to_mode_to_seat():
    mapping = courses.seats_by_course(3)
    assert list(mapping) == [courses.course_id(n) for n in (1, 2, 3)]
    assert mapping[courses.course_id(2)] == {"honor": courses.seat(2), "verified": courses.paid_seat(2)}


def test_course_numbers_start_at_one():
    with pytest.raises(ValueError):
        courses.seat(0)


def test_the_definition_loads_no_django_app():
    import subprocess
    import sys

    code = "import sys, common.contract.courses; print('django' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
