"""The soak: trends over the buckets, and the database at size."""

from typing import Any

from locustfiles.suite.core.blocks import cell, fmt, image, section, table, text
from locustfiles.suite.core.summary import StepRow, Summary
from locustfiles.suite.core.text import plural


def soak(summary: Summary) -> dict:
    trend = summary.get("trend") or {}
    lines = [
        f"p95 over {plural(trend.get('buckets', 0), 'bucket')}: {fmt(trend.get('p95_first'))} → "
        f"{fmt(trend.get('p95_last'))} ms ({fmt(trend.get('p95_change_pct'))} %), fitted trend "
        f"{fmt(trend.get('p95_ms_per_bucket'))} ms per bucket."
    ]
    growth = trend.get("rss_after_warm_up") or {}
    rows = [[group, g["mb_per_bucket"], g["first_mb"], g["last_mb"]] for group, g in growth.items()]
    lines.append(
        "Server processes replaced during the run (worker recycling, crashes): "
        f"{trend.get('processes_replaced', 0)}."
    )
    return section(
        "soak",
        "Soak: trends over the buckets",
        *[text(line) for line in lines],
        table(
            ["process group", "MB per bucket", "first MB", "last MB"],
            rows,
            [_rss_note(summary, trend)],
        )
        if rows
        else None,
        image("soak.png", "p95 and database size per bucket"),
        *database_growth(trend.get("size") or {}),
    )


def _rss_note(summary: Summary, trend: dict) -> str:
    skipped = trend.get("warm_up_buckets", 1)
    if skipped:
        first = "bucket 1" if skipped == 1 else f"buckets 1–{skipped}"
        return f"Peak RSS from bucket {skipped + 1} on ({first} filled pools and caches; no warm-up ran)."
    warm: StepRow | dict[str, Any] = summary.get("warm_up") or {}
    after = f" after the {fmt(warm.get('seconds'))} s warm-up" if warm else ""
    return f"Peak RSS of every bucket{after}."


def database_growth(size: dict) -> list:
    """The database at size: what each order costs on disk, where a 64-hour run would take it,
    and how each table grew (InnoDB's figures, rows estimated)."""
    if not size:
        return []
    lines = [
        f"Database: {fmt(size['first_mb'])} MB at the end of the first bucket, {fmt(size['last_mb'])} MB "
        f"at the end of the last, after {size['orders']:,} orders placed in between."
    ]
    projected = size.get("projected")
    if size.get("bytes_per_order") and projected:
        lines.append(
            f"At {size['bytes_per_order']:,} bytes per order, a {projected['hours']}-hour run at "
            f"{projected['rpm']:,} purchases per minute ({projected['orders']:,} orders) would reach about "
            f"{projected['size_mb']:,} MB."
        )
    else:
        lines.append("The database did not grow measurably, so no bytes per order can be given.")
    rows = [
        [
            cell(t["table"], "code"),
            f"{t['rows'][0]:,} → {t['rows'][1]:,}",
            f"{fmt(t['file_mb'][0])} → {fmt(t['file_mb'][1])}",
            fmt(t["data_mb"]),
            fmt(t["index_mb"]),
        ]
        for t in size.get("tables", [])
    ]
    return [
        *[text(line) for line in lines],
        table(
            ["table", "rows (first → last bucket)", "file MB (first → last)", "data MB", "index MB"],
            rows,
            [
                "Rows are InnoDB's running estimate; file MB is the table's file on disk, exact. Data "
                "and index MB are InnoDB's statistics at the last bucket, which it recalculates only "
                "after a tenth of a table has changed."
            ],
        )
        if rows
        else None,
        image("soak_size.png", "p95 against database size"),
    ]
