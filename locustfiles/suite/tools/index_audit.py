"""The index audit: every statement of every request path, and how many rows each reads.

Each path (a purchase through the LMS, reading orders back, the purchase limit, an
Idempotency-Key replay, a fulfilment retry, lms_stub's enrollment API, the counter rollup, the
dashboard's pages) is run a few times against a running stack, and performance_schema's
statement digests are read before and after it. A statement that reads a number of rows that
grows with the orders scans a growing table: it is what an index (or keyset pagination, or not
counting) must fix. On a preloaded database the difference is stark: an indexed lookup reads a
handful of rows whatever the size, a scan reads them all.

``make index-audit`` prints the table for the stack as it is (preload it first: ``make
preload``); tests/loadsuite/tools/test_index_audit.py holds every statement under the limit at a
small preload.
"""

import argparse
import subprocess
import uuid
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

import requests

from common.contract import courses, paths, tokens
from common.contract import preload_plan as plan
from common.environment import get
from locustfiles.suite.chaos.stack import Stack
from locustfiles.suite.core import blocks
from locustfiles.suite.core.text import shorten
from locustfiles.suite.record.digests import digest_report, is_background
from locustfiles.suite.record.sampler import ServerSampler
from locustfiles.suite.stack import commands
from locustfiles.suite.tools.preload import status
from locustfiles.suite.verdict import facts

REPEAT = 3
STATEMENT_LIMIT = 140  # characters of a statement in the table (cut at a word boundary)


@dataclass
class Audit:
    """What a path needs: the stack's URLs and secrets, and the preload's size. The staff
    password and the key that signs staff tokens come from the stack (scripts/stack.sh), for
    this process on the controlling machine only: no Locust process holds them."""

    stack: Stack
    staff_password: str
    staff_jwt_secret: str
    preloaded: int
    courses: int
    session: requests.Session = field(default_factory=requests.Session)

    @property
    def env(self) -> dict:
        return self.stack.env

    def token(self, username: str, secret: str) -> str:
        issuer = get("JWT_ISSUER", self.env)
        return tokens.mint(secret, issuer, username, f"{username}@example.com", 300)

    def learner(self, username: str) -> dict:
        return tokens.authorization(self.token(username, get("JWT_SECRET_KEY", self.env)))

    def staff(self) -> dict:
        return tokens.authorization(self.token(get("ECOMMERCE_STAFF_USER", self.env), self.staff_jwt_secret))

    def ecommerce(self, method: str, path: str, expect: tuple[int, ...], **kwargs) -> requests.Response:
        response = self.session.request(method, self.stack.ecommerce_url + path, timeout=60, **kwargs)
        if response.status_code not in expect:
            raise AssertionError(f"{method} {path}: {response.status_code} {response.text[:300]}")
        return response

    def lms(self, method: str, path: str, expect: tuple[int, ...], **kwargs) -> requests.Response:
        response = self.session.request(method, self.stack.lms_url + path, timeout=60, **kwargs)
        if response.status_code not in expect:
            raise AssertionError(f"{method} {path}: {response.status_code} {response.text[:300]}")
        return response

    def preloaded_learner(self, k: int) -> str:
        """One of the preloaded learners, spread over the whole preload."""
        return plan.username(1 + (k * 7_654_321) % self.preloaded)

    def sku(self, number: int) -> str:
        return courses.seat(number).sku

    def buy(self, username: str, number: int, headers: dict | None = None) -> requests.Response:
        body = {"products": [{"sku": self.sku(number)}], "checkout": True}
        return self.ecommerce(
            "POST",
            paths.BASKETS,
            (201, 409, 429),
            json=body,
            headers={**self.learner(username), **(headers or {})},
        )


def buy_through_the_lms(audit: Audit, k: int) -> None:
    client = requests.Session()
    login = client.get(audit.stack.lms_url + paths.AUTO_AUTH, timeout=30)
    assert login.status_code == 201, login.text
    csrf = client.cookies["csrftoken"]
    assert csrf is not None, "the LMS's auto-auth sets its CSRF cookie"
    course = courses.course_id(1 + k % audit.courses)
    answer = client.post(
        audit.stack.lms_url + paths.COMMERCE_BASKETS,
        json={"course_id": course},
        headers={"X-CSRFToken": csrf, "Referer": audit.stack.lms_url + "/"},
        timeout=60,
    )
    assert answer.status_code == 201, answer.text


def read_back(audit: Audit, k: int) -> None:
    name = audit.preloaded_learner(k)
    orders = audit.ecommerce("GET", paths.ORDERS, (200,), headers=audit.learner(name)).json()["results"]
    assert orders, f"{name} has no orders, expected its preloaded one"
    audit.ecommerce("GET", paths.order(orders[0]["number"]), (200,), headers=audit.learner(name))


def list_as_staff(audit: Audit, k: int) -> None:
    page = audit.ecommerce("GET", paths.ORDERS + "?page_size=50", (200,), headers=audit.staff()).json()
    audit.session.get(page["next"], headers=audit.staff(), timeout=60).raise_for_status()


def purchase_limit_and_claims(audit: Audit, k: int) -> None:
    """A preloaded learner buys again: the limit counts its baskets, the seat claim refuses the
    seat it owns and takes a new one."""
    i = 1 + (k * 7_654_321) % audit.preloaded
    name, owned = plan.username(i), plan.course_number(i, audit.courses)
    assert audit.buy(name, owned).status_code in (409, 429)
    audit.buy(name, 1 + owned % audit.courses)


def idempotency_key(audit: Audit, k: int) -> None:
    name, key = f"audit_{uuid.uuid4().hex[:12]}", uuid.uuid4().hex
    first = audit.buy(name, 1 + k % audit.courses, {"Idempotency-Key": key})
    replay = audit.buy(name, 1 + k % audit.courses, {"Idempotency-Key": key})
    assert first.status_code == 201 and replay.headers.get("Idempotent-Replayed") == "true", replay.text


def retry_fulfillment(audit: Audit, k: int) -> None:
    """An order whose enrollment failed, retried by staff through the API, and the sweep of
    every order in Fulfillment Error."""
    audit.stack.lms_faults("PUT", {"error_rate": 1})
    try:
        order = audit.buy(f"audit_{uuid.uuid4().hex[:12]}", 1 + k % audit.courses).json()["order"]
    finally:
        audit.stack.lms_faults("DELETE")
    audit.ecommerce("PUT", paths.order_fulfilment(order["number"]), (200,), headers=audit.staff())
    manage(audit, "ecommerce", "retry_fulfillment", "--all")


def enrollment_api(audit: Audit, k: int) -> None:
    name = audit.preloaded_learner(k)
    headers = {"X-Edx-Api-Key": audit.stack.api_key}
    found = audit.lms("GET", f"{paths.ENROLLMENT}?user={name}", (200,), headers=headers).json()
    assert found, f"{name} has no enrollment"
    body = {
        "user": name,
        "is_active": True,
        "mode": found[0]["mode"],
        "course_details": found[0]["course_details"],
    }
    audit.lms("POST", paths.ENROLLMENT, (200,), json=body, headers=headers)


def counter_rollup(audit: Audit, k: int) -> None:
    audit.buy(f"audit_{uuid.uuid4().hex[:12]}", 1 + k % audit.courses)
    manage(audit, "ecommerce", "rollup_counters")


def dashboard(audit: Audit, k: int) -> None:
    staff = requests.Session()
    url = audit.stack.ecommerce_url
    staff.get(url + "/dashboard/login/", timeout=30).raise_for_status()
    staff.post(
        url + "/dashboard/login/",
        data={
            "username": get("ECOMMERCE_STAFF_USER", audit.env),
            "password": audit.staff_password,
            "csrfmiddlewaretoken": staff.cookies["csrftoken"],
        },
        headers={"Referer": url + "/dashboard/login/"},
        timeout=60,
    ).raise_for_status()
    newest = audit.ecommerce("GET", paths.ORDERS + "?page_size=1", (200,), headers=audit.staff()).json()
    number = newest["results"][0]["number"]
    # The day before the newest order: on a preload of days, a status and a date range that
    # newer orders follow (a plan that walks the status alone reads every one of them).
    placed = date.fromisoformat(newest["results"][0]["date_placed"][:10])
    day_before = (placed - timedelta(days=1)).isoformat()
    for path in (
        "/dashboard/",
        "/dashboard/orders/",
        "/dashboard/orders/?status=Fulfillment+Error",
        f"/dashboard/orders/?status=Complete&date_from={day_before}&date_to={day_before}",
        f"/dashboard/orders/{number}/",
        "/dashboard/reports/?report_type=product_analytics",
    ):
        page = staff.get(url + path, timeout=60)
        assert page.status_code == 200 and "/dashboard/login/" not in page.url, f"{path}: {page.status_code}"


def manage(audit: Audit, service: str, *args: str) -> None:
    done = commands.run(service, *args, env=audit.env, timeout=300)
    if done.returncode != 0:
        raise AssertionError(f"manage.py {' '.join(args)} failed: {(done.stdout + done.stderr)[-500:]}")


PATHS = {
    "buy through the LMS": buy_through_the_lms,
    "read back and list (learner)": read_back,
    "list every order (staff)": list_as_staff,
    "purchase limit and seat claims": purchase_limit_and_claims,
    "Idempotency-Key": idempotency_key,
    "fulfilment retry (API and --all)": retry_fulfillment,
    "lms_stub enrollment API": enrollment_api,
    "counter rollup": counter_rollup,
    "dashboard: index, order lists (all, a status, a status on a day), order detail, analytics": dashboard,
}


# The most rows one statement reads by design whatever the size: the dashboard's order
# statistics sum the newest 10,000 orders of their window (ecommerce/dashboard/index.py).
BOUNDED_ROWS = 10_001


def scan_limit(preloaded: int) -> int:
    """Rows one statement may read before it counts as a scan of a growing table: a twentieth
    of the orders (an indexed lookup reads a handful whatever the size), and never less than
    the largest bounded read, so that a preload well above it tells the two apart."""
    return max(BOUNDED_ROWS, preloaded // 20)


def run(audit: Audit, databases: tuple[str, ...], paths=PATHS, repeat: int = REPEAT) -> list[dict]:
    """Every statement of every path: path, schema, statement, calls, rows read per call,
    whether MariaDB found no (good) index, and whether it scans."""
    sampler = ServerSampler(audit.stack.var_dir, databases)
    limit = scan_limit(audit.preloaded)
    rows = []
    try:
        for name, path in paths.items():
            before = sampler.digests()
            for k in range(repeat):
                path(audit, k)
            report = digest_report(before, sampler.digests(), top=1000)
            statements = report["top"] + (report["background"] if name == "counter rollup" else [])
            for statement in statements:
                if name != "counter rollup" and is_background(statement["statement"]):
                    continue
                rows.append(
                    {
                        "path": name,
                        "schema": statement["schema"],
                        "statement": statement["statement"],
                        "calls": statement["count"],
                        "rows_per_call": statement["rows_examined_per_call"],
                        "no_index": statement["no_index"] + statement["no_good_index"],
                        "mean_ms": statement["mean_ms"],
                        "scans": statement["rows_examined_per_call"] > limit,
                    }
                )
    finally:
        sampler.close()
    return rows


def markdown(rows: list[dict], preloaded: int) -> str:
    """The audit as a table block of the report model (core/blocks.py), in Markdown; a
    statement that scans says so in bold, which tests/integration/test_at_size.py looks for."""
    found = blocks.table(
        ["path", "database", "statement", "calls", "rows read per call", "mean ms", "no index used", "scans"],
        [
            [
                row["path"],
                row["schema"],
                blocks.cell(f"`` {shorten(row['statement'], STATEMENT_LIMIT)} ``", "code"),
                row["calls"],
                blocks.cell(f"{row['rows_per_call']:,}", "num"),
                row["mean_ms"],
                row["no_index"],
                "**scans**" if row["scans"] else "no",
            ]
            for row in rows
        ],
    )
    intro = blocks.text(f"A statement scans when it reads more than {scan_limit(preloaded):,} rows per call.")
    return blocks.markdown_document(f"Index audit: {preloaded:,} preloaded purchases", [intro, found])


def stack_secret(name: str) -> str:
    """``scripts/stack.sh staff-password`` or ``staff-jwt-secret``: what the stack generated."""
    done = subprocess.run(
        [str(commands.ROOT / "scripts/stack.sh"), name], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="make index-audit", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=None, help="also write the table here (markdown)")
    options = parser.parse_args(argv)
    stack = Stack()
    password, staff_jwt_secret = stack_secret("staff-password"), stack_secret("staff-jwt-secret")
    preloaded = min(half["done"] for half in status().values())
    if preloaded < 1:
        raise SystemExit("index-audit: nothing is preloaded; run `make preload ORDERS=N` first")
    courses = get("CATALOG_COURSES", stack.env)
    rows = run(Audit(stack, password, staff_jwt_secret, preloaded, courses), facts.databases())
    text = markdown(rows, preloaded)
    print(text)
    if options.out:
        Path(options.out).write_text(text)
    scans = [row for row in rows if row["scans"]]
    if scans:
        raise SystemExit(f"index-audit: {len(scans)} statements scan a growing table")


if __name__ == "__main__":
    main()
