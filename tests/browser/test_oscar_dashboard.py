"""Oscar's dashboard as staff see it: log in through its login page, find the orders a Locust
swarm placed in its order list."""

import json
import re
import urllib.parse
import urllib.request

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import Swarm, last_order_id, order_numbers_after, poll

pytestmark = pytest.mark.slow


@pytest.fixture
def swarm(stack, swarms, request) -> Swarm:
    """The orders of the swarm the Locust UI test started, or, when that test did not run
    (e.g. ``-k dashboard``), of a short swarm started through the UI's own HTTP endpoints."""
    if swarms and swarms[-1].order_numbers:
        return swarms[-1]
    locust_ui = request.getfixturevalue("locust_ui")  # started only when it is needed
    before = last_order_id(stack)
    form = urllib.parse.urlencode({"user_count": 2, "spawn_rate": 2, "host": stack["LMS_URL"]}).encode()
    with urllib.request.urlopen(urllib.request.Request(locust_ui.url + "/swarm", data=form), timeout=10) as r:
        assert json.loads(r.read())["success"]
    try:
        poll(lambda: len(order_numbers_after(stack, before)), lambda n: n >= 3, 30, "orders placed")
    finally:
        urllib.request.urlopen(urllib.request.Request(locust_ui.url + "/stop", data=b""), timeout=30).close()
    return Swarm(before, order_numbers_after(stack, before))


def test_staff_log_in_and_see_the_orders_a_swarm_placed(stack, staff_login, swarm, page, screenshot):
    username, password, email = staff_login
    page.goto(stack["ECOMMERCE_URL"] + "/dashboard/")
    expect(page).to_have_url(f"{stack['ECOMMERCE_URL']}/dashboard/login/?next=/dashboard/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    screenshot(page, "login")
    page.get_by_role("button", name="Login").click()
    expect(page).to_have_url(stack["ECOMMERCE_URL"] + "/dashboard/")
    expect(page.get_by_text(f"Welcome {email}")).to_be_visible()

    page.get_by_role("button", name="Fulfilment").click()  # a menu: needs the dashboard's scripts
    page.locator(".dropdown-menu.show").get_by_role("link", name="Orders", exact=True).click()
    expect(page).to_have_url(stack["ECOMMERCE_URL"] + "/dashboard/orders/")
    screenshot(page, "orders")

    # Newest first, OSCAR_DASHBOARD_ITEMS_PER_PAGE a page: follow "next" until every order of
    # the swarm has been seen (orders placed since only push them further down).
    wanted, seen, page_number = set(swarm.order_numbers), set(), 1
    assert wanted, "the swarm placed no order"
    while True:
        titles = [" ".join(title.split()) for title in page.locator("table th").all_inner_texts()]
        column = titles.index("Order number") + 1
        seen.update(n.strip() for n in page.locator(f"table tr td:nth-child({column})").all_inner_texts())
        following = page.get_by_role("link", name="next")
        if wanted <= seen or following.count() == 0:
            break
        following.click()
        page_number += 1
        expect(page).to_have_url(re.compile(rf"[?&]page={page_number}$"))
    assert wanted <= seen, f"not in the dashboard: {sorted(wanted - seen)}"
