"""Direct access to the test MariaDB for assertions and set-up: plain MySQLdb, no Django."""

import MySQLdb

from common.environment import get


def connect(database: str | None = None):
    kwargs = {
        "host": get("MYSQL_HOST"),
        "port": get("MYSQL_PORT"),
        "user": get("MYSQL_USER"),
        "password": get("MYSQL_PASSWORD"),
        "charset": "utf8mb4",
        "autocommit": True,
    }
    if database:
        kwargs["database"] = database
    return MySQLdb.connect(**kwargs)


def recreate_database(name: str) -> None:
    """Drop and create ``name`` (the application user may manage test_* databases)."""
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


def query(database: str, sql: str, params=()) -> list[tuple]:
    with connect(database) as conn, conn.cursor() as cursor:
        cursor.execute(sql, params)
        return list(cursor.fetchall())


def count(database: str, table: str, where: str = "1", params=()) -> int:
    return query(database, f"SELECT COUNT(*) FROM `{table}` WHERE {where}", params)[0][0]
