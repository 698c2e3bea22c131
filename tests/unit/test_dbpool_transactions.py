"""The pooled backend's transactions: BEGIN ... COMMIT in a session that stays in autocommit,
one round trip fewer than Django's SET autocommit=0 ... COMMIT, SET autocommit=1, with the same
outcomes (committed, rolled back, savepoints) as Django's way."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import connection, transaction

from common.dbpool.base import DatabaseWrapper as PooledWrapper

pytestmark = pytest.mark.django_db(transaction=True)


def session_status(*names: str) -> dict[str, int]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.SESSION_STATUS "
            f"WHERE VARIABLE_NAME IN ({', '.join(['%s'] * len(names))})",
            [name.upper() for name in names],
        )
        return {name.lower(): int(value) for name, value in cursor.fetchall()}


def sent_during(block) -> dict[str, int]:
    names = ("Com_set_option", "Com_begin", "Com_commit", "Com_rollback")
    before = session_status(*names)
    block()
    after = session_status(*names)
    # The reading itself is one statement, not one of these.
    return {name: after[name] - before[name] for name in before}


def test_a_transaction_is_begin_and_commit_with_no_autocommit_switch():
    User = get_user_model()

    def write():
        with transaction.atomic():
            User.objects.create(username="ada")
            User.objects.create(username="bea")

    assert sent_during(write) == {"com_set_option": 0, "com_begin": 1, "com_commit": 1, "com_rollback": 0}
    assert sorted(User.objects.values_list("username", flat=True)) == ["ada", "bea"]
    assert connection.get_autocommit() and connection.connection.get_autocommit()


def test_a_failed_transaction_rolls_back_everything():
    User = get_user_model()

    def fail():
        with pytest.raises(RuntimeError), transaction.atomic():
            User.objects.create(username="cai")
            raise RuntimeError

    assert sent_during(fail)["com_rollback"] == 1
    assert not User.objects.filter(username="cai").exists()


def test_savepoints_keep_their_meaning():
    User = get_user_model()
    with transaction.atomic():
        User.objects.create(username="outer")
        with transaction.atomic():
            User.objects.create(username="kept")
        with pytest.raises(RuntimeError), transaction.atomic():
            User.objects.create(username="undone")
            raise RuntimeError
    assert sorted(User.objects.values_list("username", flat=True)) == ["kept", "outer"]


def test_outside_a_transaction_every_statement_commits_by_itself():
    """Autocommit stays on (rule 1): a write outside atomic() is visible to another connection."""
    import pymysql

    get_user_model().objects.create(username="solo")
    settings = connection.settings_dict
    other = pymysql.connect(
        host=settings["HOST"],
        port=int(settings["PORT"]),
        user=settings["USER"],
        password=settings["PASSWORD"],
        database=settings["NAME"],
    )
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT COUNT(*) FROM auth_user WHERE username = 'solo'")
            assert cursor.fetchone()[0] == 1
    finally:
        other.close()


def test_a_transaction_left_open_is_committed_when_autocommit_is_asked_for():
    """As SET autocommit=1 would: Django's own set_autocommit(False) ... set_autocommit(True)."""
    User = get_user_model()
    transaction.set_autocommit(False)
    try:
        User.objects.create(username="left-open")
    finally:
        transaction.set_autocommit(True)
    assert not connection.connection.server_status & 1  # no transaction open
    assert User.objects.filter(username="left-open").exists()


def test_a_pooled_connection_left_in_a_transaction_is_discarded_and_its_work_rolled_back():
    """A session that goes back to the pool with a transaction the server still holds open
    (a raw BEGIN, outside Django's atomic blocks) would keep its row locks for whoever checks
    it out next: the pool closes it instead, and the server rolls its work back. A session with
    nothing open is pooled and reused as before (the control)."""
    pooled = PooledWrapper(
        {**connection.settings_dict, "POOL": {"MAX_CONNECTIONS": 2, "WARM": 0}}, "pool_guard"
    )
    try:
        first = session_id(pooled)
        pooled.close()
        assert pooled.pool.idle == 1 and session_id(pooled) == first  # nothing open: pooled, reused

        with pooled.cursor() as cursor:
            cursor.execute("BEGIN")
            cursor.execute("INSERT INTO auth_group (name) VALUES ('left-open')")
        assert not pooled.in_atomic_block  # Django does not know of this transaction
        pooled.close()

        assert pooled.pool.idle == 0  # discarded, not pooled
        assert session_id(pooled) != first
        assert not Group.objects.filter(name="left-open").exists()  # rolled back by the server
    finally:
        pooled.close()
        pooled.pool.close()


def session_id(wrapper) -> int:
    with wrapper.cursor() as cursor:
        cursor.execute("SELECT CONNECTION_ID()")
        return cursor.fetchone()[0]
