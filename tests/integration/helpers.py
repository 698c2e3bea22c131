"""What the integration tests share: learners' tokens, orders straight to ecommerce, a
connection that holds a row lock, and InnoDB's view of who is waiting."""

import threading
import time
import uuid

import requests

from common.contract.courses import seat
from tests.integration.conftest import ECOMMERCE_DB
from tests.support import locks, mysql, tokens


def new_name(prefix="learner") -> str:
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


def order(url: str, username: str, course_number: int, timeout: float = 60) -> requests.Response:
    """POST /api/v2/baskets/ with checkout, as the LMS sends it."""
    return requests.post(
        url + "/api/v2/baskets/",
        json={"products": [{"sku": seat(course_number).sku}], "checkout": True},
        headers={"Authorization": "JWT " + tokens.token(username)},
        timeout=timeout,
    )


def product_id(course_number: int) -> int:
    rows = mysql.query(
        ECOMMERCE_DB,
        "SELECT product_id FROM partner_stockrecord WHERE partner_sku = %s",
        [seat(course_number).sku],
    )
    return rows[0][0]


class RowLock:
    """A separate connection holding an exclusive lock on one catalogue_product row, as a
    dashboard edit would: every order for that product waits on it (its inserts check the
    foreign key with a shared lock)."""

    def __init__(self, product: int):
        self.conn = mysql.connect(ECOMMERCE_DB)
        self.conn.autocommit(False)
        with self.conn.cursor() as cursor:
            cursor.execute("SELECT id FROM catalogue_product WHERE id = %s FOR UPDATE", [product])
        self.released_at: float | None = None

    def release(self) -> None:
        self.conn.commit()
        self.released_at = time.monotonic()
        self.conn.close()


def lock_waiters() -> int:
    """Transactions of the test ecommerce database now waiting on a row lock."""
    return locks.waiters(ECOMMERCE_DB)


def wait_for(condition, timeout: float, interval: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(interval)
    return False


class Background:
    """Run ``call()`` in a thread; remember its result and when it finished."""

    def __init__(self, call):
        self.result = None
        self.error = None
        self.finished_at: float | None = None
        self.thread = threading.Thread(target=self._run, args=(call,), daemon=True)
        self.thread.start()

    def _run(self, call):
        try:
            self.result = call()
        except Exception as exc:  # reported by the test's assertions
            self.error = exc
        self.finished_at = time.monotonic()

    def join(self, timeout: float) -> None:
        self.thread.join(timeout)


class StatusReader:
    """MariaDB's global counters, read over one connection kept open (so that reading them
    does not itself count as a new connection)."""

    def __init__(self):
        self.conn = mysql.connect(account="monitor")

    def read(self, *names: str) -> dict[str, int]:
        with self.conn.cursor() as cursor:
            cursor.execute("SHOW GLOBAL STATUS")
            values = {name.lower(): value for name, value in cursor.fetchall()}
        return {name: int(values[name.lower()]) for name in names}

    def close(self):
        self.conn.close()


def staff_session(url: str, password: str) -> requests.Session:
    """A browser session logged into the Oscar dashboard as the stack's staff user."""
    session = requests.Session()
    assert session.get(url + "/dashboard/login/", timeout=10).status_code == 200
    logged_in = session.post(
        url + "/dashboard/login/",
        data={"username": "staff", "password": password, "csrfmiddlewaretoken": session.cookies["csrftoken"]},
        headers={"Referer": url + "/dashboard/login/"},
        timeout=10,
    )
    assert logged_in.status_code == 200 and "/dashboard/" in logged_in.url, "staff login failed"
    return session
