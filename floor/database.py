"""MariaDB's side of the floor: the connections (root's socket for the general log, the owner for
the copies, a service's own account as the service connects), the copies of the services'
databases, and the general log.

A copy, ``test_floor_<database>``, is one the owner account may make and the service's own
account may read and write, as it may every ``test_…<database>`` (stack/accounts.py). It holds
every table's definition (keys, foreign keys, the next generated id) and every row.

The general log goes to its table (mysql.general_log) only for as long as asked, and is then set
back as it was; root on the private MariaDB's socket (stack/mysql.py) is the account that may.
"""

from dataclasses import dataclass

import MySQLdb
import MySQLdb.constants.CLIENT
import pymysql
import pymysql.constants.CLIENT

from common.environment import get
from floor import statements
from settings._env import mysql_database
from stack.mysql import Server
from stack.services import ECOMMERCE, LMS

COPY_PREFIX = "test_floor_"
DRIVER_ERRORS = (pymysql.Error, MySQLdb.Error)


@dataclass(frozen=True)
class Side:
    """A service's side of the database: its variables' prefix names its database and account."""

    service: str
    prefix: str

    @property
    def database(self) -> str:
        return get(f"{self.prefix}_DB_NAME")

    @property
    def user(self) -> str:
        return get(f"{self.prefix}_DB_USER")

    @property
    def copy(self) -> str:
        return COPY_PREFIX + self.database


SIDES = tuple(Side(s.name, s.port_variable.removesuffix("_PORT")) for s in (ECOMMERCE, LMS))


def root_connection(server: Server):
    """root on the private MariaDB's socket: the one account that may turn the general log on."""
    return pymysql.connect(unix_socket=str(server.socket), user="root", autocommit=True, charset="utf8mb4")


def owner_connection():
    """The owner account, which makes and drops the test_* databases."""
    return pymysql.connect(
        host=get("MYSQL_HOST"),
        port=get("MYSQL_PORT"),
        user=get("MYSQL_OWNER_USER"),
        password=get("MYSQL_OWNER_PASSWORD"),
        autocommit=True,
        charset="utf8mb4",
        ssl_disabled=True,
    )


def service_connection(side: Side, database: str):
    """``database`` as the service connects to its own: its account, its driver and options,
    autocommit, its isolation level; several statements to a round trip allowed (insert_id)."""
    entry = mysql_database(side.prefix, database)
    options = dict(entry["OPTIONS"])
    isolation = options.pop("isolation_level", None)
    mysqlclient = get(f"{side.prefix}_MYSQL_DRIVER") == "mysqlclient"
    driver, flags = (
        (MySQLdb, MySQLdb.constants.CLIENT) if mysqlclient else (pymysql, pymysql.constants.CLIENT)
    )
    conn = driver.connect(
        host=entry["HOST"],
        port=entry["PORT"],
        user=entry["USER"],
        password=entry["PASSWORD"],
        database=database,
        autocommit=entry["AUTOCOMMIT"],
        client_flag=flags.MULTI_STATEMENTS,
        **options,
    )
    if isolation:
        with conn.cursor() as cursor:
            cursor.execute(f"SET SESSION TRANSACTION ISOLATION LEVEL {isolation.upper()}")
    return conn


# --- the copies ------------------------------------------------------------------------------


def copy_database(owner, source: str, target: str) -> None:
    """``target`` made anew as a copy of ``source``: every table's definition (its keys, its
    foreign keys, its next generated id) and every row."""
    with owner.cursor() as cursor:
        drop_database(owner, target)
        cursor.execute(f"CREATE DATABASE `{target}` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci")
        cursor.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = %s AND table_type = 'BASE TABLE'",
            (source,),
        )
        tables = [row[0] for row in cursor.fetchall()]
        cursor.execute(f"USE `{target}`")
        cursor.execute("SET SESSION foreign_key_checks = 0")  # the tables come in any order
        try:
            for table in tables:
                cursor.execute(f"SHOW CREATE TABLE `{source}`.`{table}`")
                cursor.execute(cursor.fetchone()[1])
                columns = stored_columns(cursor, source, table)
                cursor.execute(
                    f"INSERT INTO `{target}`.`{table}` ({columns}) SELECT {columns} FROM `{source}`.`{table}`"
                )
        finally:
            cursor.execute("SET SESSION foreign_key_checks = 1")


def stored_columns(cursor, schema: str, table: str) -> str:
    """The columns a row is copied by: all but generated ones."""
    cursor.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = %s AND table_name = %s "
        "AND extra NOT LIKE '%%GENERATED%%' ORDER BY ordinal_position",
        (schema, table),
    )
    return ", ".join(f"`{row[0]}`" for row in cursor.fetchall())


def drop_database(owner, name: str) -> None:
    if not name.startswith(COPY_PREFIX):
        raise ValueError(f"the floor drops only its own copies ({COPY_PREFIX}…), not {name}")
    with owner.cursor() as cursor:
        cursor.execute(f"DROP DATABASE IF EXISTS `{name}`")


# --- the general log -------------------------------------------------------------------------


class GeneralLog:
    """MariaDB's general log into mysql.general_log for the with-block, then as it was; ``rows``
    are those it wrote meanwhile. ``forget`` empties the table if it was empty before."""

    def __init__(self, root):
        self.root = root
        self.was: tuple[int, str] = (0, "FILE")
        self.was_empty = False
        self.since = None

    def _one(self, sql: str, params=()):
        with self.root.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchone()

    def __enter__(self) -> "GeneralLog":
        self.was = self._one("SELECT @@GLOBAL.general_log, @@GLOBAL.log_output")
        self.was_empty = self._one("SELECT COUNT(*) FROM mysql.general_log")[0] == 0
        output = self.was[1] if "TABLE" in self.was[1] else "TABLE"
        self._one(f"SET GLOBAL log_output = '{output}'")
        self.since = self._one("SELECT NOW(6)")[0]
        self._one("SET GLOBAL general_log = 1")
        return self

    def __exit__(self, *exc) -> None:
        self._one("SET GLOBAL general_log = %s", (self.was[0],))
        self._one("SET GLOBAL log_output = %s", (self.was[1],))

    def rows(self) -> list[statements.Logged]:
        with self.root.cursor() as cursor:
            cursor.execute(
                "SELECT thread_id, user_host, command_type, argument FROM mysql.general_log "
                "WHERE event_time >= %s",
                (self.since,),
            )
            found = cursor.fetchall()
        return [statements.Logged(int(t), str(u), str(c), text(a)) for t, u, c, a in found]

    def forget(self) -> None:
        if self.was_empty:
            self._one("TRUNCATE TABLE mysql.general_log")


def text(value) -> str:
    """A general log's argument (a BLOB column: bytes) as text."""
    return value.decode("utf-8", "replace") if isinstance(value, bytes | bytearray) else str(value)
