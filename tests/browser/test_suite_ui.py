"""What a new user's trial of make run's web UI found (issue 43's UI fixes), in a real browser
on Locust's own page with the suite's script (run/static/suite-ui.js): a tab's cell shows its
own text, never a link an earlier row left there; Locust's own "profile" field is neither shown
nor posted where the suite's PROFILE picks the profile; an open-model profile's form has no
think time."""

import re
from urllib.parse import parse_qs

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import SPAWN_RATE, USERS, start, status

pytestmark = pytest.mark.slow

CHECKS = "suite_checks"  # the Suite checks tab's key (report/live.py)
THIN_NOTE = (
    "† the percentile rests on fewer than 5 samples above it (requests × (1 − N/100) < 5): "
    "read it as indicative only."
)
RUN = {"check": "run", "value": "manual", "state": "running"}
EVERY_RUN = {"check": "every run", "value": "/suite/runs", "state": "reports and comparisons"}
# The rows report/live.py sends before a step's percentiles grow thin, then once they have:
# the † row, whose value is empty, takes the place where "every run" and its link were.
BEFORE = [RUN, EVERY_RUN]
AFTER = [RUN, {"check": "†", "value": "", "state": THIN_NOTE}, EVERY_RUN]


def opened(page, field: str) -> None:
    """Wait until the accordion holding ``field`` has opened all the way (a screenshot taken
    while it opens shows it cut)."""
    expect(page.locator(".MuiCollapse-entered").filter(has=page.locator(field))).to_have_count(1)


def test_a_row_that_takes_a_linked_rows_place_shows_no_link(stack, locust_ui, page, screenshot):
    """Trial item 1: Locust redraws a tab's rows by their place, and removes a cell's text when
    its new value is empty; the link the script showed for the row that was there stayed. The
    Suite checks rows of a real run are replaced here by BEFORE, then AFTER, so that the change
    happens while the tab is shown (in a real run it does when the first percentiles go thin)."""
    served = {"rows": BEFORE}

    def answer(route):
        response = route.fetch()
        stats = response.json()
        stats["extended_stats"] = [
            {**entry, "data": served["rows"]} if entry.get("key") == CHECKS else entry
            for entry in stats.get("extended_stats") or []
        ]
        route.fulfill(response=response, json=stats)

    page.route("**/stats/requests", answer)
    start(page, locust_ui.url, stack)
    page.get_by_role("tab", name="Suite checks", exact=True).click()
    rows = page.locator("tbody tr")
    expect(rows.nth(1).get_by_role("link")).to_have_text("/suite/runs")

    served["rows"] = AFTER
    expect(rows).to_have_count(3)
    screenshot(page, "checks")
    dagger = rows.nth(1).locator("td")
    expect(dagger.nth(0)).to_have_text("†")
    expect(dagger.nth(1)).to_have_text("")
    expect(rows.nth(1).get_by_role("link")).to_have_count(0)
    expect(rows.nth(2).get_by_role("link")).to_have_text("/suite/runs")
    expect(page.locator("tbody a")).to_have_count(1)
    page.get_by_role("button", name="Stop").click()
    status(page, "stopped")


def test_locusts_own_profile_field_is_neither_shown_nor_posted(stack, locust_ui, page, screenshot):
    """Trial item 2: Locust's Advanced options has a "profile" field of its own (a label that
    groups Locust's test runs; the script had renamed its label "profile") right above the
    suite's PROFILE; a newcomer typed "smoke" into it. make run's page hides it and leaves it out
    of what Start posts, and /swarm refuses it (run/control.py)."""
    page.goto(locust_ui.url)
    status(page, "ready")
    page.get_by_text("Advanced options").click()
    opened(page, "input[name=runTime]")
    screenshot(page, "advanced-options")
    # Locust's own fields keep Locust's labels (the script names the custom parameters only).
    host = page.locator("input[name=host]").get_attribute("id")
    expect(page.locator(f"label[for='{host}']")).to_have_text(re.compile(r"^Host\b"))
    # Locust's profile field is its form's only Autocomplete (webui: a free-text combo box).
    expect(page.locator(".MuiAutocomplete-root")).to_have_count(1)
    expect(page.locator(".MuiAutocomplete-root")).to_be_hidden()

    page.locator("input[name=userCount]").fill(str(USERS))
    page.locator("input[name=spawnRate]").fill(str(SPAWN_RATE))
    page.locator("input[name=host]").fill(stack["LMS_URL"])
    with page.expect_request(
        lambda request: request.method == "POST" and request.url.endswith("/swarm")
    ) as sent:
        page.get_by_role("button", name="Start").click()
    posted = parse_qs(sent.value.post_data or "", keep_blank_values=True)
    assert "profile" not in posted and posted["PROFILE"] == ["manual"], posted
    status(page, "running")
    page.get_by_role("button", name="Stop").click()
    status(page, "stopped")


@pytest.mark.parametrize(
    "profile, think", [("rpm", False), ("capacity", False), ("smoke", True), ("manual", True)]
)
def test_only_a_closed_models_form_asks_for_think_time(locust_ui, page, screenshot, profile, think):
    """Trial item 3: an open model's arrivals come at the rate whatever the users do; its run
    does not read WAIT_MIN and WAIT_MAX (core/catalogue.py), and its form does not show them."""
    page.goto(locust_ui.url)
    page.get_by_text("Custom parameters").click()
    opened(page, "select[name=PROFILE]")
    page.locator("select[name=PROFILE]").select_option(profile)
    expect(page.locator("input[name=BUY_WEIGHT]")).to_be_visible()  # the mix: every profile's
    for name in ("WAIT_MIN", "WAIT_MAX"):
        field = page.locator(f"input[name={name}]")
        if think:
            expect(field).to_be_visible()
        else:
            expect(field).to_be_hidden()
    screenshot(page, "fields")
