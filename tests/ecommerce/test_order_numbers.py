"""Order numbers are <prefix>-<basket id + 100000>, as Otto's were and as edX's 2015 load client
builds them: the same in Python (the order path) and in SQL (the bulk preload)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from common.contract import order_numbers

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("prefix, basket_id", [("OSCR", 1), ("EDX", 42), ("A1", 4_000_000)])
def test_python_and_sql_give_the_same_number(db, prefix, basket_id):
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {order_numbers.order_number_sql(prefix, str(basket_id))}")
        (from_sql,) = cursor.fetchone()
    assert from_sql == order_numbers.order_number(prefix, basket_id) == f"{prefix}-{basket_id + 100000}"


@pytest.mark.parametrize("prefix", ["", "oscr", "OS-CR", "OSCR'; DROP TABLE order_order; --", "X" * 17])
def test_a_prefix_that_is_not_capitals_and_digits_is_refused(prefix):
    with pytest.raises(ValueError, match="capital letters and digits"):
        order_numbers.order_number(prefix, 1)


def test_the_service_refuses_to_start_with_a_bad_prefix():
    done = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "settings.local", "ECOMMERCE_ORDER_PREFIX": "os-cr"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert "ECOMMERCE_ORDER_PREFIX" in done.stderr
