"""The suite's pages in Locust's web UI (the master's, or the local runner's): the latest run's
report, every run of this machine with its report, and two runs compared as make compare
shows them. Read-only; a run is found by its name in the listing, never by a path it was given.
"""

from collections.abc import Callable
from pathlib import Path

from flask import Flask, Response, request

from common.environment import get
from locustfiles.suite.report import compare, runs

RUNS, COMPARE = "/suite/runs", "/suite/compare"


def add(app: Flask, runs_dir: Path, latest: Callable[[], Path | None]) -> None:
    @app.route("/suite/report")
    def suite_report():
        """The latest report (this process's run)."""
        return _report(latest(), "No report yet: start a test and stop it (or let the profile finish).")

    @app.route(RUNS)
    def suite_runs():
        return Response(runs.page(runs_dir, report_url, COMPARE), mimetype="text/html")

    @app.route(RUNS + "/<name>/report.html")
    def suite_run_report(name: str):
        return _report(runs.by_name(runs_dir, name), f"No run named {name} has a report here (see {RUNS}).")

    @app.route(COMPARE)
    def suite_compare():
        a, b = request.args.get("a", ""), request.args.get("b", "")
        folders = [runs.by_name(runs_dir, name) for name in (a, b)]
        if None in folders:
            return Response(f"Pick two runs listed on {RUNS} (a={a!r}, b={b!r}).", 400)
        result = compare.compare(*map(compare.load, folders), get("NOISE_PCT"), get("NOISE_MS"))
        return Response(compare.html(result, a, b), mimetype="text/html")


def report_url(name: str) -> str:
    return f"{RUNS}/{name}/report.html"


def _report(folder: Path | None, missing: str) -> Response:
    """A run folder's report.html, or 404 saying ``missing``."""
    if folder is None or not (folder / "report.html").exists():
        return Response(missing, 404)
    return Response((folder / "report.html").read_text(), mimetype="text/html")
