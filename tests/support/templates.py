"""Migrated databases for the test suites, from a template migrated once.

Every suite starts its services on databases of their own, and migrating Oscar's schema from
nothing takes tens of seconds each time. The first suite that needs a service's database
migrates a template (``test_tmpl_<service>_<digest>``); every later database is a copy of it
made inside MariaDB (each table's own CREATE TABLE, then its rows). The digest covers the
migrations of both services and the pinned packages (Oscar's and Django's migrations), so a
change to any of them migrates a new template, and older ones are dropped."""

import hashlib
from pathlib import Path

from tests.support import mysql

ROOT = Path(__file__).resolve().parents[2]
READY = "zz_template_ready"  # written last: a template without it was interrupted


def digest() -> str:
    found = hashlib.sha256()
    files = sorted(
        p for package in ("ecommerce", "lms_stub") for p in (ROOT / package).rglob("migrations/*.py")
    )
    for path in [*files, ROOT / "constraints.txt"]:
        found.update(path.relative_to(ROOT).as_posix().encode())
        found.update(path.read_bytes())
    return found.hexdigest()[:12]


def template_name(service: str) -> str:
    return f"test_tmpl_{service}_{digest()}"


def tables(cursor, database: str) -> list[str]:
    cursor.execute(
        "SELECT TABLE_NAME FROM information_schema.TABLES"
        " WHERE TABLE_SCHEMA = %s AND TABLE_TYPE = 'BASE TABLE'",
        [database],
    )
    return sorted(row[0] for row in cursor.fetchall())


def databases(cursor, prefix: str) -> list[str]:
    cursor.execute("SHOW DATABASES")
    return [row[0] for row in cursor.fetchall() if row[0].startswith(prefix)]


def ensure_template(service: str, migrate) -> str:
    """The template of ``service``, migrated by ``migrate(database)`` if it is not there yet.
    A MariaDB lock keeps two test processes from migrating the same template at once."""
    name = template_name(service)
    with mysql.connect() as conn, conn.cursor() as cursor:
        cursor.execute("SELECT GET_LOCK(%s, 600)", [name])
        try:
            if READY in tables(cursor, name):
                return name
            for stale in databases(cursor, f"test_tmpl_{service}_"):
                cursor.execute(f"DROP DATABASE `{stale}`")
            mysql.recreate_database(name)
            migrate(name)
            cursor.execute(f"CREATE TABLE `{name}`.`{READY}` (ready INT)")
            return name
        finally:
            cursor.execute("SELECT RELEASE_LOCK(%s)", [name])


def clone(template: str, target: str) -> None:
    """``target`` as a copy of ``template``: its tables (with their keys and foreign keys, which
    name tables of the same database) and their rows."""
    mysql.recreate_database(target)
    with mysql.connect(target) as conn, conn.cursor() as cursor:
        cursor.execute("SET SESSION foreign_key_checks = 0")
        names = [t for t in tables(cursor, template) if t != READY]
        for table in names:
            cursor.execute(f"SHOW CREATE TABLE `{template}`.`{table}`")
            cursor.execute(cursor.fetchone()[1])
        for table in names:
            cursor.execute(f"INSERT INTO `{target}`.`{table}` SELECT * FROM `{template}`.`{table}`")
