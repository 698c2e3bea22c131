"""Reading one purchase's statements out of MariaDB's general log (floor/statements.py), and the
ids a replay must send again (floor/replay.py's generated_id)."""

import pytest

from floor.replay import generated_id
from floor.statements import Logged, account, is_transaction_control, per_service

ACCOUNTS = {"ecommerce_app": "ecommerce", "lms_app": "lms_stub"}
ECOMMERCE, LMS, ROOT = (
    "ecommerce_app[ecommerce_app] @  [127.0.0.1]",
    "lms_app[lms_app] @  [127.0.0.1]",
    "root[root] @ localhost []",
)


@pytest.mark.parametrize(
    "user_host, expected",
    [
        (ECOMMERCE, "ecommerce_app"),
        ("lms_app[lms_app] @ localhost [127.0.0.1]", "lms_app"),
        ("orders[orders] @  [10.0.0.7]", "orders"),
        ("[]", ""),
        ("", ""),
    ],
)
def test_the_account_is_the_login_a_rows_user_host_names(user_host, expected):
    assert account(user_host) == expected


def test_each_service_gets_its_accounts_statements_in_the_order_mariadb_received_them():
    rows = [
        Logged(11, LMS, "Query", "INSERT INTO `auth_user` (`username`) VALUES ('a') RETURNING `id`"),
        Logged(12, LMS, "Query", "SELECT 1 FROM enrollment_enrollment WHERE `user` = 'a' LIMIT 1"),
        Logged(16, ECOMMERCE, "Query", "BEGIN"),
        Logged(16, ECOMMERCE, "Query", "INSERT INTO `basket_basket` (`owner_id`) VALUES (8) RETURNING `id`"),
        Logged(16, ECOMMERCE, "Query", "COMMIT"),
        Logged(
            11,
            LMS,
            "Query",
            "INSERT INTO enrollment_enrollment (user) VALUES ('a') ON DUPLICATE KEY UPDATE mode = 1",
        ),
        Logged(19, ROOT, "Query", "SET GLOBAL general_log=OFF"),
        Logged(15, ECOMMERCE, "Quit", ""),
        Logged(15, ECOMMERCE, "Connect", "ecommerce_app@127.0.0.1 on ecommerce using TCP/IP"),
    ]
    found = per_service(rows, ACCOUNTS)
    assert [sql.split()[0:3] for sql in found["lms_stub"].statements] == [
        ["INSERT", "INTO", "`auth_user`"],
        ["SELECT", "1", "FROM"],
        ["INSERT", "INTO", "enrollment_enrollment"],
    ]
    assert found["ecommerce"].statements == [
        "INSERT INTO `basket_basket` (`owner_id`) VALUES (8) RETURNING `id`"
    ]
    assert found["ecommerce"].transaction_control == 2 and found["lms_stub"].transaction_control == 0
    assert found["ecommerce"].refused == [] == found["lms_stub"].refused


def test_the_rollups_connection_is_left_out_whole():
    rows = [
        Logged(17, ECOMMERCE, "Query", "SELECT GET_LOCK('rollup', 0)"),
        Logged(17, ECOMMERCE, "Query", "BEGIN"),
        Logged(
            17, ECOMMERCE, "Query", "UPDATE `analytics_productrecord` SET `num_purchases` = 3 WHERE `id` = 1"
        ),
        Logged(17, ECOMMERCE, "Query", "COMMIT"),
        Logged(16, ECOMMERCE, "Query", "INSERT INTO `counters_purchaseevent` (`product_id`) VALUES (1)"),
    ]
    found = per_service(rows, ACCOUNTS)["ecommerce"]
    # The purchase's own INSERT of a purchase event stays: only the rollup's statements are background.
    assert found.statements == ["INSERT INTO `counters_purchaseevent` (`product_id`) VALUES (1)"]
    assert found.transaction_control == 0


def test_the_stand_ins_fault_settings_are_counted_apart_and_not_replayed():
    rows = [
        Logged(
            11, LMS, "Query", "SELECT t.`id`, t.`latency_ms` FROM `faults_faultsettings` t WHERE t.`id` = 1"
        )
    ]
    found = per_service(rows, ACCOUNTS)["lms_stub"]
    assert found.statements == [] and found.machinery == 1


def test_a_statement_that_could_commit_or_change_tables_is_refused_never_replayed():
    rows = [
        Logged(16, ECOMMERCE, "Query", "ALTER TABLE `order_order` ADD COLUMN x INT"),
        Logged(16, ECOMMERCE, "Query", "LOCK TABLES `order_order` WRITE"),
        Logged(16, ECOMMERCE, "Query", "SAVEPOINT `s1`"),
        Logged(16, ECOMMERCE, "Query", "ROLLBACK TO SAVEPOINT `s1`"),
        Logged(16, ECOMMERCE, "Query", "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"),
    ]
    found = per_service(rows, ACCOUNTS)["ecommerce"]
    assert found.refused == ["ALTER TABLE `order_order` ADD COLUMN x INT", "LOCK TABLES `order_order` WRITE"]
    assert found.statements == [
        "SAVEPOINT `s1`",
        "ROLLBACK TO SAVEPOINT `s1`",
        "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
    ]


@pytest.mark.parametrize(
    "sql, control",
    [
        ("BEGIN", True),
        ("START TRANSACTION", True),
        ("commit", True),
        ("ROLLBACK", True),
        ("SET AUTOCOMMIT = 1", True),
        ("SET autocommit=0", True),
        ("ROLLBACK TO SAVEPOINT `s1`", False),
        ("SELECT 1", False),
        ("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED", False),
    ],
)
def test_transaction_control_is_told_from_what_is_replayed(sql, control):
    assert is_transaction_control(sql) is control


@pytest.mark.parametrize(
    "sql, lastrowid, rows, expected",
    [
        ("INSERT INTO `order_lineprice` (`order_id`) VALUES (7)", 12, (), 12),
        ("INSERT INTO `basket_basket` (`owner_id`) VALUES (8) RETURNING `id`", 0, ((7,),), 7),
        ("INSERT INTO `orders_seatclaim` (`user_id`) VALUES (8)", 0, (), None),
        ("UPDATE `order_order` SET `status` = 'Complete' WHERE `id` = 7", 0, (), None),
        ("SELECT `id` FROM `auth_user` WHERE `username` = 'a'", 5, ((5,),), None),
    ],
)
def test_the_id_an_insert_generated_is_the_drivers_or_the_one_it_returned(sql, lastrowid, rows, expected):
    assert generated_id(sql, lastrowid, rows) == expected
