"""The SQL statements one purchase ran, per service, read from MariaDB's general log.

The log holds every statement of every connection while it is on. A service's are those of its
own database account (``user_host`` names it: "ecommerce_app[ecommerce_app] @  [127.0.0.1]"),
in the order MariaDB received them, whichever pooled connection ran them. The purchase-counter
rollup (a background job, under ecommerce's account) is left out whole: every statement of a
connection that ran one of its statements (record/digests.py knows them).

The load-test machinery's reads are left out too, counted: lms_stub's fault settings, which a
worker reads again once they are older than LMS_FAULT_REFRESH_SECONDS, whichever request it is
serving then (one in many under load, and no work of a purchase's).

Of the rest, transaction control (BEGIN, COMMIT, ROLLBACK, SET autocommit) is counted but not
replayed: a replay is one transaction that is rolled back (replay.py). A statement that could
commit by itself or change more than rows (DDL, LOCK TABLES, anything not on the list below) is
never replayed; it is listed as refused.
"""

import re
from dataclasses import dataclass, field

from locustfiles.suite.record.digests import is_background

QUERY = "Query"  # the general log's command_type of a statement
_ACCOUNT = re.compile(r"^[^\[]*\[([^\]]*)\]")
TRANSACTION_CONTROL = re.compile(
    r"^\s*(?:BEGIN|START\s+TRANSACTION|COMMIT|ROLLBACK(?!\s+(?:WORK\s+)?TO\b)"
    r"|SET\s+(?:SESSION\s+|@@(?:SESSION\.)?)?AUTOCOMMIT)\b",
    re.IGNORECASE,
)
REPLAYABLE = re.compile(
    r"^\s*\(?\s*(?:SELECT|INSERT|UPDATE|DELETE|REPLACE|WITH|DO|SAVEPOINT|RELEASE\s+SAVEPOINT"
    r"|ROLLBACK\s+(?:WORK\s+)?TO|SET\s+(?:SESSION\s+)?TRANSACTION\s+ISOLATION|SET\s+NAMES)\b",
    re.IGNORECASE,
)
MACHINERY = re.compile(r"\bFROM\s+`?faults_faultsettings`?", re.IGNORECASE)
_INSERT = re.compile(r"^\s*(?:INSERT|REPLACE)\s+(?:IGNORE\s+)?(?:INTO\s+)?`?(\w+)`?", re.IGNORECASE)
_RETURNING = re.compile(r"\bRETURNING\b", re.IGNORECASE)


@dataclass(frozen=True)
class Logged:
    """One row of mysql.general_log."""

    thread_id: int
    user_host: str
    command: str
    text: str


@dataclass
class Captured:
    """One service's statements of the purchase: those to replay, in order, and what was not."""

    statements: list[str] = field(default_factory=list)
    transaction_control: int = 0
    machinery: int = 0
    refused: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "replayed": self.statements,
            "transaction_control": self.transaction_control,
            "machinery": self.machinery,
            "refused": self.refused,
        }


def account(user_host: str) -> str:
    """The account a general log row's ``user_host`` names; "" when it names none."""
    found = _ACCOUNT.match(user_host or "")
    return found[1] if found else ""


def is_transaction_control(sql: str) -> bool:
    return bool(TRANSACTION_CONTROL.match(sql))


def is_replayable(sql: str) -> bool:
    return bool(REPLAYABLE.match(sql))


def inserts(sql: str) -> bool:
    return bool(_INSERT.match(sql))


def returns_rows(sql: str) -> bool:
    """An INSERT ... RETURNING, whose generated id comes back as a row."""
    return inserts(sql) and bool(_RETURNING.search(sql))


def per_service(rows: list[Logged], services: dict[str, str]) -> dict[str, Captured]:
    """``services``: account -> service. Every service named there gets its Captured, empty
    when the log has nothing of it."""
    background = {row.thread_id for row in rows if row.command == QUERY and is_background(row.text)}
    found = {service: Captured() for service in services.values()}
    for row in rows:
        service = services.get(account(row.user_host))
        if service is None or row.command != QUERY or row.thread_id in background:
            continue
        captured = found[service]
        if is_transaction_control(row.text):
            captured.transaction_control += 1
        elif MACHINERY.search(row.text):
            captured.machinery += 1
        elif is_replayable(row.text):
            captured.statements.append(row.text)
        else:
            captured.refused.append(row.text)
    return found
