"""Run the full loop (Locust -> lms_stub -> ecommerce -> lms_stub) under several ecommerce
configurations, one after the other, and print one table row per configuration.

    .venv/bin/python scripts/config_matrix.py [--seconds 60] [--users 20] [--only NAME ...]

Each run restarts the services with the configuration's variables (MariaDB stays up), lets
Locust's closed loop of --users learners (no think time) buy seats for --seconds, then reads
Locust's CSV and MariaDB's counters over the run. Traffic goes to 127.0.0.1 only. Results are
written to var/runs/<timestamp>-matrix/ (matrix.json, matrix.md, Locust CSVs).

Percentiles are Locust's (rounded to about 2 significant digits); the load suite gives exact ones.
"""

import argparse
import csv
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from common.contract import paths  # noqa: E402
from common.environment import get  # noqa: E402
from locustfiles.suite.core import run_folders  # noqa: E402
from tests.support import mysql  # noqa: E402

SHIPPED = {"ECOMMERCE_WORKER_CLASS": "gevent", "ECOMMERCE_MYSQL_DRIVER": "pymysql", "ORDER_COUNTER": "events"}

CONFIGS = {
    # name: (changes to the shipped configuration, courses)
    "shipped, 100 SKUs": ({}, 100),
    "shipped, 1 SKU": ({}, 1),
    "sync workers, 100 SKUs": ({"ECOMMERCE_WORKER_CLASS": "sync"}, 100),
    "mysqlclient, 100 SKUs": ({"ECOMMERCE_MYSQL_DRIVER": "mysqlclient"}, 100),
    "ORDER_COUNTER=oscar, 100 SKUs": ({"ORDER_COUNTER": "oscar"}, 100),
    "ORDER_COUNTER=oscar, 1 SKU": ({"ORDER_COUNTER": "oscar"}, 1),
    "mysqlclient + oscar, 1 SKU": ({"ECOMMERCE_MYSQL_DRIVER": "mysqlclient", "ORDER_COUNTER": "oscar"}, 1),
    "sync + oscar, 1 SKU": ({"ECOMMERCE_WORKER_CLASS": "sync", "ORDER_COUNTER": "oscar"}, 1),
    "no pool, 100 SKUs": ({"ECOMMERCE_DB_POOL": "off"}, 100),
    "shipped, LMS +300 ms": ({"LMS_FAULT_LATENCY_MS": "300"}, 100),
    "sync workers, LMS +300 ms": ({"ECOMMERCE_WORKER_CLASS": "sync", "LMS_FAULT_LATENCY_MS": "300"}, 100),
}

COUNTERS = ("Innodb_row_lock_waits", "Connections", "Com_commit", "Innodb_row_lock_time")
ENDPOINT = paths.COMMERCE_BASKETS


def global_status(conn) -> dict[str, int]:
    with conn.cursor() as cursor:
        cursor.execute("SHOW GLOBAL STATUS")
        values = {name: value for name, value in cursor.fetchall()}
    return {name: int(values[name]) for name in COUNTERS}


def locust(seconds: int, prefix: Path | None, env: dict, locust_env: dict, args) -> None:
    command = [
        str(ROOT / ".venv/bin/locust"),
        "-f",
        str(ROOT / "locustfiles/buy_seat.py"),
        "--host",
        get("LMS_URL", env),
        "--headless",
        "-u",
        str(args.users),
        "-r",
        str(args.users),
        "-t",
        f"{seconds}s",
        "--stop-timeout",
        "30",
        "--only-summary",
    ]
    if prefix:
        command += ["--csv", str(prefix)]
    subprocess.run(command, env=locust_env, check=False, capture_output=True, timeout=seconds + 120)


def run(name: str, changes: dict, courses: int, args, folder: Path) -> dict:
    env = {**os.environ, **SHIPPED, **changes}
    subprocess.run([str(ROOT / "scripts/stack.sh"), "restart"], env=env, check=True, capture_output=True)
    prefix = folder / name.replace(" ", "_").replace(",", "").replace("=", "-").replace("+", "and")
    locust_env = {**env, "PYTHONPATH": str(ROOT), "WAIT_MIN": "0", "WAIT_MAX": "0", "COURSES": str(courses)}
    status = mysql.connect(account="monitor")  # MariaDB's counters: server state
    try:
        if args.warmup:  # the pools grow to what this load needs before the measured run
            locust(args.warmup, None, env, locust_env, args)
        before = global_status(status)
        locust(args.seconds, prefix, env, locust_env, args)
        after = global_status(status)
    finally:
        status.close()
    with open(f"{prefix}_stats.csv") as handle:
        row = next(r for r in csv.DictReader(handle) if r["Name"] == ENDPOINT)
    requests_count = int(row["Request Count"])
    return {
        "config": name,
        "settings": {**SHIPPED, **changes, "COURSES": courses},
        "requests": requests_count,
        "failures": int(row["Failure Count"]),
        "rps": round(float(row["Requests/s"]), 1),
        "p50": int(float(row["50%"])),
        "p95": int(float(row["95%"])),
        "p99": int(float(row["99%"])),
        "row_lock_waits": after["Innodb_row_lock_waits"] - before["Innodb_row_lock_waits"],
        "row_lock_ms": after["Innodb_row_lock_time"] - before["Innodb_row_lock_time"],
        "connections_opened": after["Connections"] - before["Connections"],
        "commits": after["Com_commit"] - before["Com_commit"],
    }


def markdown(rows: list[dict], args) -> str:
    lines = [
        f"Full loop, {args.users} learners in a closed loop (no think time), {args.warmup} s warm-up "
        f"then {args.seconds} s measured per row; "
        "ms are Locust's percentiles of the LMS basket endpoint.",
        "",
        "| configuration | RPS | p50 | p95 | p99 | failures | row-lock waits | lock wait ms "
        "| connections opened |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        lines.append(
            f"| {r['config']} | {r['rps']} | {r['p50']} | {r['p95']} | {r['p99']} | "
            f"{r['failures']}/{r['requests']} | {r['row_lock_waits']} | {r['row_lock_ms']} | "
            f"{r['connections_opened']} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=10, help="unmeasured seconds of load first")
    parser.add_argument("--only", nargs="*", choices=sorted(CONFIGS), help="run only these")
    args = parser.parse_args()

    folder = run_folders.stamped(run_folders.runs(get("VAR_DIR")), "matrix")
    folder.mkdir(parents=True)
    subprocess.run([str(ROOT / "scripts/stack.sh"), "up"], check=True, capture_output=True)
    rows = []
    try:
        for name in args.only or CONFIGS:
            changes, courses = CONFIGS[name]
            rows.append(run(name, changes, courses, args, folder))
            print(json.dumps(rows[-1]), flush=True)
    finally:
        # Leave the shipped configuration running.
        subprocess.run(
            [str(ROOT / "scripts/stack.sh"), "restart"], env={**os.environ, **SHIPPED}, check=False
        )
    (folder / "matrix.json").write_text(json.dumps(rows, indent=2))
    table = markdown(rows, args)
    (folder / "matrix.md").write_text(table + "\n")
    print(table)
    print(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
