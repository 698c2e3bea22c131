"""The SQL floor on a real MariaDB (floor/database.py, floor/replay.py): a copy meets the rows the
purchase met, a replay sends each generated id again and is rolled back, so neither the copy nor
the database it was copied from changes; the general log gives a service's statements and is set
back as it was."""

import psutil
import pytest

from floor import database, replay
from floor.database import SIDES, GeneralLog
from floor.statements import per_service
from stack.mysql import Server
from tests.support import mysql

SOURCE = "test_floorsrc_ecommerce"  # a copy of it is a test_…ecommerce database, as a real one's
COPY = database.COPY_PREFIX + SOURCE
ECOMMERCE = next(side for side in SIDES if side.service == "ecommerce")
# A purchase as the log gives it: an INSERT whose generated id (2) the next statement names.
PURCHASE = [
    "INSERT INTO `parent` (`name`) VALUES ('learner') RETURNING `id`",
    "INSERT INTO `child` (`parent_id`, `note`) VALUES (2, 'bought')",
    "SELECT `id` FROM `parent` WHERE `name` = 'existing'",
    "UPDATE `parent` SET `name` = 'renamed' WHERE `id` = 1",
]


@pytest.fixture
def copied():
    mysql.recreate_database(SOURCE)
    with mysql.connect(SOURCE) as conn, conn.cursor() as cursor:
        cursor.execute("CREATE TABLE parent (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(50) UNIQUE)")
        cursor.execute(
            "CREATE TABLE child (id INT AUTO_INCREMENT PRIMARY KEY, parent_id INT NOT NULL, "
            "note VARCHAR(20), FOREIGN KEY (parent_id) REFERENCES parent (id))"
        )
        cursor.execute("INSERT INTO parent (name) VALUES ('existing')")
    owner = database.owner_connection()
    try:
        database.copy_database(owner, SOURCE, COPY)
        yield owner
    finally:
        database.drop_database(owner, COPY)
        owner.close()
        mysql.drop_database(SOURCE)


def rows(name: str) -> tuple[list, list]:
    return (
        mysql.query(name, "SELECT id, name FROM parent ORDER BY id"),
        mysql.query(name, "SELECT id, parent_id, note FROM child ORDER BY id"),
    )


def mariadbd_cpu() -> float:
    used = psutil.Process(int(Server.from_environment().pid())).cpu_times()
    return used.user + used.system


def test_a_copy_holds_the_tables_keys_and_rows_of_its_source(copied):
    assert rows(COPY) == rows(SOURCE) == ([(1, "existing")], [])
    create = mysql.query(COPY, "SHOW CREATE TABLE child")[0][1]
    assert "FOREIGN KEY (`parent_id`) REFERENCES `parent` (`id`)" in create


def test_replays_send_each_generated_id_again_and_change_nothing(copied):
    conn = database.service_connection(ECOMMERCE, COPY)  # as the service connects: its own account
    try:
        cost = replay.measure(conn, "ecommerce", PURCHASE, mariadbd_cpu, times=25, warmup=5)
    finally:
        conn.close()
    assert cost.errors == [] and cost.statements == 4
    assert cost.client_ms > 0 and cost.server_ms >= 0
    assert rows(COPY) == rows(SOURCE) == ([(1, "existing")], [])


def test_without_the_generated_ids_a_second_replay_misses_the_rows_the_first_made(copied):
    conn = database.service_connection(ECOMMERCE, COPY)
    try:
        with conn.cursor() as cursor:
            plain = [replay.Step(sql) for sql in PURCHASE]
            assert replay.replay_once(conn, cursor, plain) == 0
            assert replay.replay_once(conn, cursor, plain) == 1  # the child names parent 2, now 3
    finally:
        conn.close()
    assert rows(COPY) == ([(1, "existing")], [])


def test_only_the_floors_own_copies_are_ever_dropped(copied):
    with pytest.raises(ValueError, match="only its own copies"):
        database.drop_database(copied, SOURCE)
    assert rows(SOURCE) == ([(1, "existing")], [])


def test_the_general_log_gives_a_services_statements_and_is_set_back(copied):
    root = database.root_connection(Server.from_environment())
    try:
        with root.cursor() as cursor:
            cursor.execute("SELECT @@GLOBAL.general_log, @@GLOBAL.log_output")
            before = cursor.fetchone()
        conn = database.service_connection(ECOMMERCE, COPY)
        try:
            with GeneralLog(root) as log, conn.cursor() as cursor:
                cursor.execute("SELECT `name` FROM `parent` WHERE `id` = 1")
        finally:
            conn.close()
        captured = per_service(log.rows(), {ECOMMERCE.user: "ecommerce"})["ecommerce"]
        log.forget()
        with root.cursor() as cursor:
            cursor.execute("SELECT @@GLOBAL.general_log, @@GLOBAL.log_output")
            assert cursor.fetchone() == before
    finally:
        root.close()
    assert "SELECT `name` FROM `parent` WHERE `id` = 1" in captured.statements
