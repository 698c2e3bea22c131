"""CPU per purchase (figures/cpu.py): the arithmetic of a step's and a run's figures and what
counts as a purchase (no Locust, no stack), and the run's figures in calibration units. The
machine's busy time: record/test_machine_cpu.py; what the report, the terminal, the findings
and a comparison make of it: report/test_cpu.py, verdict/test_cpu_findings.py,
report/test_compare.py."""

import pytest

from common import calibration
from locustfiles.suite.core import names
from locustfiles.suite.figures import cpu, results
from locustfiles.suite.users import paid_journey
from tests.loadsuite import synthetic

BASKET = names.ORDER_ENDPOINT


def step(statuses=None, paid=None, seconds=10, **readings) -> dict:
    """A step's row as results.step_rows makes it: the order endpoint's and the paid read's
    statuses (as summary.json keeps them: strings), with the readings given."""
    endpoints = {BASKET: {"statuses": {str(k): v for k, v in (statuses or {}).items()}}}
    if paid is not None:
        endpoints[paid_journey.ORDER_READ] = {"statuses": {str(k): v for k, v in paid.items()}}
    return {"seconds": seconds, "endpoints": endpoints, **readings}


READINGS = {
    "cpu_percent": {"ecommerce": 60.0, "lms_stub": 40.0, "mariadb": 20.0, "rollup": 1.0},
    "locust_cpu": {"worker-0": 30.0, "worker-1": 25.0, "master": 5.0},
    "machine_cpu_percent": 190.0,
    "reading_seconds": 10.0,
}


def test_a_steps_cpu_is_percent_times_seconds_divided_by_its_purchases():
    # 100 free purchases (201, and 202: placed, enrollment to retry) and 20 paid ones read back
    row = step({201: 90, 202: 10, 409: 5, 503: 3}, {200: 20, 404: 2}, **READINGS)

    cpu.account(row)

    assert (row["purchases"], row["purchases_by_kind"]) == (120, {"free": 100, "paid": 20})
    # % of one core x 10 s: 60 % -> 6000 ms of CPU
    assert row["cpu_ms"] == {
        "ecommerce": 6000.0,
        "lms_stub": 4000.0,
        "mariadb": 2000.0,
        "rollup": 100.0,
        "haproxy": None,  # no load balancer was read
        "services": 12100.0,
        "locust": 6000.0,  # all three Locust processes
        "machine": 19000.0,
        "other": 900.0,  # 19000 - 12100 - 6000
    }
    assert row["cpu_ms_per_purchase"] == {
        "ecommerce": 50.0,
        "lms_stub": 33.33,
        "mariadb": 16.67,
        "rollup": 0.83,
        "haproxy": None,  # no load balancer was read
        "services": 100.83,
        "locust": 50.0,
        "machine": 158.33,
        "other": 7.5,
    }
    assert row["other_cpu_percent"] == 9.0


def test_a_step_without_a_purchase_has_no_figure_rather_than_a_division_by_zero():
    row = step({503: 40}, {404: 3}, **READINGS)
    cpu.account(row)
    assert row["purchases"] == 0
    assert row["cpu_ms"]["services"] == 12100.0  # the CPU was spent all the same
    assert row["cpu_ms_per_purchase"] == dict.fromkeys(cpu.KEYS)


def test_the_cpu_is_over_the_readings_seconds_when_known_else_the_steps():
    # The last step's reading runs until the run stopped: 12 s, not the step's 10.
    row = step({201: 10}, seconds=10, cpu_percent=dict.fromkeys(cpu.SERVICES, 10.0), reading_seconds=12.0)
    cpu.account(row)
    assert row["cpu_ms"]["ecommerce"] == 1200.0
    # A summary from before the reading's length was recorded: the step's length.
    row = step({201: 10}, seconds=10, cpu_percent=dict.fromkeys(cpu.SERVICES, 10.0))
    cpu.account(row)
    assert row["cpu_ms"]["ecommerce"] == 1000.0
    # Neither Locust nor the machine read: those keys are None, the services still add up.
    assert (row["cpu_ms"]["locust"], row["cpu_ms"]["machine"], row["cpu_ms"]["other"]) == (None, None, None)
    assert row["cpu_ms"]["services"] == 4000.0 and row["cpu_ms_per_purchase"]["services"] == 400.0


def test_a_step_without_readings_has_no_cpu():
    row = step({201: 10})
    cpu.account(row)
    assert row["cpu_ms"] == dict.fromkeys(cpu.KEYS) and row["cpu_ms_per_purchase"] == dict.fromkeys(cpu.KEYS)


def test_a_profiles_purchase_endpoints_count_their_2xx_answers():
    """edX's client: the LMS's free purchase, and the processor's notification for a paid one."""
    row = {
        "seconds": 10,
        "endpoints": {
            names.FREE_PURCHASE: {"statuses": {"201": 30, "409": 1}},
            names.PAID_PURCHASE: {"statuses": {"200": 2, "400": 1}},
            paid_journey.ORDER_READ: {"statuses": {"200": 99}},  # not a purchase for this client
        },
    }
    assert cpu.purchases(row, names.PURCHASES) == {"free": 30, "paid": 2}
    assert cpu.purchases(row) == {"free": 30, "paid": 99}


def test_the_steps_purchases_add_up_to_the_runs_answered_purchases():
    """Per step, the same purchases as results.successes counts for the whole run."""
    p, recorder, _, _ = synthetic.recorded(reads=0)
    start = recorder.t0 + 12  # the second step
    for status in (200, 200, 404):
        recorder.request(paid_journey.ORDER_READ, start, 10, status == 200, status)
    recorder.fold_local()
    rows = results.step_rows(p, recorder.steps, {})
    assert sum(cpu.purchases(r)["paid"] for r in rows) == 2
    total = sum(sum(cpu.purchases(r).values()) for r in rows)
    assert total == results.successes(recorder.steps, recorder.outside_plan)


def test_the_runs_figures_sum_the_steps_cpu_and_purchases():
    first = step({201: 100}, **READINGS)
    second = step({201: 50}, {200: 10}, **{**READINGS, "machine_cpu_percent": 200.0})
    for row in (first, second):
        cpu.account(row)

    run = cpu.run_accounting([first, second], {"buy": 50, "pay": 1, "read": 5})

    assert run["purchases"] == 160 and run["seconds"] == 20.0
    assert run["mix"] == {"free": 150, "paid": 10, "buy_weight": 50, "pay_weight": 1}
    assert run["cpu_ms"]["services"] == 24200.0 and run["cpu_ms"]["machine"] == 39000.0
    assert run["cpu_ms_per_purchase"]["services"] == round(24200 / 160, 2)
    services = sum(run["cpu_ms"][group] for group in cpu.SERVICES)
    assert run["cpu_ms"]["services"] == pytest.approx(services)
    # The machine not read in one step: the run's machine figure is unknown, not a part of it.
    del second["machine_cpu_percent"]
    cpu.account(second)
    run = cpu.run_accounting([first, second])
    assert run["cpu_ms"]["machine"] is None and run["cpu_ms_per_purchase"]["machine"] is None
    assert "buy_weight" not in run["mix"]
    assert cpu.run_accounting([])["cpu_ms_per_purchase"] == dict.fromkeys(cpu.KEYS)


def test_the_runs_cpu_in_cal_is_each_groups_ms_over_the_calibrations_ms():
    # Calibrated at 4.0 ms before the load and 4.4 ms after: the unit is their mean, 4.2 ms.
    sitting = calibration.sitting(synthetic.calibration_of(4.0), synthetic.calibration_of(4.4))
    per_purchase = {"ecommerce": 8.4, "mariadb": 2.1, "services": 10.5, "haproxy": None}
    assert cpu.calibrated(per_purchase, sitting) == {
        "ecommerce": 2.0,
        "mariadb": 0.5,
        "services": 2.5,
        "haproxy": None,
    }


def test_a_run_without_a_calibration_has_no_cpu_in_cal():
    per_purchase = {"ecommerce": 8.4, "services": 10.5}
    failed = calibration.sitting("calibration: MariaDB not reachable", "calibration: MariaDB not reachable")
    assert cpu.calibrated(per_purchase, failed) == {"ecommerce": None, "services": None}
    assert cpu.calibrated(per_purchase, None) == {"ecommerce": None, "services": None}


def test_the_words_give_the_services_cpu_in_cal_and_the_unit():
    summary = synthetic.calibrated(synthetic.cpu_summary(), 4.36, 4.46)
    services = summary["cpu_cal_per_purchase"]["services"]
    assert cpu.calibrated_words(summary) == (
        f"{services:g} cal per purchase for the services; 1 cal = 4.41 ms of CPU (4.36 ms before, "
        "4.46 ms after: +2.3 %)"
    )
    del summary["calibration"], summary["cpu_cal_per_purchase"]  # a run from before issue 45
    assert cpu.calibrated_words(summary) is None
