"""Instructions per order (ecommerce/orders/instructions.py): callgrind's dumps read, the marks
that bracket the measured orders met once each, and valgrind counting exactly what lies
between them. (`make bench CALLGRIND=1` runs the whole bench under it: minutes, not a test.)"""

import os
import subprocess
import sys
import textwrap

import pytest

from ecommerce.orders import instructions

START = f"--dump-before={instructions.START_AT}"
END = f"--dump-before={instructions.END_AT}"


def dump(part: int, summary: int, trigger: str) -> str:
    return textwrap.dedent(
        f"""\
        # callgrind format
        version: 1
        creator: callgrind-3.19.0
        pid: 4062
        cmd:  python manage.py bench_order --marks --json
        part: {part}

        desc: I1 cache:
        desc: Timerange: Basic block 0 - 1
        desc: Trigger: {trigger}

        positions: line
        events: Ir
        summary: {summary}
        totals: {summary + 12}
        """
    )


def test_a_dump_gives_its_part_its_instructions_and_its_trigger(tmp_path):
    path = tmp_path / "callgrind.out.2"
    path.write_text(dump(2, 143_001_230, END))
    assert instructions.read_dump(path) == (2, 143_001_230, END)


def test_a_file_that_is_no_dump_is_refused(tmp_path):
    path = tmp_path / "callgrind.out"
    path.write_text("==4062== Callgrind, a call-graph generating cache profiler\n")
    with pytest.raises(instructions.CountFailed, match="is not a callgrind dump"):
        instructions.read_dump(path)


def test_the_measured_orders_are_the_dump_written_at_the_end_mark():
    dumps = [(3, 8_000_000, "Program termination"), (1, 900_000_000, START), (2, 143_000_000, END)]
    assert instructions.between_marks(dumps) == 143_000_000


@pytest.mark.parametrize(
    "triggers",
    [
        ["Program termination"],  # no mark met: the bench never reached its orders
        [START, "Program termination"],  # no end
        [END, START, "Program termination"],  # in the wrong order
        [START, END, START, END, "Program termination"],  # something else calls a mark
        [START, "--dump-before=other", END],  # not right after each other
    ],
)
def test_a_run_whose_marks_were_not_met_once_each_in_order_is_refused(triggers):
    dumps = [(part, 1000 * part, trigger) for part, trigger in enumerate(triggers, 1)]
    with pytest.raises(instructions.CountFailed, match="the marks were not met once each"):
        instructions.between_marks(dumps)


def test_valgrind_runs_the_bench_with_both_marks_and_the_bench_marks_its_orders(tmp_path):
    command = instructions.command(tmp_path / "callgrind.out", orders=10, warmup=5, courses=2, paid=True)
    assert command[:2] == ["valgrind", "--tool=callgrind"]
    assert START in command and END in command
    bench = command[command.index(sys.executable) :]
    assert bench[2:] == [
        *("bench_order", "--marks", "--json", "--orders", "10", "--warmup", "5", "--courses", "2"),
        "--paid",
    ]


COUNTED = """
from common import callgrind

def work(n):
    total = 0
    for i in range(n):
        total += i * i
    return total

work(1000)
callgrind.start_counting()
work({n})
callgrind.stop_counting()
work(50000)
"""


def counted(tmp_path, n: int) -> int:
    out = tmp_path / f"run{len(list(tmp_path.iterdir()))}" / "callgrind.out"
    out.parent.mkdir()
    python = [sys.executable, "-c", COUNTED.format(n=n)]
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", START, END, *python]
    env = {**os.environ, **instructions.DETERMINISTIC, "PYTHONPATH": str(instructions.ROOT)}
    subprocess.run(command, env=env, capture_output=True, check=True, timeout=300)
    return instructions.between_marks([instructions.read_dump(path) for path in out.parent.iterdir()])


def test_callgrind_counts_what_lies_between_the_marks_and_nothing_else(tmp_path):
    # Twice the work between the marks, twice the count: the start-up and the work after the
    # end mark (50 times as much) are in other dumps.
    once, twice = counted(tmp_path, 20000), counted(tmp_path, 40000)
    assert twice == pytest.approx(2 * once, rel=0.02)
    assert counted(tmp_path, 20000) == pytest.approx(once, rel=0.001)  # and again, the same
