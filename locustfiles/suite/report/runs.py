"""Every run on this machine, newest first: the web UI's Runs page (/suite/runs) and its Runs
tab (Locust's extended tabs: text cells, the newest TAB_RUNS, the page for every run and the
comparison of two).

A run is a folder of <VAR_DIR>/runs/ with a summary.json (a comparison's folder has none); its
line gives what a user picks a run by: the profile, where it was started (the web UI or
headless: two runs of one profile look alike otherwise), when and for how long, the verdict,
and its headline figures (the order endpoint's requests, failures and p95, capacity). A
summary that cannot be read is listed as such, never left out.
"""

import json
from collections.abc import Callable
from pathlib import Path

from locustfiles.suite.core.blocks import cell, fmt, section, table, text
from locustfiles.suite.core.names import ORDER_ENDPOINT
from locustfiles.suite.report import HTML

COLUMNS = [
    "run",
    "profile",
    "started from",
    "started",
    "seconds",
    "verdict",
    "order requests",
    "order failures",
    "p95 (ms)",
    "capacity RPM",
    "CPU ms per purchase",
    "lost",
]


TAB = {"key": "suite_runs", "title": "Runs"}
TAB_RUNS = 50
KEYS = (
    "run",
    "profile",
    "started_from",  # "web UI" or "headless"; a summary older than it has none: –
    "started",
    "seconds",
    "verdict",
    "requests",
    "failures",
    "p95",
    "capacity_rpm",
    "cpu_ms_per_purchase",
    "lost",
)
PAGE = 50  # runs on a page of the Runs page


# Each run's line by its folder, with its summary's modification time: a summary is read again
# only once it changed (a long soak's is megabytes; the page is asked for again and again).
_READ: dict[Path, tuple[float, dict]] = {}


def listed(runs_dir: Path) -> list[dict]:
    """Each run's line, newest first (folder names start with their stamp)."""
    folders = sorted((p for p in Path(runs_dir).glob("*") if (p / "summary.json").is_file()), reverse=True)
    for gone in set(_READ) - set(folders):  # a run deleted since: its line goes too
        del _READ[gone]
    return [_cached(folder) for folder in folders]


def _cached(folder: Path) -> dict:
    changed = (folder / "summary.json").stat().st_mtime
    if folder not in _READ or _READ[folder][0] != changed:
        _READ[folder] = (changed, line(folder))
    return _READ[folder][1]


def line(folder: Path) -> dict:
    try:
        summary = json.loads((folder / "summary.json").read_text())
        overall, verdict = summary["overall"], summary["verdict"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return {"run": folder.name, "unreadable": f"{type(exc).__name__}: {exc}"}
    return {
        "run": folder.name,
        "profile": summary.get("profile"),
        "started_from": summary.get("started_from"),
        "started": summary.get("started"),
        "seconds": summary.get("seconds"),
        "verdict": "PASS" if verdict.get("passed") else "FAIL",
        "requests": overall.get("requests"),
        "failures": overall.get("failures"),
        "p95": overall.get("p95"),
        "capacity_rpm": summary.get("capacity_rpm"),
        "cpu_ms_per_purchase": (summary.get("cpu_ms_per_purchase") or {}).get("services"),
        "lost": (summary.get("audit") or {}).get("lost"),
        "report": (folder / "report.html").is_file(),
    }


def by_name(runs_dir: Path, name: str) -> Path | None:
    """The folder of the run named ``name`` (one of listed()'s), or None: a name that is not a
    run's never reaches the file system as a path."""
    return next((Path(runs_dir) / r["run"] for r in listed(runs_dir) if r["run"] == name), None)


def latest(runs_dir: Path) -> Path | None:
    """The folder of this machine's newest run with a report, whatever started it (make
    <profile>, make run's form or a swarm stopped by hand), or None."""
    return next((Path(runs_dir) / r["run"] for r in listed(runs_dir) if r.get("report")), None)


def sections(lines: list[dict], link) -> list[dict]:
    """The Runs page: one table of every run, its name linking to its report (``link(name)``)."""
    if not lines:
        return [section("runs", "Runs", text("No run yet: start one from the form, or with make."))]
    rows = [
        [
            cell(r["run"], "code", href=link(r["run"]) if r.get("report") else None),
            *(
                [cell(r["unreadable"], "text", "warn"), *[None] * (len(COLUMNS) - 2)]
                if "unreadable" in r
                else [r[key] for key in KEYS[1:]]
            ),
        ]
        for r in lines
    ]
    notes = [
        f"order requests, order failures and p95: the order endpoint's (POST {ORDER_ENDPOINT}), "
        "over the whole run. CPU ms per purchase: the services' (ecommerce, "
        "lms_stub, MariaDB, the rollup). lost: purchases answered 2xx without their order, by the audit."
    ]
    return [section("runs", "Runs", table(COLUMNS, rows, notes))]


def page(runs_dir: Path, link: Callable[[str], str], compare_url: str, number: int = 1) -> str:
    """The Runs page's HTML: page ``number`` of the table (PAGE runs, newest first; a number
    past the last shows the last), and a form that compares two of all the runs."""
    lines = listed(runs_dir)
    pages = max(1, -(-len(lines) // PAGE))
    number = min(max(number, 1), pages)
    return HTML.get_template("runs.html.j2").render(
        title="Load runs on this machine",
        sections=sections(lines[(number - 1) * PAGE : number * PAGE], link),
        pager={"number": number, "pages": pages},
        names=[r["run"] for r in lines if "unreadable" not in r],
        compare_url=compare_url,
        inline=None,  # the page has no plot
    )


def tab_columns() -> list[dict[str, str]]:
    return [
        {"key": key, "title": title}
        for key, title in zip((*KEYS, "report"), (*COLUMNS, "report"), strict=True)
    ]


def tab_rows(lines: list[dict], link: Callable[[str], str], runs_url: str) -> list[dict[str, str]]:
    """The Runs tab: the newest TAB_RUNS runs, each with its report's address (the tab shows
    text only), then where every run is and where two are compared."""
    rows = []
    for r in lines[:TAB_RUNS]:
        if "unreadable" in r:
            rows.append({"run": r["run"], "profile": r["unreadable"]})
            continue
        row = {key: fmt(r.get(key)) for key in KEYS}
        row["report"] = link(r["run"]) if r.get("report") else "none"
        rows.append(row)
    more = f"{len(lines) - TAB_RUNS} more, and " if len(lines) > TAB_RUNS else ""
    rows.append({"run": f"{more}two runs compared: {runs_url}"})
    return rows
