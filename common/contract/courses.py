"""The seeded catalogue: the one definition both services read.

ecommerce seeds its Oscar catalogue from it (``manage.py seed_catalog``) and the LMS stand-in
maps a course to its seat's SKU with it, so the two can never disagree. Everything is derived
from the course number, so course ids, SKUs and prices are the same on every machine.

This module is plain Python: importing it loads no Django app.
"""

import hashlib
from dataclasses import dataclass
from decimal import Decimal

ORG = "LoadTestX"
RUN = "2015"
SEAT_MODE = "verified"
CURRENCY = "USD"
PARTNER_NAME = "edX"
PARTNER_CODE = "edx"
PRODUCT_CLASS_NAME = "Seat"
# Product attribute codes on the Seat class: which course and mode a seat enrols in.
COURSE_ATTRIBUTE = "course_key"
MODE_ATTRIBUTE = "seat_type"


@dataclass(frozen=True)
class Seat:
    number: int
    course_id: str
    mode: str
    sku: str
    price: Decimal

    @property
    def title(self) -> str:
        return f"Seat in {self.course_id} ({self.mode})"


def course_id(number: int) -> str:
    return f"course-v1:{ORG}+LT{number:04d}+{RUN}"


def seat_sku(course: str, mode: str) -> str:
    """Ten hex characters derived from course and mode (edX used seven; ten keep a catalogue
    of a million seats free of collisions)."""
    return hashlib.sha256(f"{course}|{mode}".encode()).hexdigest()[:10].upper()


def seat_price(number: int) -> Decimal:
    return Decimal(49 + 25 * (number % 4)).quantize(Decimal("0.01"))


def seat(number: int) -> Seat:
    if number < 1:
        raise ValueError("course numbers start at 1")
    course = course_id(number)
    return Seat(number, course, SEAT_MODE, seat_sku(course, SEAT_MODE), seat_price(number))


def catalogue(courses: int) -> list[Seat]:
    """The first ``courses`` seats, in course-number order."""
    return [seat(number) for number in range(1, courses + 1)]


def seats_by_course(courses: int) -> dict[str, dict[str, Seat]]:
    """course id -> mode -> seat, for the first ``courses`` courses."""
    return {s.course_id: {s.mode: s} for s in catalogue(courses)}
