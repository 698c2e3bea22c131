"""Direct access to the test MariaDB for assertions and set-up: plain MySQLdb, no Django.

Tests connect as the owner account (the one that makes and drops the test databases) unless
they ask for another: ``monitor`` (the load suite's readings, server state), or a service's own
account, ``ecommerce`` or ``lms`` (docs/configuration.md, "Database accounts")."""

import MySQLdb

from common.environment import get

# account: the variables of its (user, password)
ACCOUNTS = {
    "owner": ("MYSQL_OWNER_USER", "MYSQL_OWNER_PASSWORD"),
    "ecommerce": ("ECOMMERCE_DB_USER", "ECOMMERCE_DB_PASSWORD"),
    "lms": ("LMS_DB_USER", "LMS_DB_PASSWORD"),
    "monitor": ("MYSQL_MONITOR_USER", "MYSQL_MONITOR_PASSWORD"),
}


def user(account: str = "owner") -> str:
    return get(ACCOUNTS[account][0])


def connect(database: str | None = None, account: str = "owner"):
    user_variable, password_variable = ACCOUNTS[account]
    kwargs = {
        "host": get("MYSQL_HOST"),
        "port": get("MYSQL_PORT"),
        "user": get(user_variable),
        "password": get(password_variable),
        "charset": "utf8mb4",
        "autocommit": True,
    }
    if database:
        kwargs["database"] = database
    return MySQLdb.connect(**kwargs)


def recreate_database(name: str) -> None:
    """Drop and create ``name`` (the owner may manage test_* databases)."""
    if not name.startswith("test_"):
        raise ValueError("tests only touch databases named test_*")
    with connect() as conn, conn.cursor() as cursor:
        cursor.execute(f"DROP DATABASE IF EXISTS `{name}`")
        cursor.execute(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci")


def drop_database(name: str) -> None:
    if not name.startswith("test_"):
        raise ValueError("tests only touch databases named test_*")
    with connect() as conn, conn.cursor() as cursor:
        cursor.execute(f"DROP DATABASE IF EXISTS `{name}`")


def query(database: str, sql: str, params=(), account: str = "owner") -> list[tuple]:
    with connect(database, account) as conn, conn.cursor() as cursor:
        cursor.execute(sql, params)
        return list(cursor.fetchall())


def count(database: str, table: str, where: str = "1", params=()) -> int:
    return query(database, f"SELECT COUNT(*) FROM `{table}` WHERE {where}", params)[0][0]
