"""Counting stretches under callgrind (common/callgrind.py): a bench that marks many stretches, one
per call (lms_stub's bench), gets each one's count in order; marks not met in turn are refused.
(The one-stretch case, ecommerce's orders, is tests/unit/test_instructions.py's.)"""

import sys

import pytest

from common import callgrind
from common.environment import ROOT

START, END = callgrind.START, callgrind.END


def test_each_stretch_is_the_dump_written_at_its_end_mark_in_order():
    dumps = [
        (1, 900_000, START),  # start-up and warm-up
        (2, 100, END),
        (3, 7, START),  # between the stretches: in none
        (4, 200, END),
        (5, 9, START),
        (6, 300, END),
        (7, 50, "Program termination"),
    ]
    assert callgrind.stretches(list(reversed(dumps)), 3) == [100, 200, 300]


@pytest.mark.parametrize(
    "triggers, expected",
    [
        ([START, END, START, "Program termination"], 2),  # the second stretch never ended
        ([START, END, START, END, START, END], 2),  # one more than said
        ([START, START, END, END], 2),  # not in turn
        ([END, START, END, START], 2),
    ],
)
def test_marks_not_met_as_many_times_as_said_in_turn_are_refused(triggers, expected):
    dumps = [(part, 10 * part, trigger) for part, trigger in enumerate(triggers, 1)]
    with pytest.raises(callgrind.CountFailed, match=f"not met {expected} times each"):
        callgrind.stretches(dumps, expected)


def test_the_spread_of_runs_is_in_per_cent_of_their_mean():
    assert callgrind.spread_pct([990, 1010]) == 2.0
    assert callgrind.spread_pct([1000, 1000]) == 0.0


MARKED = """
from common import callgrind

def work(n):
    total = 0
    for i in range(n):
        total += i * i
    return total

work(1000)
for n in (10000, 20000, 40000):
    callgrind.start_counting()
    work(n)
    callgrind.stop_counting()
    work(30000)
"""


def test_callgrind_counts_each_stretch_apart_and_what_lies_between_in_none(tmp_path):
    program = [sys.executable, "-c", MARKED]
    stdout, dumps = callgrind.run(program, tmp_path, {"PYTHONPATH": str(ROOT)}, timeout=300)
    first, second, third = callgrind.stretches(dumps, 3)
    # Twice the work, twice the count; the 30,000 rounds after each stretch are in none of them.
    assert second == pytest.approx(2 * first, rel=0.05)
    assert third == pytest.approx(4 * first, rel=0.05)
    assert not list(tmp_path.iterdir()), "the run's dumps are not left behind"


def test_a_program_that_fails_under_callgrind_is_refused_with_its_error(tmp_path):
    with pytest.raises(callgrind.CountFailed, match="ZeroDivisionError"):
        callgrind.run([sys.executable, "-c", "1 / 0"], tmp_path, {}, timeout=300)


def test_valgrind_is_what_runs_the_program(tmp_path):
    assert callgrind.command(tmp_path / "out", ["python", "x"]) == [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={tmp_path / 'out'}",
        START,
        END,
        "python",
        "x",
    ]
