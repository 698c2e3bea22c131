"""The lean order path (rules 1 and 2): a one-seat checkout with fulfilment costs at most 15
queries and exactly 2 commits on the ecommerce side, JWT user lookup included, and writes no
row that another order also writes."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from ecommerce.orders.benchmark import sql_statements
from tests.ecommerce.helpers import session_status

pytestmark = pytest.mark.django_db(transaction=True)

# The rows an order may update: its own order and lines (tx2 sets their status by id).
OWN_ROWS = {"order_order", "order_line"}


def checkout(api, learner, sku):
    before = session_status("Com_commit")
    with CaptureQueriesContext(connection) as captured:
        response = api.buy(learner, [sku])
    assert response.status_code == 201
    assert response.json()["order"]["status"] == "Complete"
    return sql_statements(captured.captured_queries), session_status("Com_commit") - before


@pytest.fixture
def warm(api, lms, seats, other_learner):
    api.buy(other_learner, [seats[4].sku])  # the first order of a process caches the Site


def test_a_new_learners_checkout_costs_at_most_15_queries_and_2_commits(api, lms, seats, learner, warm):
    statements, commits = checkout(api, learner, seats[0].sku)
    assert len(statements) <= 15, "\n".join(statements)
    assert commits == 2


def test_a_known_learners_checkout_costs_at_most_15_queries_and_2_commits(api, lms, seats, learner, warm):
    checkout(api, learner, seats[0].sku)
    statements, commits = checkout(api, learner, seats[1].sku)
    assert len(statements) <= 15, "\n".join(statements)
    assert commits == 2


def test_the_order_path_writes_no_shared_row(api, lms, seats, learner, warm):
    statements, _ = checkout(api, learner, seats[0].sku)
    for sql in statements:
        verb = sql.split()[0].upper()
        assert "FOR UPDATE" not in sql.upper(), sql
        assert verb in ("SELECT", "INSERT", "UPDATE", "SAVEPOINT", "RELEASE"), sql
        if verb == "UPDATE":
            joined = r"UPDATE `order_order` o JOIN `order_line` l ON l.`order_id` = o.`id` SET "
            if re.match(joined, sql):  # the statuses in one statement: this order's and its lines', by id
                assert re.search(r" WHERE o.`id` = \d+ AND l.`id` IN \(\d+(, \d+)*\)$", sql), sql
                continue
            table = re.match(r"UPDATE `(\w+)`", sql).group(1)
            assert table in OWN_ROWS, sql
            assert re.search(rf"WHERE `{table}`.`id` = \d+$", sql), sql
        if verb == "INSERT" and "ON DUPLICATE KEY" in sql.upper():
            # Only the learner's own row (its unique username), found rather than changed when
            # a concurrent first request stored it (common.rows.insert_or_find); no counter.
            assert sql.startswith("INSERT INTO `auth_user` "), sql
            assert sql.endswith("ON DUPLICATE KEY UPDATE `id` = `id`"), sql


def test_oscar_analytics_tables_are_not_touched(api, lms, seats, learner, warm):
    statements, _ = checkout(api, learner, seats[0].sku)
    assert not [sql for sql in statements if re.search(r"(INTO|UPDATE|FROM) `analytics_", sql)]
