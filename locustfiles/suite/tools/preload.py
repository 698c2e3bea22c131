"""``make preload ORDERS=N``: the databases as N purchases through the full loop leave them.

Each service writes its own half with its own management command, both at once (ecommerce's
``preload_orders``, lms_stub's ``preload_enrollments``); common/contract/preload_plan.py is
what they agree on. ``ORDERS`` is the total wanted: a preload that was stopped resumes after
its last whole batch, and a larger ``ORDERS`` extends one. New purchases are 1038 per minute
apart (the rate the 10-minute soak held; 4 M of them span the 64 hours of edX's 2015 soak) and
end a moment ago; an extension continues the earlier cadence where it can.

Prints progress with its rate while it writes, then the time, the rate and the disk it took.
Run it on a quiet stack: it gives its rows the ids above the highest, so a purchase placed at
the same moment can collide with a batch (that batch fails and is written again on the next
run).
"""

import argparse
import json
import os
import threading
import time
from datetime import UTC, datetime, timedelta

from common.contract import preload_plan as plan
from common.environment import get
from common.monitor_account import mysql_connect
from locustfiles.suite.stack import commands
from locustfiles.suite.verdict import facts

DEFAULT_ORDERS = 4_000_000
BATCH = 50_000
HALVES = (("ecommerce", "preload_orders"), ("lms_stub", "preload_enrollments"))


def status(env=None) -> dict[str, dict]:
    """Each service's preload so far: {"ecommerce": {"done", "last_placed"}, "lms_stub": ...}."""
    started = {service: commands.start(service, command, "--status", env=env) for service, command in HALVES}
    answers = {}
    for service, process in started.items():
        done = commands.finish(process, 120)
        if done.returncode != 0:
            raise SystemExit(f"{service}: the preload status failed:\n{done.stderr[-2000:]}")
        answers[service] = json.loads(done.stdout.strip().splitlines()[-1])
    return answers


def anchor(state: dict[str, dict], total: int, now: datetime) -> tuple[int, datetime, int]:
    """(first purchase to write, its moment, microseconds between purchases).

    The lagging database sets where to resume. A first preload places its purchases 1038 a
    minute apart, ending one spacing before ``now``. A resumed or extended one continues the
    cadence after its last purchase; where that would place purchases in the future, the new
    ones are spread evenly between the last one and ``now`` instead, so a newer purchase is never
    placed before an older one.
    """
    lagging = min(state.values(), key=lambda half: half["done"])
    first, count = lagging["done"] + 1, total - lagging["done"]
    if lagging["last_placed"] is None:
        return first, now - timedelta(microseconds=count * plan.SPACING_US), plan.SPACING_US
    last = datetime.fromisoformat(lagging["last_placed"]).astimezone(UTC).replace(tzinfo=None)
    spacing = plan.SPACING_US
    if last + timedelta(microseconds=count * spacing) > now:
        spacing = max(1, int((now - last) / timedelta(microseconds=1)) // (count + 1))
    return first, last + timedelta(microseconds=spacing), spacing


def tablespace_bytes(databases: tuple[str, ...]) -> int:
    """Bytes the databases' InnoDB tablespaces take on disk (their files' allocated size)."""
    placeholders = ", ".join(["%s"] * len(databases))
    with mysql_connect() as conn, conn.cursor() as cursor:
        cursor.execute(
            "SELECT COALESCE(SUM(ALLOCATED_SIZE), 0) FROM information_schema.INNODB_SYS_TABLESPACES "
            f"WHERE SUBSTRING_INDEX(NAME, '/', 1) IN ({placeholders})",
            databases,
        )
        return int(cursor.fetchone()[0])


class Progress:
    """The two halves' batches as they finish, printed at most every few seconds."""

    def __init__(self, state: dict[str, dict], total: int, every: float = 5.0):
        self.done = {service: half["done"] for service, half in state.items()}
        self.start_done = min(self.done.values())
        self.total, self.every = total, every
        self.started = self.printed = time.monotonic()
        self.lock = threading.Lock()

    def follow(self, service: str, process) -> None:
        for line in process.stdout:
            if line.startswith("{"):
                with self.lock:
                    self.done[service] = json.loads(line)["done"]
                    if time.monotonic() - self.printed >= self.every:
                        self.print_line()

    def rate(self) -> float:
        return (min(self.done.values()) - self.start_done) / max(time.monotonic() - self.started, 1e-9)

    def print_line(self) -> None:
        self.printed = time.monotonic()
        done, rate = min(self.done.values()), self.rate()
        left = (self.total - done) / rate if rate else float("inf")
        halves = ", ".join(f"{service} {count:,}" for service, count in self.done.items())
        print(
            f"preload: {done:,} of {self.total:,} purchases ({100 * done / self.total:.0f} %; {halves}), "
            f"{rate:,.0f} purchases/s, about {format_seconds(left)} left",
            flush=True,
        )


def format_seconds(seconds: float) -> str:
    if seconds == float("inf"):
        return "? s"
    minutes, seconds = divmod(round(seconds), 60)
    return f"{minutes} min {seconds} s" if minutes else f"{seconds} s"


def preload(total: int, courses: int, batch: int, env=None) -> dict:
    """Write what is missing up to ``total`` purchases; a summary of what it did."""
    state = status(env)
    already = min(half["done"] for half in state.values())
    if already >= total:
        print(f"preload: {already:,} purchases are already preloaded (ORDERS={total:,}); nothing to do")
        return {"orders": already, "written": 0}
    first, start, spacing = anchor(state, total, datetime.now(UTC).replace(tzinfo=None))
    databases = facts.databases()
    disk_before = tablespace_bytes(databases)
    print(
        f"preload: writing purchases {already + 1:,} to {total:,} over {courses} courses "
        f"in batches of {batch:,}, placed from {start:%Y-%m-%d %H:%M} UTC"
        + ("" if spacing == plan.SPACING_US else f", {60e6 / spacing:,.0f} a minute to end by now"),
        flush=True,
    )
    args: tuple[str, ...] = ("--total", str(total), "--first", str(first), "--start", start.isoformat())
    args += ("--spacing-us", str(spacing), "--courses", str(courses), "--batch", str(batch))
    progress = Progress(state, total)
    # The batches make temporary tables, which the services' own accounts may not: the owner's.
    owner = {**(os.environ if env is None else env), "DB_ACCOUNT": "owner"}
    processes = {service: commands.start(service, command, *args, env=owner) for service, command in HALVES}
    readers = [
        threading.Thread(target=progress.follow, args=(service, process), daemon=True)
        for service, process in processes.items()
    ]
    for reader in readers:
        reader.start()
    try:
        failed = wait_all(processes)
    except KeyboardInterrupt:
        for process in processes.values():
            process.terminate()
        raise SystemExit("preload: stopped; the whole batches written stay, `make preload` resumes") from None
    for reader in readers:
        reader.join(5)
    if failed:
        service, stderr = failed
        raise SystemExit(f"preload: {service} failed; the whole batches written stay:\n{stderr[-3000:]}")
    seconds = time.monotonic() - progress.started
    written = total - already
    disk = tablespace_bytes(databases) - disk_before
    summary = {
        "orders": total,
        "written": written,
        "seconds": round(seconds, 1),
        "per_second": round(written / seconds),
        "disk_bytes": disk,
        "disk_bytes_per_order": round(disk / written) if written else None,
    }
    print(
        f"preload: {written:,} purchases written in {format_seconds(seconds)} "
        f"({summary['per_second']:,}/s); {total:,} preloaded in all; the databases grew by "
        f"{disk / 2**20:,.0f} MiB on disk ({summary['disk_bytes_per_order']:,} bytes per purchase)",
        flush=True,
    )
    return summary


def wait_all(processes: dict) -> tuple[str, str] | None:
    """Wait for every process; the first to fail stops the others: (its service, its stderr)."""
    while processes:
        for service, process in list(processes.items()):
            if process.poll() is None:
                continue
            del processes[service]
            if process.returncode != 0:
                for other in processes.values():
                    other.terminate()
                return service, process.stderr.read()
        time.sleep(0.2)
    return None


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="make preload", description=__doc__.split("\n\n")[0])
    parser.add_argument("--orders", type=int, default=DEFAULT_ORDERS, help="purchases wanted in all")
    parser.add_argument("--courses", type=int, default=get("CATALOG_COURSES"))
    parser.add_argument("--batch", type=int, default=BATCH, help="purchases per transaction")
    options = parser.parse_args(argv)
    if options.orders < 1:
        parser.error("ORDERS must be at least 1")
    preload(options.orders, options.courses, options.batch)


if __name__ == "__main__":
    main()
