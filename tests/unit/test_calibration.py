"""The machine's calibration (common/calibration): taken in a process of its own against the
tests' MariaDB, and the arithmetic and words of the unit CPU figures are given in."""

import os
import socket

import pytest

from common import calibration
from common.calibration import workload


def taken(ms: float, python_ms: float | None = None) -> calibration.Calibration:
    python_ms = ms * 0.8 if python_ms is None else python_ms
    return {"ms": ms, "python_ms": python_ms, "sql_ms": ms - python_ms, "wall_ms": ms * 1.3, "rounds": 100}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_calibration_is_taken_in_a_process_of_its_own_against_mariadb():
    found = calibration.take()
    assert set(found) == {"ms", "python_ms", "sql_ms", "wall_ms", "rounds"}
    assert found["rounds"] == workload.ROUNDS
    assert found["python_ms"] > 0 and found["sql_ms"] > 0
    assert found["ms"] == pytest.approx(found["python_ms"] + found["sql_ms"], abs=0.001)
    # The wall clock holds the process's CPU and MariaDB's answers besides.
    assert found["wall_ms"] > found["sql_ms"]


def test_a_calibration_without_mariadb_says_why_and_is_no_unit():
    nobody = {**os.environ, "MYSQL_PORT": str(free_port())}
    with pytest.raises(calibration.CalibrationFailed, match="MariaDB not reachable"):
        calibration.take(nobody)
    why = calibration.attempt(nobody)
    assert isinstance(why, str) and "MariaDB not reachable" in why
    found = calibration.sitting(why, why)
    assert (found["before"], found["after"], found["ms"], found["change_pct"]) == (None, None, None, None)
    assert found["error"].startswith("before: calibration: MariaDB not reachable")
    assert calibration.described(found).startswith("no calibration (before: ")


def test_the_unit_is_the_mean_of_the_calibrations_before_and_after():
    found = calibration.sitting(taken(4.0), taken(4.4))
    assert found["ms"] == 4.2
    assert found["change_pct"] == 10.0
    assert "error" not in found


def test_with_one_calibration_taken_the_unit_is_that_one_and_the_other_says_why():
    found = calibration.sitting(taken(4.0), "calibration: MariaDB not reachable: refused")
    assert (found["ms"], found["change_pct"], found["after"]) == (4.0, None, None)
    assert found["error"] == "after: calibration: MariaDB not reachable: refused"
    assert calibration.described(found) == (
        "1 cal = 4.00 ms of CPU (before only; after: calibration: MariaDB not reachable: refused)"
    )


@pytest.mark.parametrize(
    "cpu_ms, calibration_ms, expected",
    [
        (4.4, 4.4, 1.0),
        (7.5, 7.5, 1.0),
        (9.0, 4.5, 2.0),
        (4.4, 4.0, 1.1),
        (None, 4.0, None),
        (4.4, None, None),
    ],
)
def test_cpu_in_calibration_units_is_cpu_over_the_calibration(cpu_ms, calibration_ms, expected):
    assert calibration.in_units(cpu_ms, calibration_ms) == expected


def test_the_unit_cancels_a_drift_that_slows_both_alike():
    # Issue 45: one commit's order took 4.4 ms of CPU, then 7.5 ms an hour later; a machine that
    # slowed by as much took as much longer over the calibration.
    fast = calibration.in_units(4.4, calibration.sitting(taken(4.0), taken(4.0))["ms"])
    slow = calibration.in_units(
        7.5, calibration.sitting(taken(4.0 * 7.5 / 4.4), taken(4.0 * 7.5 / 4.4))["ms"]
    )
    assert fast == pytest.approx(slow, rel=0.001)


@pytest.mark.parametrize(
    "first, second, differ",
    [(4.0, 4.4, False), (4.0, 4.41, True), (4.0, 3.6, False), (4.0, 3.59, True), (None, 4.0, False)],
)
def test_two_calibrations_differ_beyond_ten_percent_of_the_first(first, second, differ):
    assert calibration.differ(first, second) is differ


def test_the_words_say_when_the_machines_speed_changed_between_before_and_after():
    steady = calibration.described(calibration.sitting(taken(4.36), taken(4.46)))
    assert steady == "1 cal = 4.41 ms of CPU (4.36 ms before, 4.46 ms after: +2.3 %)"
    moved = calibration.described(calibration.sitting(taken(4.0), taken(4.6)))
    assert moved == (
        "1 cal = 4.30 ms of CPU (4.00 ms before, 4.60 ms after: +15.0 %); "
        "the machine's speed changed by more than 10 % meanwhile"
    )
