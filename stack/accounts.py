"""The SQL that gives the private MariaDB its databases and its accounts by job
(docs/configuration.md, "Database accounts"; docs/decisions/0037-database-accounts-by-job.md).

The owner makes and fills the tables (migrations, seeding, the preload) and the test databases
(test_*, made and dropped by the test runner); each service's own account reads and writes the
rows of its database and of the test databases named after it (test_…ecommerce, test_…lms); the
monitor reads what the load suite measures: server status, statement digests, table sizes (SHOW
VIEW makes a database's tables visible in information_schema without a row of them; the
databases hold no views).
"""

import re
from dataclasses import dataclass, fields

from common.environment import raw

OWNER_PRIVILEGES = (
    "SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, ALTER, INDEX, REFERENCES, CREATE TEMPORARY TABLES"
)
APP_PRIVILEGES = "SELECT, INSERT, UPDATE, DELETE"
DIGESTS = "performance_schema.events_statements_summary_by_digest"
_IDENTIFIER = re.compile(r"[A-Za-z0-9_]+")
# Every grant pattern for the test databases (test_% as a GRANT reads it: _ escaped).
TEST_DATABASES = "`test\\_%`"


class BadName(ValueError):
    """A database or user name that is not a plain SQL identifier."""


@dataclass(frozen=True)
class Account:
    """One account by job: what it may hold (anything else makes it lose every privilege first)
    and what it is granted."""

    user: str
    password: str
    global_privileges: str
    schema_privileges: str
    table_privileges: str
    grants: tuple[str, ...]


def sql_string(value: str) -> str:
    """``value`` as a single-quoted SQL string literal (quotes and backslashes escaped)."""
    return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"


def in_list(items: str) -> str:
    """ "A, B" as the SQL list 'A','B'; '' for none (no privilege is named '')."""
    names = items.split(",") if items else []
    return ",".join(f"'{name.removeprefix(' ')}'" for name in names) or "''"


def database(name: str) -> str:
    """``name`` as a GRANT names one database (an _ would match any character)."""
    return "`" + name.replace("_", "\\_") + "`"


@dataclass(frozen=True)
class Names:
    """The databases, users and passwords, each field named after its variable. The databases
    and users become SQL identifiers quoted by nothing but backticks: plain ones only."""

    ecommerce_db_name: str
    lms_db_name: str
    mysql_owner_user: str
    ecommerce_db_user: str
    lms_db_user: str
    mysql_monitor_user: str
    mysql_owner_password: str
    ecommerce_db_password: str
    lms_db_password: str
    mysql_monitor_password: str

    def __post_init__(self):
        for field in fields(self):
            value = getattr(self, field.name)
            if not field.name.endswith("_password") and not _IDENTIFIER.fullmatch(value):
                variable = field.name.upper()
                raise BadName(f"{variable} must contain only letters, digits and _ (got '{value}')")

    @classmethod
    def from_environment(cls) -> "Names":
        return cls(**{field.name: raw(field.name.upper()) or "" for field in fields(cls)})


def account_sql(account: Account) -> str:
    """The account on 127.0.0.1 and localhost with its password and grants. One holding anything
    beyond what it may hold first loses every privilege: one made by an earlier version (the one
    application user had ALL, PROCESS and performance_schema) or widened by hand. One already
    within them loses nothing, so `up` under a running stack takes nothing away mid-request."""
    lines = []
    password = sql_string(account.password)
    global_, schema = in_list(account.global_privileges), in_list(account.schema_privileges)
    table = in_list(account.table_privileges)
    for host in ("127.0.0.1", "localhost"):
        who = f"'{account.user}'@'{host}'"
        grantee = sql_string(who)
        lines.append(f"""CREATE USER IF NOT EXISTS {who} IDENTIFIED BY {password};
ALTER USER {who} IDENTIFIED BY {password};
DELIMITER //
BEGIN NOT ATOMIC
  IF EXISTS (SELECT 1 FROM information_schema.USER_PRIVILEGES WHERE GRANTEE = {grantee}
             AND (PRIVILEGE_TYPE NOT IN ('USAGE', {global_}) OR IS_GRANTABLE = 'YES'))
  OR EXISTS (SELECT 1 FROM information_schema.SCHEMA_PRIVILEGES WHERE GRANTEE = {grantee}
             AND (PRIVILEGE_TYPE NOT IN ({schema}) OR IS_GRANTABLE = 'YES'))
  OR EXISTS (SELECT 1 FROM information_schema.TABLE_PRIVILEGES WHERE GRANTEE = {grantee}
             AND (CONCAT(TABLE_SCHEMA, '.', TABLE_NAME, ' ', PRIVILEGE_TYPE) NOT IN ({table})
                  OR IS_GRANTABLE = 'YES'))
  OR EXISTS (SELECT 1 FROM information_schema.COLUMN_PRIVILEGES WHERE GRANTEE = {grantee}) THEN
    REVOKE ALL PRIVILEGES, GRANT OPTION FROM {who};
  END IF;
END //
DELIMITER ;
""")
        lines += [f"GRANT {grant} TO {who};\n" for grant in account.grants]
    return "".join(lines)


def accounts(names: Names) -> list[Account]:
    """The four accounts. A service database of a test stack (test_*) is one of the test
    databases, which the patterns cover: it gets no grant of its own."""
    owner, monitor = [], ["PROCESS ON *.*", f"SELECT ON {DIGESTS}"]
    for name in (names.ecommerce_db_name, names.lms_db_name):
        if not name.startswith("test_"):
            owner.append(f"{OWNER_PRIVILEGES} ON {database(name)}.*")
            monitor.append(f"SHOW VIEW ON {database(name)}.*")
    owner.append(f"{OWNER_PRIVILEGES} ON {TEST_DATABASES}.*")
    monitor.append(f"SHOW VIEW ON {TEST_DATABASES}.*")

    def service_grants(name: str) -> tuple[str, ...]:
        if name.startswith("test_"):
            return ()
        return (
            f"{APP_PRIVILEGES} ON {database(name)}.*",
            f"{APP_PRIVILEGES} ON {database('test_%' + name)}.*",
        )

    app = ("", APP_PRIVILEGES, "")
    return [
        Account(names.mysql_owner_user, names.mysql_owner_password, "", OWNER_PRIVILEGES, "", tuple(owner)),
        Account(
            names.ecommerce_db_user,
            names.ecommerce_db_password,
            *app,
            service_grants(names.ecommerce_db_name),
        ),
        Account(names.lms_db_user, names.lms_db_password, *app, service_grants(names.lms_db_name)),
        Account(
            names.mysql_monitor_user,
            names.mysql_monitor_password,
            "PROCESS",
            "SHOW VIEW",
            f"{DIGESTS} SELECT",
            tuple(monitor),
        ),
    ]


def provision_sql(names: Names) -> str:
    """Both databases and the four accounts, for root's client on the socket. root keeps only
    the socket (under the datadir's folder, mode 700): its TCP accounts are dropped."""
    head = f"""DELETE FROM mysql.global_priv WHERE User = 'root' AND Host <> 'localhost';
DELETE FROM mysql.global_priv WHERE User = '';
FLUSH PRIVILEGES;
CREATE DATABASE IF NOT EXISTS `{names.ecommerce_db_name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE DATABASE IF NOT EXISTS `{names.lms_db_name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
"""
    return head + "".join(account_sql(account) for account in accounts(names))
