"""The database: MariaDB's counters and levels per step, and the requests' SQL statements."""

from locustfiles.suite.core.blocks import cell, fmt, section, table, text
from locustfiles.suite.core.summary import Summary
from locustfiles.suite.core.text import label, shorten

SQL_LIMIT = 300  # characters of a statement shown in a table (cut at a word boundary)


def database(summary: Summary) -> dict:
    rows = summary["steps"]
    delta_keys = sorted({k for row in rows for k in row.get("db_deltas") or {}})
    level_keys = sorted({k for row in rows for k in row.get("db_levels") or {}})
    blocks = []
    if delta_keys:
        blocks.append(
            table(
                ["step", *delta_keys],
                [[label(r), *[(r.get("db_deltas") or {}).get(k) for k in delta_keys]] for r in rows],
                caption="Counters: the change during each step (MariaDB's global status, end minus start: "
                "every client's, the suite's own readings too).",
            )
        )
    if level_keys or any(r.get("db_size_mb") is not None for r in rows):
        blocks.append(
            table(
                ["step", *level_keys, "database size MB"],
                [
                    [label(r), *[(r.get("db_levels") or {}).get(k) for k in level_keys], r.get("db_size_mb")]
                    for r in rows
                ],
                caption="Levels: the value at the end of each step (the size: data and indexes of the "
                "stack's databases).",
            )
        )
    slow = (summary.get("sql") or {}).get("slow_query_seconds")
    if slow is not None:
        blocks.append(
            text(f"A statement counts as slow (Slow_queries) above MariaDB's long_query_time, {fmt(slow)} s.")
        )
    if not blocks:
        blocks.append(text("MariaDB's counters were not read in this run."))
    return section("database", "Database", *blocks)


def _statements(statements: list[dict], caption: str) -> dict:
    return table(
        ["schema", "statement", "calls", "total ms", "mean ms", "rows examined per call"],
        [
            [
                s["schema"],
                cell(shorten(s["statement"], SQL_LIMIT), "code"),
                s["count"],
                s["total_ms"],
                s["mean_ms"],
                s["rows_examined_per_call"],
            ]
            for s in statements
        ],
        caption=caption,
    )


# Whose statements the section lists (read as the load stops: run/finish.py).
WHOSE = (
    "The statements run in the services' databases from the start of the run until the load "
    "stopped (performance_schema's digests). The suite's own reads are not among them: its "
    "readings (server status, table sizes, the audit's watermarks) use no service's database, and "
    "the audit asks the services only after this reading."
)
CHAOS_LOOK_UPS = (
    " The faults of a chaos run look up their learners' orders and payments through the services "
    "while the load runs: those few statements are among them."
)


def sql(summary: Summary) -> dict:
    found = summary.get("sql") or {}
    if "top" not in found:
        return section("sql", "SQL statements", text("The statement digests were not read in this run."))
    no_index = found.get("no_index") or []
    background = found.get("background")
    chaos = "reliability" in (summary.get("profile_sections") or ())
    return section(
        "sql",
        "SQL statements",
        text(WHOSE + (CHAOS_LOOK_UPS if chaos else "")),
        _statements(found["top"], "The requests' costliest statements (by total time):")
        if found["top"]
        else text("The requests ran no statement."),
        table(
            ["schema", "statement", "calls", "no index", "no good index"],
            [
                [
                    s["schema"],
                    cell(shorten(s["statement"], SQL_LIMIT), "code"),
                    s["count"],
                    s["no_index"],
                    s["no_good_index"],
                ]
                for s in no_index
            ],
            caption="The requests' statements that used no index, or no good one:",
        )
        if no_index
        else text("Every statement of the requests used an index."),
        _statements(background, "The background job's statements (the counter rollup loop):")
        if background
        else text("The background job ran no statement.")
        if background is not None
        else None,
    )
