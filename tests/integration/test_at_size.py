"""A preloaded database (40,000 purchases, `make preload`'s code) met by everything that reads
it: the order API, the dashboard, the fulfilment retry, the load suite's audit and a short load
run; and the index audit, which fails if any statement of any request path reads a number of
rows that grows with the orders."""

import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
import requests

from common.contract import preload_plan as plan
from tests.integration.helpers import staff_session
from tests.support import mysql, tokens
from tests.support.stack import stack_environment, stack_stop, stack_up
from tests.support.summaries import read_summary

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
DATABASES = ("test_size_ecommerce", "test_size_lms")
PRELOAD_MODULE = "locustfiles.suite.tools.preload"
# Well above the largest read the audit allows whatever the size (index_audit.BOUNDED_ROWS), so
# that a scan of the orders cannot pass for a bounded read.
ORDERS = 40_000
STAFF_PASSWORD = "size-staff-password"


def suite(env: dict, module: str, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture(scope="module")
def preloaded():
    env = stack_environment(
        "sizestack", DATABASES, ECOMMERCE_STAFF_PASSWORD=STAFF_PASSWORD, WAIT_MIN="0", WAIT_MAX="0"
    )
    try:
        stack_up(env)
        done = suite(env, PRELOAD_MODULE, "--orders", str(ORDERS), "--courses", "5", "--batch", "6000")
        assert done.returncode == 0, done.stdout + done.stderr
        env["PRELOAD_OUTPUT"] = done.stdout
        yield env
    finally:
        stack_stop(env)


def scalar(database: str, sql: str, args=()):
    return mysql.query(database, sql, list(args))[0][0]


def learner(i: int) -> dict:
    return {"Authorization": "JWT " + tokens.token(plan.username(i))}


def test_the_preload_says_what_it_wrote(preloaded):
    out = preloaded["PRELOAD_OUTPUT"]
    assert f"{ORDERS:,} purchases written" in out and "MiB on disk" in out, out
    assert scalar(DATABASES[0], "SELECT COUNT(*) FROM order_order") == ORDERS
    assert scalar(DATABASES[1], "SELECT COUNT(*) FROM enrollment_enrollment") == ORDERS


def test_preloaded_orders_are_read_by_their_owners_only(preloaded):
    url = preloaded["ECOMMERCE_URL"]
    mine = requests.get(url + "/api/v2/orders/", headers=learner(1234), timeout=30)
    assert mine.status_code == 200
    (order,) = mine.json()["results"]
    assert order["status"] == "Complete" and order["lines"][0]["status"] == "Complete"
    course = plan.course_number(1234, 5)
    assert order["lines"][0]["title"].startswith(f"Seat in course-v1:LoadTestX+LT{course:04d}+")
    assert (
        requests.get(f"{url}/api/v2/orders/{order['number']}/", headers=learner(1234), timeout=30).status_code
        == 200
    )
    assert (
        requests.get(f"{url}/api/v2/orders/{order['number']}/", headers=learner(1235), timeout=30).status_code
        == 404
    )


def test_the_enrollment_api_knows_each_preloaded_learner_once(preloaded):
    name = plan.username(777)
    found = requests.get(
        preloaded["LMS_URL"] + f"/api/enrollment/v1/enrollment?user={name}",
        headers={"X-Edx-Api-Key": "local-only-edx-api-key"},
        timeout=30,
    ).json()
    assert [e["course_details"]["course_id"] for e in found] == [
        f"course-v1:LoadTestX+LT{plan.course_number(777, 5):04d}+2015"
    ]


def test_the_dashboard_lists_the_newest_preloaded_orders(preloaded):
    url = preloaded["ECOMMERCE_URL"]
    newest = scalar(DATABASES[0], "SELECT number FROM order_order ORDER BY id DESC LIMIT 1")
    session = staff_session(url, STAFF_PASSWORD)
    listing = session.get(url + "/dashboard/orders/", timeout=60)
    assert listing.status_code == 200 and newest in listing.text
    assert session.get(f"{url}/dashboard/orders/{newest}/", timeout=60).status_code == 200


def test_the_purchase_counter_equals_the_orders(preloaded):
    counted = dict(mysql.query(DATABASES[0], "SELECT product_id, num_purchases FROM analytics_productrecord"))
    bought = dict(
        mysql.query(DATABASES[0], "SELECT product_id, COUNT(*) FROM order_line GROUP BY product_id")
    )
    assert counted == bought and sum(bought.values()) == ORDERS


def test_dates_follow_the_ids_and_end_before_now(preloaded):
    first, last = mysql.query(DATABASES[0], "SELECT MIN(date_placed), MAX(date_placed) FROM order_order")[0]
    out_of_order = scalar(
        DATABASES[0],
        "SELECT COUNT(*) FROM order_order a JOIN order_order b ON b.id = a.id + 1 "
        "WHERE b.date_placed < a.date_placed",
    )
    assert out_of_order == 0
    assert last <= datetime.now(UTC).replace(tzinfo=None)
    spacing = (last - first) / (ORDERS - 1)
    assert abs(spacing.total_seconds() * 1e6 - plan.SPACING_US) <= 1


def test_retry_leaves_preloaded_orders_alone(preloaded):
    done = subprocess.run(
        [sys.executable, "manage.py", "retry_fulfillment", "--all"],
        cwd=ROOT,
        env={**preloaded, "DJANGO_SETTINGS_MODULE": "settings.local"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert scalar(DATABASES[0], "SELECT COUNT(*) FROM order_order WHERE status <> 'Complete'") == 0
    assert scalar(DATABASES[0], "SELECT COUNT(*) FROM fulfillment_fulfillmentattempt") == 0


def test_a_second_preload_to_the_same_total_writes_nothing_and_a_larger_one_extends(preloaded):
    again = suite(preloaded, PRELOAD_MODULE, "--orders", str(ORDERS), "--courses", "5")
    assert again.returncode == 0 and "nothing to do" in again.stdout, again.stdout + again.stderr
    before = scalar(DATABASES[0], "SELECT MAX(date_placed) FROM order_order")
    more = suite(preloaded, PRELOAD_MODULE, "--orders", str(ORDERS + 300), "--courses", "5")
    assert more.returncode == 0 and "300 purchases written" in more.stdout, more.stdout + more.stderr
    assert scalar(DATABASES[0], "SELECT COUNT(*) FROM order_order") == ORDERS + 300
    assert scalar(DATABASES[1], "SELECT COUNT(*) FROM auth_user") == ORDERS + 300
    assert scalar(DATABASES[0], f"SELECT MIN(date_placed) FROM order_order WHERE id > {ORDERS}") > before


def test_a_short_load_run_on_the_preloaded_database_loses_nothing(preloaded):
    highest = scalar(DATABASES[0], "SELECT MAX(id) FROM order_order")
    done = suite(
        {**preloaded, "USERS": "3", "STEP_SECONDS": "8"}, "locustfiles.suite.run", "smoke", timeout=300
    )
    folder = Path(done.stdout.strip().splitlines()[-1])
    summary = read_summary(folder)
    result = summary["audit"]
    assert result["passed"] and result["lost"] == 0 and result["duplicates"] == 0, result
    # The audit counts the run's orders only: those above the preloaded ones.
    orders_above = scalar(DATABASES[0], f"SELECT COUNT(*) FROM order_order WHERE id > {highest}")
    assert result["orders"] == orders_above > 0


def test_no_statement_of_any_request_path_scans_a_growing_table(preloaded):
    out = ROOT / "var" / "test" / "sizestack" / "index-audit.md"
    done = suite(preloaded, "locustfiles.suite.tools.index_audit", "--out", str(out))
    assert out.exists(), done.stdout + done.stderr
    scans = [line for line in out.read_text().splitlines() if line.endswith("| **scans** |")]
    assert not scans, "\n".join(scans)
    assert done.returncode == 0, done.stderr


def test_the_audit_allows_no_more_than_the_dashboards_bounded_window():
    from ecommerce.dashboard.index import RECENT_CAP
    from locustfiles.suite.tools.index_audit import BOUNDED_ROWS, scan_limit

    # The statistics read the window's newest orders plus one, to know whether there were more.
    assert BOUNDED_ROWS == RECENT_CAP + 1 and scan_limit(ORDERS) == BOUNDED_ROWS < ORDERS
