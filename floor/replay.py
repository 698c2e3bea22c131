"""The SQL floor: a purchase's statements replayed through the service's own driver with no
framework, and the CPU both ends spent per purchase: this process's (the driver's: sending,
reading, decoding rows) and mariadbd's, read with psutil before and after.

Nothing accepted is ever changed, twice over: the replay runs on copies of the databases made
just before the captured purchase (database.py), as the service's own account, connected as the
service connects; and each replay is one transaction that is rolled back, so the copies stay as
the purchase found them (its learner, basket and order do not exist there) and every replay
meets the rows the purchase met. The purchase's own BEGIN and COMMIT are not sent: a COMMIT's
own work (its log write) is the one thing of its SQL the floor leaves out.

An id MariaDB generated stays taken after a rollback, so a replayed INSERT would get another one
and the statements after it, which name the first, would miss their rows. A first replay (not
measured) learns the id each INSERT generates; every measured one sends it with the INSERT, as
``SET insert_id = N; INSERT …`` in one round trip: the one thing a replay adds (a SET to parse,
one more result to read).
"""

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from floor import statements
from floor.database import DRIVER_ERRORS


@dataclass(frozen=True)
class Step:
    """A statement as a measured replay sends it; ``packed``: behind a SET insert_id."""

    sql: str
    packed: bool = False


@dataclass
class SqlCost:
    """One service's statements of a purchase, replayed: CPU milliseconds per purchase of this
    process (the driver) and of mariadbd, and what did not replay as it ran."""

    service: str
    statements: int
    client_ms: float
    server_ms: float
    errors: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return dict(self.__dict__)


def generated_id(sql: str, lastrowid: int | None, rows) -> int | None:
    """The id an INSERT generated: the driver's last insert id, or the first column of the first
    row an INSERT ... RETURNING sent back; None for anything else."""
    if not statements.inserts(sql):
        return None
    if lastrowid:
        return int(lastrowid)
    if statements.returns_rows(sql) and rows and isinstance(rows[0][0], int):
        return rows[0][0]
    return None


def calibrate(conn, sqls: list[str]) -> tuple[list[Step], list[str]]:
    """One replay, rolled back, that learns each INSERT's generated id: the steps a measured replay
    sends, and the statements that failed (with why)."""
    steps, errors = [], []
    conn.begin()
    try:
        with conn.cursor() as cursor:
            for sql in sqls:
                try:
                    cursor.execute(sql)
                    rows = cursor.fetchall()
                except DRIVER_ERRORS as exc:
                    errors.append(f"{sql[:160]}: {exc}")
                    steps.append(Step(sql))
                    continue
                generated = generated_id(sql, cursor.lastrowid, rows)
                steps.append(Step(f"SET insert_id = {generated}; {sql}", True) if generated else Step(sql))
    finally:
        conn.rollback()
    return steps, errors


def replay_once(conn, cursor, steps: list[Step]) -> int:
    """One purchase's statements in one transaction, rolled back; the number that failed."""
    failed = 0
    conn.begin()
    for step in steps:
        try:
            cursor.execute(step.sql)
            if step.packed:
                cursor.nextset()
            cursor.fetchall()
        except DRIVER_ERRORS:
            failed += 1
    conn.rollback()
    return failed


def measure(
    conn, service: str, sqls: list[str], server_cpu: Callable[[], float], times: int, warmup: int
) -> SqlCost:
    """``times`` measured replays after ``warmup`` unmeasured ones, on ``conn``."""
    steps, errors = calibrate(conn, sqls)
    with conn.cursor() as cursor:
        for _ in range(warmup):
            replay_once(conn, cursor, steps)
        server_before, client_before = server_cpu(), time.process_time()
        failed = sum(replay_once(conn, cursor, steps) for _ in range(times))
        client_after, server_after = time.process_time(), server_cpu()
    if failed:
        errors.append(f"{failed} statements failed in {times} measured replays")
    if not sqls:
        errors.append("no statement of this service was captured: its floor is a bare BEGIN and ROLLBACK")
    return SqlCost(
        service,
        len(sqls),
        round(max(client_after - client_before, 0.0) * 1000 / times, 4),
        round(max(server_after - server_before, 0.0) * 1000 / times, 4),
        errors,
    )
