"""Instructions per order: the in-process order path counted under valgrind's callgrind
(common/callgrind.py says how, and why a count and not milliseconds).

``count`` runs ``bench_order`` under callgrind twice and reports instructions per order, with the
two runs' spread: the figure is only worth having if two runs agree (within AGREE_PCT).

What is counted: the bench process only (Django, Oscar, DRF, PyMySQL, the HTTP client that calls
the LMS, the interpreter running them), for the measured orders only, after the warm-up, which
the bench marks out as one stretch (``start_counting``, ``stop_counting``): the first dump holds
the start-up and the warm-up, the second the measured orders. MariaDB's server side and lms_stub
are other processes: not counted.

Python under valgrind runs some fifty times slower: a few orders are enough (the count per
order hardly moves from order to order), and the settings that depend on time are held still
for it (``DETERMINISTIC``).
"""

import json
import sys
from pathlib import Path

from common import callgrind
from common.callgrind import (
    AGREE_PCT,
    DETERMINISTIC,
    END_AT,
    START_AT,
    CountFailed,
    between_marks,
    read_dump,
    run,
    spread_pct,
)
from common.environment import ROOT, get

__all__ = [
    "AGREE_PCT",
    "DETERMINISTIC",
    "END_AT",
    "ROOT",
    "START_AT",
    "CountFailed",
    "between_marks",
    "count",
    "read_dump",
]

COUNTED = (
    "instructions of the bench process only (Django, Oscar, PyMySQL, the HTTP client, the "
    "interpreter), measured orders only; MariaDB's server side and lms_stub are not counted"
)


def count(orders: int, warmup: int, courses: int, paid: bool, runs: int = 2) -> dict:
    """Instructions per order over ``orders`` measured orders after ``warmup``, in each of
    ``runs`` runs under callgrind, their mean and how far apart they are."""
    folder = Path(get("VAR_DIR")) / "callgrind"
    counts = [_run(folder, orders, warmup, courses, paid) for _ in range(runs)]
    mean = sum(counts) / len(counts)
    spread = spread_pct(counts)
    return {
        "instructions_per_order": round(mean / orders),
        "instructions_per_order_runs": [round(c / orders) for c in counts],
        "spread_pct": spread,
        "agree": spread <= AGREE_PCT,
        "orders": orders,
        "warmup": warmup,
        "courses": courses,
        "paid": paid,
        "counted": COUNTED,
    }


def bench(orders: int, warmup: int, courses: int, paid: bool) -> list[str]:
    """The bench's command line for one counted run."""
    argv = [sys.executable, str(Path(ROOT) / "manage.py"), "bench_order", "--marks", "--json"]
    argv += ["--orders", str(orders), "--warmup", str(warmup), "--courses", str(courses)]
    return argv + (["--paid"] if paid else [])


def command(out_file: Path, orders: int, warmup: int, courses: int, paid: bool) -> list[str]:
    """valgrind's command line for one counted run of bench_order."""
    return callgrind.command(out_file, bench(orders, warmup, courses, paid))


def _run(folder: Path, orders: int, warmup: int, courses: int, paid: bool) -> int:
    """The instructions one run counted between the marks."""
    stdout, dumps = run(bench(orders, warmup, courses, paid), folder, {})
    failures = json.loads(stdout.strip().splitlines()[-1])["failures"]
    if failures:
        raise CountFailed(f"{failures} of {orders} orders did not complete under callgrind; is the LMS up?")
    return between_marks(dumps)
