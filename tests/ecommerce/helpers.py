"""Helpers of the ecommerce suite: the API as the LMS calls it, the lms_stub handle, counters."""

import json

import requests
from django.db import connection
from django.test import Client

from tests.support import tokens

API_KEY = "local-only-edx-api-key"
FAULT_API_KEY = "local-only-fault-api-key"
COURSES = 5


class Lms:
    """The test's handle on the real lms_stub: its faults and its enrollments."""

    def __init__(self, service):
        self.service = service
        self.url = service.url

    def set_faults(self, **faults):
        response = requests.put(
            self.url + "/api/faults/", json=faults, headers={"X-Fault-Api-Key": FAULT_API_KEY}
        )
        response.raise_for_status()

    def reset_faults(self):
        requests.delete(
            self.url + "/api/faults/", headers={"X-Fault-Api-Key": FAULT_API_KEY}
        ).raise_for_status()

    def enrollments(self, username: str) -> list[dict]:
        response = requests.get(
            self.url + "/api/enrollment/v1/enrollment",
            params={"user": username},
            headers={"X-Edx-Api-Key": API_KEY},
        )
        response.raise_for_status()
        return response.json()


class Api:
    """The ecommerce API through Django's test client, as the LMS (or a learner) calls it.

    ``username`` signs a learner token for that name; ``claims`` adds claims to it; ``staff``
    signs it with the staff key instead (a token that acts for a staff account).
    """

    def __init__(self):
        self.client = Client(HTTP_HOST="127.0.0.1")

    def buy(self, username, skus, checkout=True, key=None, **headers):
        body = {"products": [{"sku": sku} for sku in skus], "checkout": checkout}
        return self.post_json("/api/v2/baskets/", body, username, key=key, **headers)

    def post_json(self, path, body, username=None, key=None, claims=None, staff=False, **headers):
        if key is not None:
            headers["HTTP_IDEMPOTENCY_KEY"] = key
        headers = self._auth(username, claims, staff, headers)
        return self.client.post(path, json.dumps(body), content_type="application/json", **headers)

    def get(self, path, username=None, claims=None, staff=False, **headers):
        return self.client.get(path, **self._auth(username, claims, staff, headers))

    def put(self, path, username=None, claims=None, staff=False, **headers):
        return self.client.put(path, **self._auth(username, claims, staff, headers))

    @staticmethod
    def _auth(username, claims, staff, headers) -> dict:
        if username:
            key = tokens.STAFF_SECRET if staff else tokens.SECRET
            return {**headers, **tokens.auth_header(username, key=key, **(claims or {}))}
        return headers


ROW_TABLES = (
    "auth_user",
    "basket_basket",
    "basket_line",
    "order_order",
    "order_line",
    "orders_seatclaim",
    "orders_idempotencyrecord",
)


def row_counts(tables: tuple[str, ...] = ROW_TABLES) -> dict[str, int]:
    """Rows in every table the order path writes, or in ``tables`` (as this test's connection
    sees them)."""
    with connection.cursor() as cursor:
        counts = {}
        for table in tables:
            cursor.execute(f"SELECT COUNT(*) FROM `{table}`")
            counts[table] = cursor.fetchone()[0]
        return counts


def session_status(name: str) -> int:
    """A MariaDB counter of this test's own connection (e.g. Com_commit)."""
    with connection.cursor() as cursor:
        cursor.execute("SHOW SESSION STATUS LIKE %s", [name])
        return int(cursor.fetchone()[1])


def transactions_open_at_lms_calls(monkeypatch) -> list[bool]:
    """From now on, whether a transaction was open at each enrollment call: the list fills as
    the calls happen (rule 3: it must never be)."""
    from ecommerce.fulfillment import modules

    seen: list[bool] = []
    original = modules.EnrollmentFulfillmentModule.fulfill_line

    def spy(self, order, line, timeout):
        seen.append(connection.in_atomic_block)
        return original(self, order, line, timeout)

    monkeypatch.setattr(modules.EnrollmentFulfillmentModule, "fulfill_line", spy)
    return seen
