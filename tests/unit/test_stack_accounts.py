"""stack/accounts.py: the SQL that makes the private MariaDB's databases and its accounts by job.
What MariaDB then grants is tests/integration/test_database_accounts.py's; here, the text."""

import dataclasses

import pytest

from stack import accounts

NAMES = accounts.Names(
    ecommerce_db_name="ecommerce",
    lms_db_name="lms",
    mysql_owner_user="orders",
    ecommerce_db_user="ecommerce_app",
    lms_db_user="lms_app",
    mysql_monitor_user="monitor",
    mysql_owner_password="owner-pw",
    ecommerce_db_password="ecommerce-pw",
    lms_db_password="lms-pw",
    mysql_monitor_password="monitor-pw",
)
IDENTIFIERS = [
    field.name.upper() for field in dataclasses.fields(NAMES) if not field.name.endswith("_password")
]


def grants(sql: str, user: str, host: str = "localhost") -> list[str]:
    suffix = f" TO '{user}'@'{host}';"
    return [line[len("GRANT ") : -len(suffix)] for line in sql.splitlines() if line.endswith(suffix)]


def test_a_password_is_one_sql_string_whatever_it_holds():
    assert accounts.sql_string("plain") == "'plain'"
    assert accounts.sql_string("it's a \\ test") == "'it''s a \\\\ test'"


def test_a_grant_names_one_database_not_a_pattern():
    assert accounts.database("shop_db") == "`shop\\_db`"
    assert accounts.database("test_%lms") == "`test\\_%lms`"


def test_a_privilege_list_becomes_an_sql_list_and_none_matches_no_privilege():
    assert accounts.in_list("SELECT, INSERT") == "'SELECT','INSERT'"
    assert accounts.in_list("PROCESS") == "'PROCESS'"
    assert accounts.in_list("") == "''"


@pytest.mark.parametrize("name", IDENTIFIERS)
def test_a_name_that_is_no_plain_identifier_is_refused_naming_its_variable(name, monkeypatch):
    monkeypatch.setenv(name, "a`b")
    refusal = f"^{name} must contain only letters, digits and _ \\(got 'a`b'\\)"
    with pytest.raises(accounts.BadName, match=refusal):
        accounts.Names.from_environment()


def test_the_names_are_the_environments_and_a_password_may_hold_anything(monkeypatch):
    monkeypatch.setenv("LMS_DB_USER", "lms_reader")
    monkeypatch.setenv("LMS_DB_PASSWORD", "it's `anything`")
    names = accounts.Names.from_environment()
    assert (names.lms_db_user, names.lms_db_password) == ("lms_reader", "it's `anything`")


def test_each_account_gets_the_grants_of_its_job_on_both_hosts():
    sql = accounts.provision_sql(NAMES)
    owner = accounts.OWNER_PRIVILEGES
    app = accounts.APP_PRIVILEGES
    for host in ("127.0.0.1", "localhost"):
        assert grants(sql, "orders", host) == [
            f"{owner} ON `ecommerce`.*",
            f"{owner} ON `lms`.*",
            f"{owner} ON `test\\_%`.*",
        ]
        assert grants(sql, "ecommerce_app", host) == [
            f"{app} ON `ecommerce`.*",
            f"{app} ON `test\\_%ecommerce`.*",
        ]
        assert grants(sql, "lms_app", host) == [f"{app} ON `lms`.*", f"{app} ON `test\\_%lms`.*"]
        assert grants(sql, "monitor", host) == [
            "PROCESS ON *.*",
            f"SELECT ON {accounts.DIGESTS}",
            "SHOW VIEW ON `ecommerce`.*",
            "SHOW VIEW ON `lms`.*",
            "SHOW VIEW ON `test\\_%`.*",
        ]
    assert "CREATE USER IF NOT EXISTS 'ecommerce_app'@'127.0.0.1' IDENTIFIED BY 'ecommerce-pw';" in sql
    assert "ALTER USER 'monitor'@'localhost' IDENTIFIED BY 'monitor-pw';" in sql


def test_a_test_stacks_databases_get_no_grant_of_their_own():
    test_stack = dataclasses.replace(
        NAMES, ecommerce_db_name="test_run1_ecommerce", lms_db_name="test_run1_lms"
    )
    sql = accounts.provision_sql(test_stack)
    assert grants(sql, "orders") == [f"{accounts.OWNER_PRIVILEGES} ON `test\\_%`.*"]
    assert grants(sql, "ecommerce_app") == grants(sql, "lms_app") == []
    assert "CREATE DATABASE IF NOT EXISTS `test_run1_ecommerce` CHARACTER SET utf8mb4" in sql


def test_an_account_holding_more_than_its_job_loses_everything_first_and_root_keeps_only_the_socket():
    sql = accounts.provision_sql(NAMES)
    monitor = accounts.account_sql(accounts.accounts(NAMES)[3])
    # What the monitor may hold, and nothing else, keeps it from being revoked.
    assert "PRIVILEGE_TYPE NOT IN ('USAGE', 'PROCESS')" in monitor
    assert "PRIVILEGE_TYPE NOT IN ('SHOW VIEW')" in monitor
    assert f"NOT IN ('{accounts.DIGESTS} SELECT')" in monitor
    assert monitor.count("REVOKE ALL PRIVILEGES, GRANT OPTION FROM 'monitor'@") == 2
    assert monitor.index("REVOKE") < monitor.index("GRANT PROCESS")
    assert sql.startswith("DELETE FROM mysql.global_priv WHERE User = 'root' AND Host <> 'localhost';\n")
