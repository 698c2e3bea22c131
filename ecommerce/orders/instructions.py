"""Instructions per order: the in-process order path counted under valgrind's callgrind.

CPU milliseconds drift with the machine (common/calibration divides the drift out); the
number of instructions a process executes does not: callgrind counts them on a simulated CPU,
the same on a slow hour as on a fast one. ``count`` runs ``bench_order`` under callgrind twice
and reports instructions per order, with the two runs' spread: the figure is only worth having
if two runs agree (within AGREE_PCT).

What is counted: the bench process only (Django, Oscar, DRF, PyMySQL, the HTTP client that calls
the LMS, the interpreter running them), for the measured orders only, after the warm-up.
MariaDB's server side and lms_stub are other processes: not counted. The measured orders are
marked out by two calls callgrind is told to watch (``--zero-before``, ``--dump-before``): C
library functions that nothing on the order path calls (``os.ctermid``, ``os.getloadavg``).
callgrind writes its counters out and zeroes them before each (``--dump-before``): the first
dump holds the start-up and the warm-up, the second the measured orders, and a run whose marks
were not met once each is refused.

Python under valgrind runs some fifty times slower: a few orders are enough (the count per
order hardly moves from order to order), and the settings that depend on time are held still
for it (``DETERMINISTIC``).
"""

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from common.environment import ROOT, get

START_AT = "ctermid"  # os.ctermid: callgrind writes out the start-up and warm-up here
END_AT = "getloadavg"  # os.getloadavg: and the measured orders here
AGREE_PCT = 1.0  # two runs further apart than this: the count is not to be trusted
COUNTED = (
    "instructions of the bench process only (Django, Oscar, PyMySQL, the HTTP client, the "
    "interpreter), measured orders only; MariaDB's server side and lms_stub are not counted"
)
# What the valgrind'd process runs with: hash seeds fixed (dicts and sets iterate alike in
# both runs), and a pooled connection never pinged before reuse: natively the next order takes
# it back within milliseconds, under valgrind's slowdown it would idle past DB_POOL_PING_AFTER
# (1 s) and count a statement native runs never send.
DETERMINISTIC = {"PYTHONHASHSEED": "0", "DB_POOL_PING_AFTER": "3600"}
TIMEOUT_SECONDS = 1800
PART = re.compile(r"^part:\s+(\d+)\s*$", re.MULTILINE)
SUMMARY = re.compile(r"^summary:\s+(\d+)\s*$", re.MULTILINE)
TRIGGER = re.compile(r"^desc: Trigger: (.*)$", re.MULTILINE)


def start_counting() -> None:
    """Mark the start of the measured orders (START_AT)."""
    os.ctermid()


def stop_counting() -> None:
    """Mark their end (END_AT)."""
    os.getloadavg()


def count(orders: int, warmup: int, courses: int, paid: bool, runs: int = 2) -> dict:
    """Instructions per order over ``orders`` measured orders after ``warmup``, in each of
    ``runs`` runs under callgrind, their mean and how far apart they are."""
    folder = Path(get("VAR_DIR")) / "callgrind"
    folder.mkdir(parents=True, exist_ok=True)
    counts = [_run(folder, orders, warmup, courses, paid) for _ in range(runs)]
    mean = sum(counts) / len(counts)
    spread = (max(counts) - min(counts)) * 100 / mean
    return {
        "instructions_per_order": round(mean / orders),
        "instructions_per_order_runs": [round(c / orders) for c in counts],
        "spread_pct": round(spread, 3),
        "agree": spread <= AGREE_PCT,
        "orders": orders,
        "warmup": warmup,
        "courses": courses,
        "paid": paid,
        "counted": COUNTED,
    }


def command(out_file: Path, orders: int, warmup: int, courses: int, paid: bool) -> list[str]:
    """valgrind's command line for one counted run of bench_order."""
    bench = [sys.executable, str(Path(ROOT) / "manage.py"), "bench_order", "--marks", "--json"]
    bench += ["--orders", str(orders), "--warmup", str(warmup), "--courses", str(courses)]
    return [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={out_file}",
        f"--dump-before={START_AT}",
        f"--dump-before={END_AT}",
        *bench,
        *(["--paid"] if paid else []),
    ]


def _run(folder: Path, orders: int, warmup: int, courses: int, paid: bool) -> int:
    """The instructions one run counted between the marks."""
    with tempfile.TemporaryDirectory(dir=folder) as where:
        out_file = Path(where) / "callgrind.out"
        done = subprocess.run(
            command(out_file, orders, warmup, courses, paid),
            env={**os.environ, **DETERMINISTIC},
            capture_output=True,
            text=True,
            timeout=TIMEOUT_SECONDS,
        )
        if done.returncode != 0:
            raise CountFailed(f"bench_order under callgrind failed: {done.stderr.strip()[-2000:]}")
        failures = json.loads(done.stdout.strip().splitlines()[-1])["failures"]
        if failures:
            raise CountFailed(
                f"{failures} of {orders} orders did not complete under callgrind; is the LMS up?"
            )
        return between_marks([read_dump(path) for path in Path(where).glob("callgrind.out*")])


class CountFailed(Exception):
    """A counted run failed, or its marks were not met once each."""


def between_marks(dumps: list[tuple[int, int, str]]) -> int:
    """The instructions of the measured orders: of the dump written at END_AT, which must come
    right after the one written at START_AT, each once (dumps as ``read_dump`` gives them)."""
    triggers = [trigger for _, _, trigger in sorted(dumps)]
    start, end = f"--dump-before={START_AT}", f"--dump-before={END_AT}"
    if (
        triggers.count(start) != 1
        or triggers.count(end) != 1
        or triggers.index(end) != triggers.index(start) + 1
    ):
        raise CountFailed(f"the marks were not met once each, in order: dumps at {triggers}")
    return next(count for _, count, trigger in dumps if trigger == end)


def read_dump(path: Path) -> tuple[int, int, str]:
    """A callgrind dump's part (its place among the run's dumps), instruction count (its
    ``summary:`` line) and what triggered it."""
    text = path.read_text(errors="replace")
    part, summary, trigger = PART.search(text), SUMMARY.search(text), TRIGGER.search(text)
    if not part or not summary or not trigger:
        raise CountFailed(f"{path} is not a callgrind dump")
    return int(part[1]), int(summary[1]), trigger[1].strip()
