"""The web UI's wiring to the run that keeps the results (run/keeper.py): the suite's pages
(the latest report, every run, two compared), the live tabs and what they read of the run, the
running counts of what the databases hold (every 5 s while a test runs), and make run's start
form when the locustfile offers the profiles."""

import time
from pathlib import Path

import gevent

from locustfiles.suite.figures import cpu
from locustfiles.suite.report import live
from locustfiles.suite.run import start_form, webpages
from locustfiles.suite.verdict import audit

WRITTEN_EVERY = 5.0  # seconds between two readings of the rows written so far


def wire(run, web_ui, runs_dir: Path, learners) -> None:
    """Attach the suite's pages and tabs to Locust's web UI, and the start form if offered."""
    webpages.add(web_ui.app, runs_dir)
    groups = (*cpu.SERVICES, cpu.BALANCER) if run.balancer or run.sampler.hosts else cpu.SERVICES
    webpages.add_live(web_ui, lambda: live_state(run), groups, runs_dir)
    if learners:
        start_form.StartForm(run, learners).attach(web_ui)


def live_state(run) -> live.Live:
    """The run now, as the web UI's live tabs show it (report/live.py)."""
    return live.Live(
        run.profile,
        run.plan,
        run.recorder,
        run.readings,
        run.rules,
        run.t0,
        time.time(),
        stopping=run.stopping,
        answered=run.answered_count,
        summary=run.summary,
        run_name=run.run_dir.name if run.run_dir else None,
        cache=run.live_rows,
        written=run.written,
    )


def count_written(run) -> None:
    """The live tab's running counts, until the test stops (its greenlets are killed)."""
    while True:
        run.written = audit.running_counts(run.marks)
        gevent.sleep(WRITTEN_EVERY)
