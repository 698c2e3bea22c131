"""make floor: the floor of one free purchase, per service, against the running stack.

    python -m floor [--run <run folder>] [--requests 1000] [--purchases 100] [--out FILE]

In order: a few purchases to warm the workers and their pools; the real CPU per purchase (a load
run's, from --run, or --purchases made here one after another); copies of both databases; one
purchase with MariaDB's general log on, which gives the learner's two hops and each service's
statements; the two calls between the services made once more for their answers; each hop
--requests times against a bare handler; each service's statements replayed --requests times;
the copies dropped. It prints the hops' table, the floor's table and "x.x × the floor" per
service, and writes it all as JSON: <run folder>/floor.json, or var/floor/floor-<time>.json.
"""

import argparse
import json
import os
import sys
import tempfile
import uuid
from datetime import UTC, datetime
from pathlib import Path

import psutil

from common.environment import get
from floor import database, hops, purchase, real, replay, table
from floor.database import SIDES
from floor.statements import Captured, per_service
from stack.mysql import Server
from stack.services import all_running

WARMUP_PURCHASES = 5
FILE = "floor.json"


def warmup_count(requests: int) -> int:
    """Unmeasured requests (or replays) before the measured ones: a tenth, at least 20."""
    return max(20, requests // 10)


def capture(env, root, owner) -> tuple[purchase.Bought, dict[str, Captured]]:
    """Copies of both databases as the purchase finds them, then the purchase, logged."""
    for side in SIDES:
        database.copy_database(owner, side.database, side.copy)
    with database.GeneralLog(root) as log:
        bought = purchase.buy(env)
    captured = per_service(log.rows(), {side.user: side.service for side in SIDES})
    log.forget()
    return bought, captured


def sql_floor(captured: dict[str, Captured], requests: int) -> dict[str, replay.SqlCost]:
    """Each service's statements replayed on its copy, with mariadbd's CPU read around them."""
    mariadbd = psutil.Process(int(Server.from_environment().pid()))

    def server_cpu() -> float:
        used = mariadbd.cpu_times()
        return used.user + used.system

    costs = {}
    for side in SIDES:
        conn = database.service_connection(side, side.copy)
        try:
            sqls = captured[side.service].statements
            costs[side.service] = replay.measure(
                conn, side.service, sqls, server_cpu, requests, warmup_count(requests)
            )
        finally:
            conn.close()
    return costs


def measure(env, requests: int, purchases: int, run: Path | None) -> dict:
    """Everything the floor's table is made of, as the JSON document it is written as."""
    for _ in range(WARMUP_PURCHASES):
        purchase.buy(env)
    found = real.from_run(run) if run else real.measured_here(lambda _k: purchase.buy(env), purchases)
    with database.root_connection(Server.from_environment()) as root, database.owner_connection() as owner:
        try:
            bought, captured = capture(env, root, owner)
            journey = [*bought.hops, *purchase.service_hops(env, bought, f"floor_{uuid.uuid4().hex[:12]}")]
            with tempfile.TemporaryDirectory(prefix="floor-") as folder:
                http = hops.measure(journey, Path(folder), requests, warmup_count(requests))
            sql = sql_floor(captured, requests)
        finally:
            for side in SIDES:
                database.drop_database(owner, side.copy)
    return {
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "requests": requests,
        "real": found.to_json(),
        "hops": [cost.to_json() for cost in http],
        "sql": {service: {**captured[service].to_json(), **cost.to_json()} for service, cost in sql.items()},
        "rows": table.rows(found.ms, http, sql),
    }


def output_path(options: argparse.Namespace) -> Path:
    if options.out:
        return options.out
    if options.run:
        return options.run / FILE
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return Path(get("VAR_DIR")) / "floor" / f"floor-{stamp}.json"


def report(document: dict) -> list[str]:
    """What a terminal shows: the tables, a line per service, what to keep in mind."""
    costs = [hops.HopCost(**hop) for hop in document["hops"]]
    out = table.lines(document["rows"], costs)
    out.append(f"real: {document['real']['source']}")
    out += [f"note: {note}" for note in document["real"]["notes"]]
    for service, sql in document["sql"].items():
        said = (
            f"{service}: {sql['statements']} statements replayed, "
            f"{sql['transaction_control']} BEGIN/COMMIT and {sql['machinery']} of the test machinery left out"
        )
        out.append(said + "".join(f"; refused: {text[:100]}" for text in sql["refused"]))
        out += [f"  failed: {error}" for error in sql["errors"]]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make floor", description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--run", type=Path, help="a load run's folder: its CPU per purchase is the real figure"
    )
    parser.add_argument("--requests", type=int, default=1000, help="requests per hop, replays per service")
    parser.add_argument(
        "--purchases", type=int, default=100, help="real purchases measured here, without --run"
    )
    parser.add_argument(
        "--out", type=Path, help="where the JSON goes (default: RUN/floor.json or var/floor/)"
    )
    options = parser.parse_args(argv)
    if options.requests < 1 or options.purchases < 1:
        parser.error("--requests and --purchases must be at least 1")
    if options.run and not (options.run / "summary.json").is_file():
        parser.error(f"{options.run} is no run folder (no summary.json)")
    if not all_running():
        print("make floor: the stack is not up (make up)", file=sys.stderr)
        return 1
    document = measure(dict(os.environ), options.requests, options.purchases, options.run)
    path = output_path(options)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2) + "\n")
    print("\n".join(report(document)))
    print(f"written: {path}")
    return 0
