"""Order numbers, as Otto wrote them and edX's load client builds them itself:
``<prefix>-<basket id + 100000>`` (``OSCR-100042``). The basket is new for every order, so the
number is unique without a counter row to lock."""

import re

OFFSET = 100_000
PREFIX = re.compile(r"^[A-Z0-9]{1,16}\Z")


def check_prefix(prefix: str) -> str:
    """``prefix``, if it is 1 to 16 capital letters and digits; ValueError otherwise."""
    if not PREFIX.match(prefix):
        raise ValueError(f"an order number prefix is 1 to 16 capital letters and digits, not {prefix!r}")
    return prefix


def order_number(prefix: str, basket_id: int) -> str:
    return f"{check_prefix(prefix)}-{basket_id + OFFSET}"


def order_number_sql(prefix: str, basket_id_sql: str) -> str:
    """The same as a MariaDB expression over ``basket_id_sql`` (the bulk preload's INSERTs)."""
    return f"CONCAT('{check_prefix(prefix)}-', {OFFSET} + {basket_id_sql})"


def basket_id(prefix: str, number: str) -> int | None:
    """The basket an order number under ``prefix`` belongs to (the inverse of order_number), or
    None when ``number`` is not one: another prefix, no number, or a number below OFFSET + 1."""
    head, dash, digits = number.partition("-")
    if head != prefix or not dash or not (digits.isascii() and digits.isdigit()) or digits[0] == "0":
        return None
    if len(digits) > 18:  # beyond any basket id (a BIGINT has 19 digits)
        return None
    basket = int(digits) - OFFSET
    return basket if basket >= 1 else None
