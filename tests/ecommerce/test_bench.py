"""bench_order (make bench): what a purchase costs, in-process against a real lms_stub, for a
free seat and for a paid one (the checkout, then the processor's notification), with the
machine's calibration before and after (common/calibration) and CPU in its unit."""

import io
import json

import pytest
from django.core.management import call_command

from ecommerce.orders.benchmark import measure

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_free_purchase_costs_two_commits(lms, seats):
    result = measure(orders=3, warmup=1, courses=2)
    assert (result["orders"], result["failures"], result["paid"]) == (3, 0, False)
    assert result["commits_per_order"] == 2
    assert 0 < result["queries_per_order"] <= 15
    assert "queries_per_notification" not in result


def test_a_paid_purchase_is_measured_checkout_and_notification_apart(lms, seats):
    result = measure(orders=3, warmup=1, courses=2, paid=True)
    assert (result["orders"], result["failures"], result["paid"]) == (3, 0, True)
    # The checkout writes the frozen basket in one transaction; the notification places and pays
    # in one, and fulfilment records the outcome in a second.
    assert (result["commits_per_checkout"], result["commits_per_notification"]) == (1, 2)
    assert result["commits_per_order"] == 3
    assert result["queries_per_order"] == result["queries_per_checkout"] + result["queries_per_notification"]
    assert result["queries_per_checkout"] > 0 and result["queries_per_notification"] > 0
    assert result["cpu_ms_per_order"] >= result["cpu_ms_per_checkout"] + result["cpu_ms_per_notification"] - 1
    assert result["queries_per_order_known_learner"] > 0


def test_make_bench_paid_prints_one_json_line(lms, seats):
    out = io.StringIO()
    call_command("bench_order", "--orders", "2", "--warmup", "0", "--paid", "--json", stdout=out)
    lines = out.getvalue().strip().splitlines()
    assert len(lines) == 1
    result = json.loads(lines[0])
    assert result["paid"] is True and result["failures"] == 0


def test_make_bench_prints_cpu_per_order_in_calibration_units_beside_the_ms(lms, seats):
    out, err = io.StringIO(), io.StringIO()
    call_command("bench_order", "--orders", "3", "--warmup", "1", "--json", stdout=out, stderr=err)
    result = json.loads(out.getvalue().strip())
    sitting = result["calibration"]
    assert sitting["before"]["ms"] > 0 and sitting["after"]["ms"] > 0 and "error" not in sitting
    assert sitting["ms"] == pytest.approx((sitting["before"]["ms"] + sitting["after"]["ms"]) / 2, abs=0.001)
    assert result["cpu_cal_per_order"] == pytest.approx(result["cpu_ms_per_order"] / sitting["ms"], rel=0.01)
    # Beside the JSON line, on stderr: the same figures in words.
    line = err.getvalue().strip().splitlines()[-1]
    assert line.startswith(
        f"CPU per order: {result['cpu_ms_per_order']} ms = {result['cpu_cal_per_order']} cal; "
        f"1 cal = {sitting['ms']:.2f} ms of CPU ({sitting['before']['ms']:.2f} ms before, "
    )
