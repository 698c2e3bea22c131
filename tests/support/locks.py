"""Who waits on a row lock, and who holds it, read so that the answer is today's.

InnoDB serves information_schema.INNODB_TRX, INNODB_LOCKS and INNODB_LOCK_WAITS from a copy it
refreshes only once the copy has gone unread for 100 ms (CACHE_MIN_IDLE_TIME in
storage/innobase/trx/trx0i_s.cc; every read restarts that clock, so that the three tables
joined in one query agree). A test that polled INNODB_TRX every 50 ms therefore read its first
snapshot again and again: a waiter it saw once stayed "LOCK WAIT" for as long as it polled,
seconds after its transaction had committed (issue 42's "waiter nobody explains": the order's
own INSERT INTO basket_line, answered 201, its pooled connection asleep). Every read here
waits until the copy has gone unread for longer than that, and counts only a waiter whose
thread is running a statement (PROCESSLIST is live, not copied).

InnoDB's own view (information_schema.INNODB_LOCK_WAITS, INNODB_TRX, INNODB_LOCKS) names both
transactions and the lock; the processlist gives each one's account, client address, command
and age; performance_schema's statement history gives the holder's last statements (what it
did before it went idle with its locks); the client's port names the local process that owns
the connection (which service, which gunicorn worker). Read as root over the socket of the
MariaDB the tests use: the monitor account may read server state but no statement text.
"""

import os
import time
from pathlib import Path

import MySQLdb
import psutil

from common.environment import get
from tests.support import mysql

# A little over InnoDB's 100 ms: how long its copy must go unread before a read refreshes it.
FRESH_AFTER = 0.12
_last_read = [0.0]  # when this process last read the copy (time.monotonic())

WAITS = """
SELECT r.trx_id, r.trx_mysql_thread_id, rp.USER, rp.HOST, rp.DB, rp.TIME, LEFT(r.trx_query, 160),
       b.trx_id, b.trx_mysql_thread_id, bp.USER, bp.HOST, bp.COMMAND, bp.TIME, bp.STATE,
       b.trx_started, b.trx_state, LEFT(b.trx_query, 160), b.trx_rows_locked, b.trx_rows_modified,
       l.lock_mode, l.lock_type, l.lock_table, l.lock_index, l.lock_data
FROM information_schema.INNODB_LOCK_WAITS w
JOIN information_schema.INNODB_TRX r ON r.trx_id = w.requesting_trx_id
JOIN information_schema.INNODB_TRX b ON b.trx_id = w.blocking_trx_id
LEFT JOIN information_schema.PROCESSLIST rp ON rp.ID = r.trx_mysql_thread_id
LEFT JOIN information_schema.PROCESSLIST bp ON bp.ID = b.trx_mysql_thread_id
LEFT JOIN information_schema.INNODB_LOCKS l ON l.lock_id = w.blocking_lock_id
"""

OPEN = """
SELECT t.trx_id, t.trx_mysql_thread_id, p.USER, p.HOST, p.DB, p.COMMAND, p.TIME, p.STATE,
       t.trx_started, t.trx_state, LEFT(t.trx_query, 160), t.trx_rows_locked, t.trx_rows_modified
FROM information_schema.INNODB_TRX t
LEFT JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id
ORDER BY t.trx_started
"""

HISTORY = """
SELECT h.EVENT_ID, LEFT(h.SQL_TEXT, 160), h.MYSQL_ERRNO
FROM performance_schema.events_statements_history h
JOIN performance_schema.threads t ON t.THREAD_ID = h.THREAD_ID
WHERE t.PROCESSLIST_ID = %s ORDER BY h.EVENT_ID
"""


def fresh_read(read):
    """``read()`` of InnoDB's lock tables once their copy has gone unread long enough to be
    refreshed by it (the caller is the only reader: the tests' MariaDB is theirs)."""
    wait = _last_read[0] + FRESH_AFTER - time.monotonic()
    if wait > 0:
        time.sleep(wait)
    try:
        return read()
    finally:
        _last_read[0] = time.monotonic()


def waiters(database: str) -> int:
    """Transactions of ``database`` waiting on a row lock now (the monitor account's to read)."""
    rows = fresh_read(
        lambda: mysql.query(
            "information_schema",
            "SELECT COUNT(*) FROM INNODB_TRX t JOIN PROCESSLIST p ON p.ID = t.trx_mysql_thread_id "
            "WHERE t.trx_state = 'LOCK WAIT' AND p.DB = %s AND p.COMMAND = 'Query'",
            [database],
            account="monitor",
        )
    )
    return rows[0][0]


def record_statements() -> None:
    """Keep each connection's last statements (performance_schema's per-thread history, off by
    default) so that a report can say what a holder did before it went idle with its locks."""
    with root_connect() as conn, conn.cursor() as cursor:
        cursor.execute(
            "UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' "
            "WHERE NAME IN ('events_statements_current', 'events_statements_history')"
        )


def root_connect():
    """Root over the socket of the MariaDB in MYSQL_DIR (scripts/mysql.sh's client section)."""
    socket = Path(os.environ.get("MYSQL_DIR") or get("MYSQL_DIR")) / "mysqld.sock"
    return MySQLdb.connect(unix_socket=str(socket), user="root", charset="utf8mb4", autocommit=True)


def client_process(host: str | None) -> str:
    """The local process that owns the client end ``host`` ("127.0.0.1:PORT") of a connection."""
    if not host or ":" not in host:
        return f"client {host!r}"
    port = int(host.rsplit(":", 1)[1])
    for conn in psutil.net_connections(kind="tcp"):
        if conn.laddr and conn.laddr.port == port and conn.pid:
            try:
                process = psutil.Process(conn.pid)
                parent = process.parent()
                return (
                    f"pid {conn.pid} ({' '.join(process.cmdline())[:120]}), "
                    f"parent {parent.pid if parent else None}"
                )
            except psutil.Error as exc:
                return f"pid {conn.pid} ({exc})"
    return f"no local process owns port {port} any more"


def report() -> str:
    """Every lock wait with its holder, then every open transaction: a readable paragraph."""
    return fresh_read(_report)


def _report() -> str:
    lines = []
    with root_connect() as conn, conn.cursor() as cursor:
        cursor.execute(WAITS)
        waits = cursor.fetchall()
        for w in waits:
            lines.append(
                f"WAITER trx {w[0]} thread {w[1]} {w[2]}@{w[3]} db {w[4]} waiting {w[5]} s: {w[6]!r}\n"
                f"  from {client_process(w[3])}\n"
                f"  on {w[19]} {w[20]} lock of {w[21]} index {w[22]} data {w[23]!r}\n"
                f"  HOLDER trx {w[7]} thread {w[8]} {w[9]}@{w[10]} {w[11]} for {w[12]} s, state {w[13]!r}, "
                f"started {w[14]}, {w[15]}, running {w[16]!r}, rows locked {w[17]} modified {w[18]}\n"
                f"  holder is {client_process(w[10])}\n"
                f"  holder's last statements: {_history(cursor, w[8])}"
            )
        cursor.execute(OPEN)
        for t in cursor.fetchall():
            lines.append(
                f"OPEN trx {t[0]} thread {t[1]} {t[2]}@{t[3]} db {t[4]} {t[5]} for {t[6]} s state {t[7]!r} "
                f"started {t[8]} {t[9]} running {t[10]!r} rows locked {t[11]} modified {t[12]}; "
                f"{client_process(t[3])}; last statements: {_history(cursor, t[1])}"
            )
    return "\n".join(lines) or "no lock wait and no open transaction"


def _history(cursor, thread_id) -> list:
    try:
        cursor.execute(HISTORY, [thread_id])
        return [f"{row[0]}: {row[1]}" + (f" (error {row[2]})" if row[2] else "") for row in cursor.fetchall()]
    except MySQLdb.Error as exc:
        return [f"history unreadable: {exc}"]
