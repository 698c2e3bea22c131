"""Both services as real gunicorn processes on their own test databases, their OpenAPI
documents loaded by schemathesis, and what every fuzzed or hand-written bad request must
satisfy: no server error, an answer the schema allows, the one error shape for every 4xx, and
no write by a rejected request."""

import os
import time
from collections import Counter

import pytest
import requests
import schemathesis

from tests.support import mysql, servers, tokens

# schemathesis 4.32 names each operation's subtest through pytest's old Node._nodeid, which
# pytest 9.2 replaced with Node._id (a NodeId). This alias lets it keep doing so; remove it
# once a schemathesis release speaks pytest 9.2.
if not hasattr(pytest.Item, "_nodeid"):
    from _pytest.nodeid import coerce_node_id

    pytest.Item._nodeid = property(
        lambda node: str(node._id), lambda node, value: setattr(node, "_id", coerce_node_id(value))
    )

ECOMMERCE_DB = "test_schema_ecommerce"
LMS_DB = "test_schema_lms"
COURSES = 5
API_KEY = "local-only-edx-api-key"
FAULT_API_KEY = "local-only-fault-api-key"
STAFF = "staff"  # created by ensure_staff; a token signed with the staff key reaches it

# Examples schemathesis generates per operation and run in its fuzzing phase (its coverage and
# examples phases add their own, deterministic cases). `make fuzz` raises it.
FUZZ_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "15"))
# A fixed seed keeps `make test` repeatable; `make fuzz` draws a new one unless FUZZ_SEED is set.
FUZZ_SEED = os.environ.get("FUZZ_SEED", "20151")

CASES: Counter = Counter()  # cases sent, by service and run, for the summary


class Stack:
    def __init__(self, lms, ecommerce, env):
        self.lms, self.ecommerce, self.env = lms, ecommerce, env


@pytest.fixture(scope="session")
def stack():
    with servers.loop(ECOMMERCE_DB, LMS_DB, COURSES, "schema-staff-password") as (lms, ecommerce, env):
        yield Stack(lms, ecommerce, env)


class Databases:
    """A fingerprint of every table of both services' databases: CHECKSUM TABLE covers
    updates as well as inserts and deletes, so equal fingerprints mean nothing was written."""

    def __init__(self):
        self.tables = {
            database: [
                row[0]
                for row in mysql.query(
                    "information_schema",
                    "SELECT TABLE_NAME FROM TABLES WHERE TABLE_SCHEMA = %s AND TABLE_TYPE = 'BASE TABLE'",
                    [database],
                )
            ]
            for database in (ECOMMERCE_DB, LMS_DB)
        }
        self.conn = mysql.connect()

    def fingerprint(self) -> dict:
        found = {}
        with self.conn.cursor() as cursor:
            for database, tables in self.tables.items():
                cursor.execute("CHECKSUM TABLE " + ", ".join(f"`{database}`.`{t}`" for t in tables))
                found.update(dict(cursor.fetchall()))
        return found

    def changed_tables(self, before: dict, after: dict) -> list[str]:
        return sorted(name for name in before if before[name] != after.get(name))


@pytest.fixture(scope="session")
def databases(stack):
    handle = Databases()
    yield handle
    handle.conn.close()


@pytest.fixture(autouse=True)
def _no_faults(stack):
    """Every test starts and ends with the enrollment API healthy."""
    reset_faults(stack)
    yield
    reset_faults(stack)


def reset_faults(stack) -> None:
    requests.delete(
        stack.lms.url + "/api/faults/", headers={"X-Fault-Api-Key": FAULT_API_KEY}, timeout=10
    ).raise_for_status()


def fuzz_config() -> schemathesis.Config:
    config = {
        "request-timeout": 30,
        "generation": {"max-examples": FUZZ_EXAMPLES, "database": "none"},
        # Replaced by accepted_unless_the_schema_cannot_tell (test_fuzz.py): a schema cannot
        # list which SKUs and courses exist.
        "checks": {"positive_data_acceptance": {"enabled": False}},
    }
    if FUZZ_SEED:
        config["seed"] = int(FUZZ_SEED)
    return schemathesis.Config.from_dict(config)


@pytest.fixture(scope="session")
def ecommerce_schema(stack):
    return schemathesis.openapi.from_url(stack.ecommerce.url + "/api/v2/schema/", config=fuzz_config())


@pytest.fixture(scope="session")
def lms_schema(stack):
    return schemathesis.openapi.from_url(stack.lms.url + "/api/schema/", config=fuzz_config())


def learner_token(name: str, **claims) -> str:
    """A learner token valid for ten minutes (a fuzz run outlasts the usual minute)."""
    return tokens.token(name, exp=int(time.time()) + 600, **claims)


def staff_token() -> str:
    """A token for the staff account, signed with the stack's staff key, valid for ten minutes."""
    return tokens.staff_token(STAFF, exp=int(time.time()) + 600)


def pytest_terminal_summary(terminalreporter):
    if not CASES:
        return
    terminalreporter.section("schema fuzzing")
    for (service, run), count in sorted(CASES.items()):
        terminalreporter.write_line(f"{service:10} {run:28} {count:6} cases")
    by_service = Counter()
    for (service, _), count in CASES.items():
        by_service[service] += count
    totals = ", ".join(f"{service} {count}" for service, count in sorted(by_service.items()))
    seed = FUZZ_SEED or "random"
    terminalreporter.write_line(
        f"total: {sum(CASES.values())} cases ({totals}); FUZZ_EXAMPLES={FUZZ_EXAMPLES} FUZZ_SEED={seed}"
    )
