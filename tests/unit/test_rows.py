"""common.rows.by_unique: one row by a unique column, as the ORM would load it."""

import pytest
from django.contrib.auth import get_user_model

from common.rows import by_unique

pytestmark = pytest.mark.django_db


def test_a_row_is_loaded_as_the_orm_loads_it(django_assert_num_queries):
    User = get_user_model()
    stored = User.objects.create_user("ada", "ada@example.com", "pw", first_name="Ada")
    with django_assert_num_queries(1):
        user = by_unique(User, "username", "ada")
    expected = User.objects.get(pk=stored.pk)
    assert {f.attname: getattr(user, f.attname) for f in User._meta.concrete_fields} == {
        f.attname: getattr(expected, f.attname) for f in User._meta.concrete_fields
    }
    assert not user._state.adding
    assert by_unique(User, "id", stored.pk).username == "ada"


def test_no_row_is_none():
    assert by_unique(get_user_model(), "username", "nobody") is None


def test_the_match_is_the_columns_own():
    """The username column compares as MariaDB compares it: what the ORM's get() would find."""
    User = get_user_model()
    User.objects.create_user("Bea", "bea@example.com", "pw")
    expected = User.objects.filter(username="bea").first()
    found = by_unique(User, "username", "bea")
    assert (found and found.pk) == (expected and expected.pk)


def test_a_column_that_is_not_unique_is_refused():
    with pytest.raises(ValueError, match="not unique"):
        by_unique(get_user_model(), "email", "ada@example.com")


def test_insert_or_find_inserts_a_new_row_in_one_statement(django_assert_num_queries):
    from common.rows import insert_or_find

    User = get_user_model()
    user = User(username="cai", email="cai@example.com")
    user.set_unusable_password()
    with django_assert_num_queries(1):
        assert insert_or_find(user, "username") is True
    stored = User.objects.get(username="cai")
    assert user.pk == stored.pk and not user._state.adding
    assert stored.email == "cai@example.com" and not stored.has_usable_password()
    assert stored.date_joined is not None and stored.is_active and not stored.is_staff


def test_insert_or_find_leaves_a_row_that_is_there_untouched():
    from common.rows import insert_or_find

    User = get_user_model()
    first = User.objects.create_user("dee", "dee@example.com", "pw", first_name="Dee")
    again = User(username="dee", email="other@example.com")
    assert insert_or_find(again, "username") is False
    assert again.pk is None
    stored = User.objects.get(username="dee")
    assert (stored.pk, stored.email, stored.first_name) == (first.pk, "dee@example.com", "Dee")
    assert stored.check_password("pw")
    assert User.objects.filter(username="dee").count() == 1


def test_insert_all_writes_the_rows_as_bulk_create_would_in_one_statement(django_assert_num_queries):
    """Each row holds what bulk_create would have stored (auto_now_add dates set), the instances
    get their ids in the rows' order, and a second call of the same shape reuses the statement."""
    from django.contrib.auth.models import Group

    from common.rows import insert_all

    User = get_user_model()
    users = [User(username=f"row_{i}", email=f"row_{i}@example.com", password="x") for i in range(3)]
    with django_assert_num_queries(1) as captured:
        insert_all(users)
    assert captured.captured_queries[0]["sql"].count("), (") == 2  # three rows, one statement
    assert all(u.pk and not u._state.adding for u in users)
    for user in users:
        stored = User.objects.get(pk=user.pk)
        assert (stored.username, stored.email, stored.date_joined) == (
            user.username,
            user.email,
            user.date_joined,
        )
        assert stored.date_joined is not None and stored.is_active
    groups = [Group(name="g1"), Group(name="g2")]
    insert_all(groups, returning_ids=False)
    assert [g.pk for g in groups] == [None, None]
    assert Group.objects.filter(name__in=["g1", "g2"]).count() == 2


def test_insert_all_raises_the_orms_integrity_error_and_takes_one_model(django_assert_num_queries):
    from django.contrib.auth.models import Group
    from django.db import IntegrityError, transaction

    from common.rows import insert_all

    insert_all([Group(name="taken")])
    with pytest.raises(IntegrityError), transaction.atomic():
        insert_all([Group(name="free"), Group(name="taken")], returning_ids=False)
    assert not Group.objects.filter(name="free").exists()  # the statement is all or nothing
    with pytest.raises(ValueError, match="one model"):
        insert_all([Group(name="a"), get_user_model()(username="b")])
    with django_assert_num_queries(0):
        insert_all([])  # nothing to write: no statement
