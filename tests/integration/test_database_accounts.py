"""The database accounts (docs/configuration.md, "Database accounts"): each holds exactly its grants on the
MariaDB scripts/mysql.sh provisions, a service's own account is refused everything but the rows
of its database, the monitor reads server state and no row, `up` narrows an account an earlier
version made, and the running services connect as their own accounts.

The grants are read with root over the test MariaDB's socket (scripts/mysql.sh shell), as an
administrator would; everything else connects as the account under test, over TCP."""

import os
import subprocess
from pathlib import Path

import MySQLdb
import pytest

from tests.integration.conftest import ECOMMERCE_DB, LMS_DB
from tests.support import mysql

ROOT = Path(__file__).resolve().parents[2]
OWNER = "SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, REFERENCES, INDEX, ALTER, CREATE TEMPORARY TABLES"
ROWS = "SELECT, INSERT, UPDATE, DELETE"
DIGESTS = "`performance_schema`.`events_statements_summary_by_digest`"
# SHOW GRANTS of each account, without its TO clause and password hash (MariaDB 10.11's words).
GRANTS = {
    "owner": {
        "GRANT USAGE ON *.*",
        f"GRANT {OWNER} ON `ecommerce`.*",
        f"GRANT {OWNER} ON `lms`.*",
        f"GRANT {OWNER} ON `test\\_%`.*",
    },
    "ecommerce": {
        "GRANT USAGE ON *.*",
        f"GRANT {ROWS} ON `ecommerce`.*",
        f"GRANT {ROWS} ON `test\\_%ecommerce`.*",
    },
    "lms": {"GRANT USAGE ON *.*", f"GRANT {ROWS} ON `lms`.*", f"GRANT {ROWS} ON `test\\_%lms`.*"},
    "monitor": {
        "GRANT PROCESS ON *.*",
        "GRANT SHOW VIEW ON `ecommerce`.*",
        "GRANT SHOW VIEW ON `lms`.*",
        "GRANT SHOW VIEW ON `test\\_%`.*",
        f"GRANT SELECT ON {DIGESTS}",
    },
}
DENIED = (1044, 1142, 1227)  # access denied to a database, to a table's command, for a privilege
ECOMMERCE_PROBE, LMS_PROBE = "test_accounts_ecommerce", "test_accounts_lms"


def mysql_sh(*args: str) -> subprocess.CompletedProcess:
    """scripts/mysql.sh on the test MariaDB, with the folders scripts/test.sh gave it."""
    env = {**os.environ, "VAR_DIR": str(Path(os.environ["MYSQL_DIR"]).parent)}
    done = subprocess.run(
        [str(ROOT / "scripts/mysql.sh"), *args], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def as_root(sql: str) -> list[str]:
    return mysql_sh("shell", "-N", "-r", "-e", sql).stdout.splitlines()


def grants(account: str, host: str) -> set[str]:
    shown = as_root(f"SHOW GRANTS FOR '{mysql.user(account)}'@'{host}'")
    return {line.split(" TO ")[0] for line in shown}


def status(name: str) -> int:
    return int(as_root(f"SHOW GLOBAL STATUS LIKE '{name}'")[0].split("\t")[1])


def refused(account: str, sql: str, database: str | None = None) -> int:
    """The error number MariaDB refused ``sql`` with, run as ``account``; fails if it ran."""
    with pytest.raises((MySQLdb.OperationalError, MySQLdb.ProgrammingError)) as error:
        mysql.query(database or "information_schema", sql, account=account)
    return error.value.args[0]


@pytest.fixture(scope="module")
def probes():
    """A table in a test database of each service, made by the owner."""
    for database in (ECOMMERCE_PROBE, LMS_PROBE):
        mysql.recreate_database(database)
        mysql.query(database, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
        mysql.query(database, "INSERT INTO t (v) VALUES (1), (2), (3)")
    yield
    for database in (ECOMMERCE_PROBE, LMS_PROBE):
        mysql.drop_database(database)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
@pytest.mark.parametrize("account", sorted(GRANTS))
def test_each_account_holds_exactly_its_grants(account, host):
    assert grants(account, host) == GRANTS[account]


@pytest.mark.parametrize(
    "account, database, other",
    [("ecommerce", ECOMMERCE_PROBE, LMS_PROBE), ("lms", LMS_PROBE, ECOMMERCE_PROBE)],
)
def test_a_service_account_writes_the_rows_of_its_database_and_nothing_else(probes, account, database, other):
    mysql.query(database, "INSERT INTO t (v) VALUES (4)", account=account)
    mysql.query(database, "UPDATE t SET v = v + 1 WHERE v = 4", account=account)
    mysql.query(database, "DELETE FROM t WHERE v = 5", account=account)
    assert mysql.query(database, "SELECT COUNT(*) FROM t", account=account) == [(3,)]

    assert refused(account, "CREATE TABLE t2 (id INT)", database) == 1142
    assert refused(account, "ALTER TABLE t ADD COLUMN w INT", database) == 1142
    assert refused(account, "DROP TABLE t", database) == 1142
    assert refused(account, "TRUNCATE TABLE t", database) == 1142
    assert refused(account, "CREATE INDEX by_v ON t (v)", database) == 1142
    assert refused(account, "CREATE TEMPORARY TABLE scratch (id INT)", database) == 1044
    assert refused(account, f"CREATE DATABASE test_more_{database}") == 1044
    assert refused(account, f"DROP DATABASE {database}") == 1044
    assert (
        refused(account, f"GRANT SELECT ON `{database}`.* TO '{mysql.user('monitor')}'@'localhost'") in DENIED
    )
    # The other service's database, even to read.
    assert refused(account, f"SELECT COUNT(*) FROM `{other}`.t") == 1142


@pytest.mark.parametrize("account", ["ecommerce", "lms"])
def test_a_service_account_reads_no_server_state(probes, account):
    assert refused(account, f"SELECT COUNT(*) FROM {DIGESTS}") == 1142
    assert refused(account, "SELECT COUNT(*) FROM performance_schema.threads") == 1142
    assert refused(account, "SHOW ENGINE INNODB STATUS") == 1227
    assert refused(account, "SELECT COUNT(*) FROM information_schema.INNODB_TRX") == 1227
    assert refused(account, "SELECT COUNT(*) FROM mysql.user") == 1142
    # Other accounts' connections are not its to see (nor to end).
    with mysql.connect(account="owner") as owner, owner.cursor() as cursor:
        cursor.execute("SELECT CONNECTION_ID()")
        (owners,) = cursor.fetchone()
        with mysql.connect(account=account) as own, own.cursor() as mine:
            mine.execute("SHOW PROCESSLIST")
            seen = {row[0]: row[1] for row in mine.fetchall()}
            assert owners not in seen and set(seen.values()) == {mysql.user(account)}
            with pytest.raises((MySQLdb.OperationalError, MySQLdb.ProgrammingError)) as error:
                mine.execute(f"KILL {int(owners)}")
            assert error.value.args[0] == 1095  # "You are not owner of thread"
        seen_by_monitor = mysql.query("information_schema", "SELECT ID FROM PROCESSLIST", account="monitor")
        assert (owners,) in seen_by_monitor


def test_the_monitor_reads_what_the_load_suite_reads_and_no_row(probes):
    status_rows = dict(mysql.query("information_schema", "SHOW GLOBAL STATUS", account="monitor"))
    assert int(status_rows["Com_commit"]) >= 0 and "Innodb_row_lock_waits" in status_rows
    assert mysql.query("information_schema", f"SELECT COUNT(*) > 0 FROM {DIGESTS}", account="monitor") == [
        (1,)
    ]
    for database in (ECOMMERCE_PROBE, LMS_PROBE):
        # The table's size and where its ids stand (the audit's watermark), not its rows.
        sizes = mysql.query(
            "information_schema",
            "SELECT t.AUTO_INCREMENT, s.ALLOCATED_SIZE > 0 FROM TABLES AS t "
            "JOIN INNODB_SYS_TABLESPACES AS s ON s.NAME = CONCAT(t.TABLE_SCHEMA, '/', t.TABLE_NAME) "
            "WHERE t.TABLE_SCHEMA = %s AND t.TABLE_NAME = 't'",
            [database],
            account="monitor",
        )
        (highest,) = mysql.query(database, "SELECT MAX(id) FROM t")[0]  # the owner's reading
        assert len(sizes) == 1 and sizes[0][0] > highest and sizes[0][1] == 1
        assert refused("monitor", "SELECT MAX(id) FROM t", database) == 1142
        assert refused("monitor", "INSERT INTO t (v) VALUES (9)", database) == 1142
        assert refused("monitor", "UPDATE t SET v = 0", database) == 1142
        assert refused("monitor", "DELETE FROM t", database) == 1142
        assert refused("monitor", "CREATE TABLE t2 (id INT)", database) == 1142
    assert refused("monitor", "SELECT COUNT(*) FROM performance_schema.events_statements_history") == 1142


def test_up_narrows_an_account_an_earlier_version_made_and_then_leaves_it_alone():
    owner = mysql.user("owner")
    # What scripts/mysql.sh granted its one application user before the accounts were split.
    as_root(
        f"GRANT ALL PRIVILEGES ON `ecommerce`.* TO '{owner}'@'127.0.0.1';"
        f"GRANT SELECT ON performance_schema.* TO '{owner}'@'127.0.0.1';"
        f"GRANT PROCESS ON *.* TO '{owner}'@'127.0.0.1'"
    )
    assert grants("owner", "127.0.0.1") != GRANTS["owner"]

    mysql_sh("up")
    assert grants("owner", "127.0.0.1") == GRANTS["owner"]

    revoked = status("Com_revoke_all")
    mysql_sh("up")
    assert status("Com_revoke_all") == revoked  # nothing to take away: nothing is
    assert all(grants(account, "127.0.0.1") == wanted for account, wanted in GRANTS.items())


@pytest.mark.slow
def test_the_running_services_connect_as_their_own_accounts(stack):
    """After a purchase through the loop, every connection to the stack's databases is its
    service's own account's (the pools keep them open)."""
    from tests.integration.helpers import new_name, order

    assert order(stack.ecommerce.url, new_name(), 1).status_code == 201
    connected = mysql.query(
        "information_schema",
        "SELECT DISTINCT DB, USER FROM PROCESSLIST WHERE DB IN (%s, %s)",
        [ECOMMERCE_DB, LMS_DB],
        account="monitor",
    )
    assert set(connected) == {(ECOMMERCE_DB, mysql.user("ecommerce")), (LMS_DB, mysql.user("lms"))}
