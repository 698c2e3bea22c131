"""The test suites' migrated databases are copies of a template made inside MariaDB: the copy
has the template's tables, keys, foreign keys (to its own tables) and rows, and a template
that was interrupted before it was marked ready is migrated again."""

import pytest

from tests.support import mysql, templates

TEMPLATE, COPY = "test_tmpl_probe_0", "test_probe_copy"


@pytest.fixture
def template():
    mysql.recreate_database(TEMPLATE)
    with mysql.connect(TEMPLATE) as conn, conn.cursor() as cursor:
        cursor.execute("CREATE TABLE parent (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(20) UNIQUE)")
        cursor.execute(
            "CREATE TABLE child (id INT PRIMARY KEY, parent_id INT NOT NULL, KEY by_parent (parent_id),"
            " CONSTRAINT child_parent FOREIGN KEY (parent_id) REFERENCES parent (id))"
        )
        cursor.execute("INSERT INTO parent (name) VALUES ('a'), ('b')")
        cursor.execute("INSERT INTO child VALUES (1, 2)")
    yield TEMPLATE
    mysql.drop_database(TEMPLATE)
    mysql.drop_database(COPY)


def test_a_copy_has_the_tables_keys_foreign_keys_and_rows(template):
    templates.clone(template, COPY)
    assert mysql.query(COPY, "SELECT id, name FROM parent ORDER BY id") == [(1, "a"), (2, "b")]
    assert mysql.query(COPY, "SELECT id, parent_id FROM child") == [(1, 2)]
    (fk,) = mysql.query(
        "information_schema",
        "SELECT REFERENCED_TABLE_SCHEMA, REFERENCED_TABLE_NAME FROM KEY_COLUMN_USAGE"
        " WHERE TABLE_SCHEMA = %s AND TABLE_NAME = 'child' AND REFERENCED_TABLE_NAME IS NOT NULL",
        [COPY],
    )
    assert fk == (COPY, "parent")  # the copy's own parent, not the template's
    with pytest.raises(mysql.MySQLdb.IntegrityError):  # the key holds in the copy
        mysql.query(COPY, "INSERT INTO child VALUES (2, 99)")
    # The copy's AUTO_INCREMENT continues after the template's rows.
    mysql.query(COPY, "INSERT INTO parent (name) VALUES ('c')")
    assert mysql.query(COPY, "SELECT id FROM parent WHERE name = 'c'") == [(3,)]


def test_a_template_is_migrated_once_and_again_when_it_was_interrupted(monkeypatch):
    monkeypatch.setattr(templates, "digest", lambda: "probe")
    name = templates.template_name("probe")
    migrated = []

    def migrate(database):
        migrated.append(database)
        mysql.query(database, "CREATE TABLE t (id INT)")

    try:
        assert templates.ensure_template("probe", migrate) == name
        assert templates.ensure_template("probe", migrate) == name
        assert migrated == [name]
        mysql.query(name, f"DROP TABLE {templates.READY}")  # as if the first run had been cut off
        templates.ensure_template("probe", migrate)
        assert migrated == [name, name]
    finally:
        mysql.drop_database(name)
