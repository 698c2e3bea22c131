"""The server sampler's MariaDB reads when two greenlets read at once (the step watcher and the
end of a run), and after a read cut short: each read gets a whole connection of its own.

Against the load stack's MariaDB; Locust (imported by conftest) has patched sockets for gevent,
as in a run."""

import gevent
import pytest

from locustfiles.suite.record.sampler import COUNTERS, ServerSampler
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

    from locustfiles.suite.verdict import facts
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
