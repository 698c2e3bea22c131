"""The Locust web UI of `make run`, used as a person would: fill the form, start a swarm, watch
the purchase row count up, stop it; watch the run in the suite's own tabs."""

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from locustfiles.suite.core import catalogue
from locustfiles.suite.core.blocks import fmt  # the standard library only: no Locust here
from tests.browser.helpers import (
    SPAWN_RATE,
    USERS,
    Swarm,
    last_order_id,
    order_numbers_after,
    poll,
    start,
    status,
)
from tests.support.summaries import reported_runs

pytestmark = pytest.mark.slow

# The name locustfiles/learners.py gives the purchase request (not imported: importing Locust
# monkey-patches this process for gevent).
PURCHASE = "/api/commerce/v0/baskets/"


def cell_reader(page, row_name: str, column_title: str):
    """A function that reads one number of the statistics table, or None while the row is not
    shown yet."""
    titles = [" ".join(title.split()) for title in page.locator("thead th").all_inner_texts()]
    column = titles.index(column_title)
    row = page.get_by_role("row").filter(has=page.get_by_role("cell", name=row_name, exact=True))

    def read() -> int | None:
        if row.count() != 1:
            return None
        return int(row.locator("td").nth(column).inner_text().strip())

    return read


def table_lines(page) -> list[dict[str, str]]:
    """The rows of the table the page shows now, each as {column title: cell text}."""
    titles = [" ".join(title.split()) for title in page.locator("thead th").all_inner_texts()]
    return [
        dict(zip(titles, (cell.strip() for cell in row.locator("td").all_inner_texts()), strict=True))
        for row in page.locator("tbody tr").all()
    ]


def test_a_swarm_started_from_the_form_counts_purchases_until_stopped(
    stack, locust_ui, page, screenshot, swarms
):
    before = last_order_id(stack)
    reports_before = reported_runs(stack["VAR_DIR"])
    page.goto(locust_ui.url)
    page.locator("input[name=userCount]").fill(str(USERS))
    page.locator("input[name=spawnRate]").fill(str(SPAWN_RATE))
    page.locator("input[name=host]").fill(stack["LMS_URL"])
    status(page, "ready")
    screenshot(page, "form")

    page.get_by_role("button", name="Start").click()
    status(page, "running")
    expect(page.get_by_role("cell", name=PURCHASE, exact=True)).to_be_visible()
    requests = cell_reader(page, PURCHASE, "# Requests")
    failures = cell_reader(page, PURCHASE, "# Fails")
    first = poll(requests, lambda n: n is not None and n > 0, 20, "purchases counted")
    second = poll(requests, lambda n: n > first, 20, f"purchases counted after {first}")
    assert failures() == 0
    screenshot(page, "running")

    page.get_by_role("button", name="Stop").click()
    status(page, "stopped")
    counted = requests()
    assert counted >= second and failures() == 0
    screenshot(page, "stopped")

    # Every purchase the UI counted (all of them successes) is an order in the database.
    placed = poll(
        lambda: order_numbers_after(stack, before), lambda numbers: len(numbers) >= counted, 10, "orders"
    )
    swarms.append(Swarm(before, placed))

    # The run's report says what ran: a manual run of 2 users, from the web UI, with its verdict.
    # The suite writes it after the stop (audit, plots): waited for as a report of this run's.
    poll(lambda: reported_runs(stack["VAR_DIR"]) - reports_before, bool, 60, "this run's report")
    page.goto(locust_ui.url + "/suite/report")
    expect(page.get_by_role("heading", level=1)).to_contain_text("manual")
    expect(page.locator("body")).to_contain_text("verdict: PASS")
    expect(page.get_by_role("cell", name=f"{USERS} users", exact=True).first).to_be_visible()
    expect(page.get_by_role("cell", name="web UI", exact=True)).to_be_visible()
    screenshot(page, "report")

    # Issue 31, item 3: every run is one click away, on the Runs page, newest first.
    page.goto(locust_ui.url + "/suite/runs")
    expect(page.get_by_role("heading", level=2).first).to_have_text("Runs")
    newest = page.locator("tbody tr").first
    expect(newest).to_contain_text("manual")
    expect(newest).to_contain_text("PASS")
    screenshot(page, "runs")
    newest.get_by_role("link").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("manual")
    expect(page.locator("body")).to_contain_text("verdict: PASS")


def test_the_suite_tab_shows_the_step_live_and_at_the_end_what_summary_json_says(
    stack, locust_ui, page, screenshot
):
    start(page, locust_ui.url, stack)
    page.get_by_role("tab", name="Suite", exact=True).click()
    # The step under way, counting its purchases before the run ends.
    expect(page.locator("tbody tr").first).to_contain_text(f"{USERS} users (under way")

    def first_requests() -> int:
        lines = table_lines(page)
        found = lines[0]["order requests (samples)"] if lines else "–"
        return int(found) if found != "–" else 0

    poll(first_requests, lambda n: n > 0, 20, "purchases in the Suite tab's first row")
    assert [line["step"].split(" (")[0] for line in table_lines(page)] == [f"{USERS} users", "all"]
    screenshot(page, "suite-live")
    page.get_by_role("tab", name="Suite checks", exact=True).click()
    expect(page.locator("tbody")).to_contain_text("running")
    expect(page.locator("tbody")).to_contain_text("threshold ")

    def written() -> int:  # the orders' table, read every 5 s from the run's start
        value = {line["check"]: line["value"] for line in table_lines(page)}.get("orders written so far", "")
        return int(value) if value.isdigit() else 0

    poll(written, lambda n: n > 0, 15, "orders written so far in the Suite checks tab")
    screenshot(page, "checks-live")

    page.get_by_role("button", name="Stop").click()
    status(page, "stopped")

    # Locust stops polling once stopped: the page is loaded again until the run's summary is in.
    def checks() -> dict[str, dict[str, str]]:
        page.goto(locust_ui.url + "/?tab=suite_checks")
        expect(page.locator("tbody tr").first).to_be_visible()
        return {line["check"]: line for line in table_lines(page)}

    found = poll(checks, lambda lines: lines["run"]["state"] == "finished", 60, "the Suite checks tab")
    screenshot(page, "checks-finished")
    report = found["report"]["value"]
    name = re.fullmatch(r"/suite/runs/(?P<name>[^/]+)/report.html", report)["name"]
    summary = json.loads((Path(stack["VAR_DIR"]) / "runs" / name / "summary.json").read_text())
    assert found["verdict"]["value"] == ("PASS" if summary["verdict"]["passed"] else "FAIL")
    assert found["audit"]["value"] == ", ".join(
        f"{key} {summary['audit'][key]}" for key in ("successes", "orders", "enrollments")
    )

    page.goto(locust_ui.url + "/?tab=suite")
    expect(page.locator("tbody tr").first).to_be_visible()
    screenshot(page, "suite-finished")
    rows = summary["steps"]  # one step: the whole run, with no "all" row repeating it
    assert len(rows) == 1 and rows[0]["requests"] > 0

    def expected(row: dict) -> dict[str, str]:
        thin = row.get("thin") or []
        return {
            "step": row["label"],
            "RPM": fmt(row["rpm"]),
            "order requests (samples)": fmt(row["requests"]),
            "order failures": fmt(row["failures"]),
            **{f"{p} ms": fmt(row[p]) + (" †" if p in thin else "") for p in ("p50", "p95", "p99")},
        }

    assert [{key: line[key] for key in expected(rows[0])} for line in table_lines(page)] == [
        expected(row) for row in rows
    ]

    # Issue 31, item 3: the Runs tab lists it first, with its report's address.
    page.goto(locust_ui.url + "/?tab=suite_runs")
    expect(page.locator("tbody tr").first).to_be_visible()
    screenshot(page, "runs-tab")
    newest = table_lines(page)[0]
    assert (newest["run"], newest["verdict"], newest["order requests"]) == (
        name,
        "PASS" if summary["verdict"]["passed"] else "FAIL",
        fmt(summary["overall"]["requests"]),
    )
    assert newest["report"] == report
    # Issue 43, item 6: the address is a link; one click opens the report.
    page.get_by_role("link", name=report, exact=True).click()
    expect(page).to_have_url(locust_ui.url + report)
    expect(page).to_have_title(re.compile(r"^Load test report"))


def test_the_form_shows_the_picked_profiles_fields_named_as_written_with_whole_hints(
    locust_ui, page, screenshot
):
    """Issue 43, item 6 (run/static/suite-ui.js): Locust's page would show every field, split
    EDX2015_WAIT_SCALE at its digits, cut hints to one line and reset the profile."""
    page.goto(locust_ui.url)
    page.get_by_text("Custom parameters").click()
    field = page.locator("input[name=EDX2015_WAIT_SCALE]")
    expect(field).to_be_hidden()  # manual's form: Locust's users and ramp-up, no sizes
    expect(page.locator("input[name=userCount]")).to_be_visible()
    page.locator("select[name=PROFILE]").select_option("edx2015")
    for name in catalogue.get("edx2015").client_settings:
        expect(page.locator(f"input[name={name}]")).to_be_visible()
    expect(page.locator("input[name=RPM]")).to_be_hidden()
    expect(page.locator("input[name=userCount]")).to_be_hidden()
    expect(page.locator(f"label[for='{field.get_attribute('id')}']")).to_have_text("EDX2015_WAIT_SCALE")
    box = page.locator(".MuiFormControl-root").filter(has=field)
    expect(box.locator(".suite-hint")).to_have_text(re.compile(r"^read by edx2015: .*; empty: 1$"))
    field.scroll_into_view_if_needed()
    screenshot(page, "edx2015-fields")
    page.reload()  # as NEW draws the form again: the profile picked last
    page.get_by_text("Custom parameters").click()
    expect(page.locator("select[name=PROFILE]")).to_have_value("edx2015")
    expect(page.locator("input[name=RPM]")).to_be_hidden()


def newest_run(stack: dict, profile: str) -> Path | None:
    """The newest run folder of ``profile``, once its summary.json is written."""
    runs = sorted((Path(stack["VAR_DIR"]) / "runs").glob(f"*-{profile}"))
    return runs[-1] if runs and (runs[-1] / "summary.json").exists() else None


def pick(page, profile: str, sizes: dict[str, str]) -> None:
    """The profile and its sizes, in the start form's Custom parameters."""
    page.get_by_text("Custom parameters").click()
    page.locator("select[name=PROFILE]").select_option(profile)
    for name, value in sizes.items():
        page.locator(f"input[name={name}]").fill(value)


def ends_by_itself(page, stack: dict, profile: str) -> Path:
    """The folder of the run under way, once its shape has stopped it and its report is written."""
    status(page, "running")
    header = page.locator("header")
    expect(header).to_contain_text(re.compile(r"Status\s*stopped", re.IGNORECASE), timeout=60_000)
    return poll(lambda: newest_run(stack, profile), lambda found: found is not None, 60, f"{profile} summary")


def test_a_profile_picked_in_the_form_runs_as_its_make_target_would(stack, locust_ui, page, screenshot):
    """Issue 31, item 1: rpm at 300 purchases a minute, two steps of 10 s (a warm-up, then the
    measured one), started from the form, ends by itself with the rpm plan's steps; then, in
    the same web UI, a closed-model profile runs with its own users."""
    sizes = {"RPM": "300", "DURATION": "10", "WARMUP_SECONDS": "10"}
    page.goto(locust_ui.url)
    status(page, "ready")
    pick(page, "rpm", sizes)
    screenshot(page, "form")

    # A bad value is refused in the form with the words `make rpm DURATION=0` prints.
    page.locator("input[name=DURATION]").fill("0")
    page.get_by_role("button", name="Start").click()
    refusal = "DURATION: expects a whole number of seconds from 1 to 604800; got '0'"
    expect(page.get_by_role("alert")).to_contain_text(refusal)
    status(page, "ready")
    # Locust says it at the foot of its form; the field it names is marked, said under, shown.
    duration = page.locator("input[name=DURATION]")
    box = page.locator(".MuiFormControl-root").filter(has=duration)
    expect(duration).to_have_attribute("aria-invalid", "true")
    expect(box.locator(".suite-error")).to_have_text(refusal)
    expect(duration).to_be_focused()
    expect(duration).to_be_in_viewport()
    expect(page.locator(".suite-error")).to_have_count(1)
    screenshot(page, "refused")

    duration.fill(sizes["DURATION"])
    expect(box.locator(".suite-error")).to_have_count(0)
    expect(duration).not_to_have_attribute("aria-invalid", "true")
    page.get_by_role("button", name="Start").click()
    # 20 s of plan and a short drain; the shape stops the test, no one presses Stop.
    folder = ends_by_itself(page, stack, "rpm")
    summary = json.loads((folder / "summary.json").read_text())

    assert summary["profile"] == "rpm"
    assert summary["plan"] == catalogue.get("rpm").plan(sizes).as_summary()
    assert [(s["target_rpm"], s["seconds"]) for s in [summary["warm_up"], *summary["steps"]]] == [
        (300.0, 10),
        (300.0, 10),
    ]
    assert summary["started_from"] == "web UI"
    assert summary["steps"][0]["requests"] > 0
    # Locust's CSVs beside the report, as `--csv` writes them for `make rpm`.
    stats = folder / "locust_stats.csv"
    poll(stats.read_text, lambda text: f"POST,{PURCHASE}," in text, 10, "Locust's stats CSV")

    # The next run of the same web UI is another profile's: a closed model, users thinking.
    page.get_by_role("button", name="New").click()
    pick(page, "smoke", {"USERS": "2", "STEP_SECONDS": "4"})
    page.get_by_role("button", name="Start").click()
    smoke_folder = ends_by_itself(page, stack, "smoke")
    smoke = json.loads((smoke_folder / "summary.json").read_text())
    assert smoke["plan"] == catalogue.get("smoke").plan({"USERS": "2", "STEP_SECONDS": "4"}).as_summary()
    assert [(s["users"], s["seconds"]) for s in smoke["steps"]] == [(2, 4)]
    assert smoke["started_from"] == "web UI" and smoke["verdict"]["passed"]

    # Issue 31, item 5: the two runs compared from the Runs page, as make compare shows them.
    page.goto(locust_ui.url + "/suite/runs")
    page.locator("select[name=a]").select_option(folder.name)
    page.locator("select[name=b]").select_option(smoke_folder.name)
    page.get_by_role("button", name="Compare").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Run comparison")
    expect(page.locator("body")).to_contain_text(folder.name)
    expect(page.locator("body")).to_contain_text(smoke_folder.name)
    screenshot(page, "compare")
