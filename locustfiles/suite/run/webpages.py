"""The suite's pages in Locust's web UI (the master's, or the local runner's): the report of
this machine's latest run (whatever started it: this UI or a headless make <profile>), every run
of this machine with its report, and two runs compared as make compare shows them. Read-only; a
run is found by its name in the listing, never by a path it was given.
A page is HTML of the suite's own (names in it escaped by its templates) under a policy that
lets it load nothing but its own styles and inlined plots, and never be framed; what a page
says when it has nothing to show is plain text, whatever name it repeats. Locust's own page
loads one script of the suite's (static/suite-ui.js): its tabs' addresses become links; make
run's form shows the picked profile's fields, named as written, with their hints whole.

And the live tabs (report/live.py), through Locust's own extension points: the tabs and their
columns in the page's template arguments, their rows in the ``extended_stats`` of every
/stats/requests answer, which the page polls every 2 s while a test runs.
"""

import json
import time
from collections.abc import Callable
from pathlib import Path

from flask import Flask, Response, request

from common.environment import get
from locustfiles.suite.report import compare, live, runs

RUNS, COMPARE = "/suite/runs", "/suite/compare"
INDEX = "locust.index"  # the endpoint of Locust's own page (its blueprint's "/")
SCRIPT = "/suite/ui.js"  # the suite's touches to Locust's page: static/suite-ui.js
SCRIPT_FILE = Path(__file__).with_name("static") / "suite-ui.js"
STATS = "/stats/requests"  # what Locust's page polls
BUDGET = 0.01  # of one core, at most, for the live tabs (issue 31 asks under 2 % at 6000 RPM)
PAGE_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; "
    "base-uri 'none'; frame-ancestors 'none'"
)


def add(app: Flask, runs_dir: Path) -> None:
    @app.route("/suite/report")
    def suite_report():
        """The report of the newest run under ``runs_dir``, whatever started it: what make run's
        banner calls the latest."""
        missing = "No report yet on this machine: start a test and stop it (or let the profile finish)."
        return _report(runs.latest(runs_dir), missing)

    @app.route(SCRIPT)
    def suite_ui_js():
        return Response(SCRIPT_FILE.read_bytes(), mimetype="text/javascript")

    @app.after_request
    def with_script(response: Response) -> Response:
        """Locust's page, loading the suite's script (its tabs' addresses as links, its labels
        as the fields' names): the page's policy (run/control.py) lets it load its own."""
        if request.endpoint != INDEX or response.mimetype != "text/html" or response.direct_passthrough:
            return response
        html = response.get_data(as_text=True)
        response.set_data(html.replace("</head>", f'<script defer src="{SCRIPT}"></script></head>', 1))
        return response

    @app.route(RUNS)
    def suite_runs():
        number = request.args.get("page", "1")
        number = int(number) if number.isdigit() and len(number) < 6 else 1
        return page(runs.page(runs_dir, report_url, COMPARE, number))

    @app.route(RUNS + "/<name>/report.html")
    def suite_run_report(name: str):
        missing = f"No run named {name[:100]!r} has a report here (see {RUNS})."
        return _report(runs.by_name(runs_dir, name), missing)

    @app.route(COMPARE)
    def suite_compare():
        a, b = request.args.get("a", ""), request.args.get("b", "")
        folders = [runs.by_name(runs_dir, name) for name in (a, b)]
        if None in folders:
            return said(f"Pick two runs listed on {RUNS} (a={a[:100]!r}, b={b[:100]!r}).", 400)
        return page(_compared(*folders))


def add_live(web_ui, state: Callable[[], live.Live], groups: tuple[str, ...], runs_dir: Path) -> None:
    """The Suite tabs and the Runs tab in Locust's web UI ``web_ui``: ``state()`` is the run
    now; ``groups`` the server process groups whose CPU is read. Tabs others add are kept."""
    args = web_ui.template_args
    args.setdefault("extended_tabs", []).extend([*live.TABS, runs.TAB])
    args.setdefault("extended_tables", []).extend(
        [
            {"key": live.STEPS, "structure": live.step_columns(groups)},
            {"key": live.CHECKS, "structure": live.CHECK_COLUMNS},
            {"key": runs.TAB["key"], "structure": runs.tab_columns()},
        ]
    )
    ours = {tab["key"] for tab in (*live.TABS, runs.TAB)}
    made = Budgeted(lambda now: live.payload(now, groups, report_url, RUNS), state)

    def rows() -> list[dict]:
        listed = runs.tab_rows(runs.listed(runs_dir), report_url, RUNS)
        return [*made(), {"key": runs.TAB["key"], "data": listed}]

    @web_ui.app.after_request
    def live_rows(response: Response) -> Response:
        if request.path != STATS or response.status_code != 200:
            return response
        # Locust keeps its answer for 2 s and hands out the same object: what an earlier call
        # added is replaced, not added to.
        answer = json.loads(response.get_data())
        kept = [entry for entry in answer.get("extended_stats") or [] if entry.get("key") not in ours]
        answer["extended_stats"] = kept + rows()
        response.set_data(json.dumps(answer))
        return response


class Budgeted:
    """The live tabs' rows, made again at most as often as keeps their cost within BUDGET of one
    core: every poll for a run of a few steps, every few polls for a soak of many buckets. A run
    that starts, stops or ends is shown at the next poll."""

    def __init__(self, make: Callable[[live.Live], list], state: Callable[[], live.Live]):
        self.make, self.state = make, state
        self.kept: tuple | None = None  # (the run's phase, made at, seconds it took, rows)

    def __call__(self) -> list:
        now = self.state()
        phase = (now.t0, now.stopping, now.summary is None)
        began = time.perf_counter()
        if self.kept is None or self.kept[0] != phase or began - self.kept[1] >= self.kept[2] / BUDGET:
            made = self.make(now)
            self.kept = (phase, began, time.perf_counter() - began, made)
        return self.kept[3]


def _compared(a: Path, b: Path) -> str:
    """make compare's page of runs ``a`` and ``b``, made once and kept in b's folder (made again
    when either summary changed since)."""
    kept = b / f"compare-{a.name}.html"
    changed = max((a / "summary.json").stat().st_mtime, (b / "summary.json").stat().st_mtime)
    if kept.is_file() and kept.stat().st_mtime >= changed:
        return kept.read_text()
    result = compare.compare(compare.load(a), compare.load(b), get("NOISE_PCT"), get("NOISE_MS"))
    html = compare.html(result, a.name, b.name)
    kept.write_text(html)
    return html


def report_url(name: str) -> str:
    return f"{RUNS}/{name}/report.html"


def _report(folder: Path | None, missing: str) -> Response:
    """A run folder's report.html, or 404 saying ``missing``."""
    if folder is None or not (folder / "report.html").exists():
        return said(missing, 404)
    return page((folder / "report.html").read_text())


def page(html: str) -> Response:
    return Response(html, mimetype="text/html", headers={"Content-Security-Policy": PAGE_POLICY})


def said(text: str, status: int) -> Response:
    """What a page says instead: text, never read as HTML, whatever it repeats."""
    return Response(text, status, mimetype="text/plain")
