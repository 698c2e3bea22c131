"""The seeded catalogue: the one definition both services read.

ecommerce seeds its Oscar catalogue from it (``manage.py seed_catalog``) and the LMS stand-in
maps a course to its free seat's SKU with it, so the two can never disagree. Everything is derived
from the course number, so course ids, SKUs and prices are the same on every machine.

This module is plain Python: importing it loads no Django app.
"""

import hashlib
from dataclasses import dataclass
from decimal import Decimal

ORG = "LoadTestX"
RUN = "2015"
# Each course has two seats, as edX's courses had: a free one the LMS sells at once (honor)
# and a paid one bought through the payment processor (verified).
FREE_MODE = "honor"
PAID_MODE = "verified"
MODES = (FREE_MODE, PAID_MODE)
FREE_PRICE = Decimal("0.00")
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

    @property
    def is_paid(self) -> bool:
        return self.price > 0


def course_id(number: int) -> str:
    return f"course-v1:{ORG}+LT{number:04d}+{RUN}"


def seat_sku(course: str, mode: str) -> str:
    """Ten hex characters derived from course and mode (edX used seven; ten keep a catalogue
    of a million seats free of collisions)."""
    return hashlib.sha256(f"{course}|{mode}".encode()).hexdigest()[:10].upper()


def seat_price(number: int, mode: str = PAID_MODE) -> Decimal:
    if mode == FREE_MODE:
        return FREE_PRICE
    return Decimal(49 + 25 * (number % 4)).quantize(Decimal("0.01"))


def seat(number: int, mode: str = FREE_MODE) -> Seat:
    """Course ``number``'s seat in ``mode``: the free one unless the paid one is asked for."""
    if number < 1:
        raise ValueError("course numbers start at 1")
    if mode not in MODES:
        raise ValueError(f"no seat mode {mode!r}; the modes are {', '.join(MODES)}")
    course = course_id(number)
    return Seat(number, course, mode, seat_sku(course, mode), seat_price(number, mode))


def paid_seat(number: int) -> Seat:
    return seat(number, PAID_MODE)


def catalogue(courses: int, modes: tuple[str, ...] = MODES) -> list[Seat]:
    """The first ``courses`` courses' seats in ``modes`` (both unless told), in course-number
    order, a course's seats in the order of ``modes``."""
    return [seat(number, mode) for number in range(1, courses + 1) for mode in modes]


def free_seats(courses: int) -> list[Seat]:
    """The seat of each of the first ``courses`` courses that the LMS sells at once."""
    return catalogue(courses, (FREE_MODE,))


def seats_by_course(courses: int) -> dict[str, dict[str, Seat]]:
    """course id -> mode -> seat, for the first ``courses`` courses."""
    found: dict[str, dict[str, Seat]] = {}
    for s in catalogue(courses):
        found.setdefault(s.course_id, {})[s.mode] = s
    return found
