"""The server sampler's MariaDB reads when two greenlets read at once (the step watcher and the
end of a run), and after a read cut short: each read gets a whole connection of its own. And
whose statements the digests of the services' schemas hold: not the suite's readings.

Against the load stack's MariaDB; Locust (imported by conftest) has patched sockets for gevent,
as in a run."""

import gevent
import pytest

from common.monitor_account import mysql_connect
from locustfiles.suite.record.digests import digest_report
from locustfiles.suite.record.sampler import COUNTERS, ServerSampler
from locustfiles.suite.verdict import facts
from tests.loadsuite.conftest import DATABASES


@pytest.fixture
def sampler(stack_env, monkeypatch, tmp_path):
    for name in ("MYSQL_HOST", "MYSQL_PORT", "MYSQL_MONITOR_USER", "MYSQL_MONITOR_PASSWORD"):
        if name in stack_env:
            monkeypatch.setenv(name, stack_env[name])
    sampler = ServerSampler(tmp_path, DATABASES)
    yield sampler
    sampler.close()


def test_two_greenlets_reading_at_once_both_get_their_rows(sampler):
    sampler.status()  # a connection is held between reads, as in a run
    reads = [gevent.spawn(sampler._fetch, "SELECT SLEEP(0.3), %s", (n,)) for n in (1, 2)]
    gevent.joinall(reads, raise_error=True)
    assert [read.value for read in reads] == [((0, 1),), ((0, 2),)]


def test_a_read_killed_mid_statement_leaves_the_next_read_whole(sampler):
    sampler.status()
    cut = gevent.spawn(sampler._fetch, "SELECT SLEEP(2)")
    gevent.sleep(0.3)  # the statement is under way
    cut.kill(block=True)
    status = sampler.status()
    assert status["Questions"] > 0 and set(COUNTERS) <= set(status)
    assert sampler._fetch("SELECT 7") == ((7,),)


def test_the_watermarks_are_the_monitors_without_reading_a_row(stack_env, monkeypatch):
    """The audit's watermarks come from the tables' AUTO_INCREMENT, which the monitoring account
    sees in information_schema: at least the highest id, though it may not read the ids."""
    import MySQLdb

    from tests.support import mysql

    monkeypatch.setenv("ECOMMERCE_DB_NAME", DATABASES[0])
    monkeypatch.setenv("LMS_DB_NAME", DATABASES[1])
    marks = facts.watermarks()
    assert set(marks) == {"order_id", "notification_id", "enrollment_id"}
    for mark, database, table in (
        ("order_id", DATABASES[0], "order_order"),
        ("notification_id", DATABASES[0], "processors_paymentnotification"),
        ("enrollment_id", DATABASES[1], "enrollment_enrollment"),
    ):
        (highest,) = mysql.query(database, f"SELECT COALESCE(MAX(id), 0) FROM {table}")[0]  # the owner
        assert marks[mark] >= highest
        with pytest.raises((MySQLdb.OperationalError, MySQLdb.ProgrammingError)):
            mysql.query(database, f"SELECT MAX(id) FROM {table}", account="monitor")


def _statements(sampler: ServerSampler, before: dict) -> list[str]:
    """The text of every statement the stack's schemas ran since the digests ``before``."""
    found = digest_report(before, sampler.digests(), top=10_000)
    return [s["statement"] for s in found["top"] + found["background"]]


def test_the_suites_readings_are_in_no_schema_of_the_services_but_the_audits_look_ups_are(
    sampler, monkeypatch
):
    """The run's statements are the digests of the services' schemas. The monitor connects to
    no database, so its readings (status, sizes, the watermarks, the digests themselves) are in
    none of them; the audit asks the services' own commands, which run in their schemas like
    the requests: so the run reads its statements before the audit (run/finish.py)."""
    monkeypatch.setenv("ECOMMERCE_DB_NAME", DATABASES[0])
    monkeypatch.setenv("LMS_DB_NAME", DATABASES[1])

    def the_suites(statement: str) -> bool:
        return any(word in statement for word in ("information_schema", "performance_schema", "@@GLOBAL"))

    before = sampler.digests()
    sampler.status()
    sampler.table_sizes(0)
    assert sampler.slow_query_seconds() is not None
    marks = facts.watermarks()
    assert [s for s in _statements(sampler, before) if the_suites(s)] == []
    # The same reading from a connection to a service's database is among its statements.
    before = sampler.digests()
    with mysql_connect(DATABASES[0]) as conn, conn.cursor() as cursor:
        cursor.execute("SELECT @@GLOBAL.long_query_time")
    assert [s for s in _statements(sampler, before) if the_suites(s)] != []

    before = sampler.digests()
    facts.since(marks)
    asked = _statements(sampler, before)
    assert [s for s in asked if "`order_line`" in s and "> ?" in s], asked
