"""Instructions per purchase at the LMS, and per call: the bench under valgrind's callgrind, twice
(common/callgrind.py says how, and why a count and not milliseconds).

The bench marks each call of each measured purchase as a stretch of its own, in the order of
purchase.CALLS, so a run's dumps at the end marks are login, basket, enrollment, login, ...: what
lies between two calls (the bench reading an answer, making the next request) is in no stretch.
What is counted: the bench process only (lms_stub's WSGI application: Django, its middleware,
the views, PyMySQL, the HTTP client that forwards the basket, gevent, the interpreter); not
gunicorn (no server runs), not MariaDB's side, not ecommerce's stand-in (another process).
"""

import json
import sys
from pathlib import Path

from common import callgrind
from common.environment import get
from lms_stub.bench.purchase import CALLS

COUNTED = (
    "instructions of lms_stub's WSGI application in-process (Django, middleware, views, PyMySQL, the "
    "HTTP client, gevent, the interpreter), the calls only; not gunicorn, MariaDB's side or ecommerce"
)


def program(purchases: int, warmup: int) -> list[str]:
    """The bench's command line for one counted run."""
    sizes = ["--purchases", str(purchases), "--warmup", str(warmup)]
    return [sys.executable, "-m", "lms_stub.bench", "--marks", *sizes]


def per_call(stretches: list[int], purchases: int) -> dict[str, int]:
    """Instructions by call, per purchase, from the stretches of a run (CALLS in turn)."""
    if len(stretches) != len(CALLS) * purchases:
        found = f"{len(stretches)} stretches for {purchases} purchases"
        raise callgrind.CountFailed(f"{found} of {len(CALLS)} calls")
    return {name: round(sum(stretches[i :: len(CALLS)]) / purchases) for i, name in enumerate(CALLS)}


def count(purchases: int, warmup: int, runs: int = 2) -> dict:
    """Instructions per purchase and per call over ``purchases`` measured purchases after
    ``warmup``, in each of ``runs`` runs under callgrind, their mean and how far apart they are."""
    folder = Path(get("VAR_DIR")) / "callgrind"
    calls = []
    for _ in range(runs):
        stdout, dumps = callgrind.run(program(purchases, warmup), folder, {})
        json.loads(stdout.strip().splitlines()[-1])  # the bench's own line: it ran to the end
        calls.append(per_call(callgrind.stretches(dumps, len(CALLS) * purchases), purchases))
    totals = [sum(run.values()) for run in calls]
    spread = callgrind.spread_pct(totals)
    return {
        "instructions_per_purchase": round(sum(totals) / runs),
        "instructions_per_call": {name: round(sum(run[name] for run in calls) / runs) for name in CALLS},
        "instructions_per_purchase_runs": totals,
        "spread_pct": spread,
        "agree": spread <= callgrind.AGREE_PCT,
        "purchases": purchases,
        "warmup": warmup,
        "counted": COUNTED,
    }
