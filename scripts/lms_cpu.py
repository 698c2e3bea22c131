"""CPU the LMS stand-in spends per enrollment call, measured on its running gunicorn workers.

    .venv/bin/python scripts/lms_cpu.py [--calls 3000] [--concurrency 4]

Needs the stack up (`make up`). Sends enrollment calls (distinct users, so every call is an
insert) and divides the CPU time its worker processes used by the number of calls. The client
runs in this process, so its own CPU is not counted.
"""

import argparse
import json
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil
import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from common.contract import paths  # noqa: E402
from common.contract.courses import seat  # noqa: E402
from common.environment import get  # noqa: E402


def workers_cpu(master_pid: int) -> float:
    total = 0.0
    for child in psutil.Process(master_pid).children():
        times = child.cpu_times()
        total += times.user + times.system
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--url", default=get("LMS_URL"))
    parser.add_argument("--pidfile", default=str(Path(get("VAR_DIR")) / "run/lms_stub.pid"))
    parser.add_argument("--api-key", default=get("EDX_API_KEY"))
    args = parser.parse_args()

    master = int(Path(args.pidfile).read_text())
    url = args.url.rstrip("/") + paths.ENROLLMENT
    course = seat(1).course_id
    run = uuid.uuid4().hex[:8]
    sessions = {}

    def call(index: int) -> int:
        session = sessions.setdefault(index % args.concurrency, requests.Session())
        body = {
            "user": f"cpu_{run}_{index}",
            "is_active": True,
            "mode": seat(1).mode,
            "course_details": {"course_id": course},
        }
        return session.post(url, json=body, headers={"X-Edx-Api-Key": args.api_key}, timeout=10).status_code

    with ThreadPoolExecutor(args.concurrency) as pool:  # warm up every worker
        list(pool.map(call, range(-200, 0)))
    before, started = workers_cpu(master), time.monotonic()
    with ThreadPoolExecutor(args.concurrency) as pool:
        codes = list(pool.map(call, range(args.calls)))
    elapsed, used = time.monotonic() - started, workers_cpu(master) - before
    result = {
        "calls": args.calls,
        "ok": codes.count(200),
        "cpu_ms_per_call": round(used * 1000 / args.calls, 3),
        "calls_per_second": round(args.calls / elapsed, 1),
        "workers": len(psutil.Process(master).children()),
    }
    print(json.dumps(result))
    return 0 if result["ok"] == args.calls else 1


if __name__ == "__main__":
    sys.exit(main())
