"""What the browser tests share: the orders in the stack's database, a poll that waits for a
condition instead of sleeping, and a swarm started from the Locust web UI's form as a person
starts one."""

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from playwright.sync_api import expect

from tests.support import mysql

T = TypeVar("T")
USERS, SPAWN_RATE = 2, 2


@dataclass
class Swarm:
    """One load run started from the Locust web UI: the orders it placed are those with an id
    above ``after_order_id`` (the last order id before it started)."""

    after_order_id: int
    order_numbers: list[str] = field(default_factory=list)


def last_order_id(stack: dict) -> int:
    return mysql.query(stack["ECOMMERCE_DB_NAME"], "SELECT COALESCE(MAX(id), 0) FROM order_order")[0][0]


def order_numbers_after(stack: dict, order_id: int) -> list[str]:
    rows = mysql.query(
        stack["ECOMMERCE_DB_NAME"], "SELECT number FROM order_order WHERE id > %s ORDER BY id", (order_id,)
    )
    return [number for (number,) in rows]


def poll(read: Callable[[], T], until: Callable[[T], bool], seconds: float, what: str) -> T:
    """Read until ``until(value)`` holds and return that value; fail with the last value read
    after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        value = read()
        if until(value):
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: still {value!r} after {seconds}s")
        time.sleep(0.25)


def status(page, state: str):
    """The header's "Status" field reading ``state`` (shown upper case, stored lower case)."""
    return expect(page.locator("header")).to_contain_text(re.compile(rf"Status\s*{state}", re.IGNORECASE))


def start(page, url: str, stack: dict) -> None:
    """Fill the form of the web UI at ``url`` (USERS at SPAWN_RATE against the stack's LMS) and
    press Start; return once it runs."""
    page.goto(url)
    page.locator("input[name=userCount]").fill(str(USERS))
    page.locator("input[name=spawnRate]").fill(str(SPAWN_RATE))
    page.locator("input[name=host]").fill(stack["LMS_URL"])
    status(page, "ready")
    page.get_by_role("button", name="Start").click()
    status(page, "running")
