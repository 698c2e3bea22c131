"""Issue 31, item 3: every run on the machine in the web UI (report/runs.py, run/webpages.py),
through Flask's own test client on the routes the Locust web UI serves: the listing newest
first with each run's figures, each report one click away, two runs compared, and a name that is
no run's refused."""

import json
import os

import pytest
from flask import Blueprint, Flask

from locustfiles.suite import report
from locustfiles.suite.core import blocks
from locustfiles.suite.report import compare, runs
from locustfiles.suite.run import webpages
from tests.loadsuite import synthetic

OLDER, NEWER = "20261127-100000-ramp", "20261127-110000-ramp"


def planted_run(folder, seed):
    p, recorder, _, log = synthetic.recorded(seed=seed)
    report.write(synthetic.summary_for(p, recorder, log=log), folder)


@pytest.fixture
def runs_dir(tmp_path):
    found = tmp_path / "runs"
    planted_run(found / OLDER, 3)
    planted_run(found / NEWER, 4)
    (found / "20261127-120000-compare").mkdir()  # a comparison: no summary, no run
    (found / "20261127-130000-smoke").mkdir()
    (found / "20261127-130000-smoke/summary.json").write_text("{not json")
    return found


@pytest.fixture
def client(runs_dir):
    app = Flask(__name__)
    webpages.add(app, runs_dir)
    return app.test_client()


def test_the_runs_are_listed_newest_first_with_their_figures(runs_dir):
    lines = runs.listed(runs_dir)
    assert [line["run"] for line in lines] == ["20261127-130000-smoke", NEWER, OLDER]
    assert lines[0]["unreadable"].startswith("JSONDecodeError")
    summary = json.loads((runs_dir / NEWER / "summary.json").read_text())
    assert lines[1] == {
        "run": NEWER,
        "profile": "ramp",
        "started_from": "headless",
        "started": summary["started"],
        "seconds": summary["seconds"],
        "verdict": "PASS" if summary["verdict"]["passed"] else "FAIL",
        "requests": summary["overall"]["requests"],
        "failures": summary["overall"]["failures"],
        "p95": summary["overall"]["p95"],
        "capacity_rpm": None,
        "cpu_ms_per_purchase": summary["cpu_ms_per_purchase"]["services"],
        "lost": summary["audit"]["lost"],
        "report": True,
    }


def test_the_runs_page_links_each_report_and_offers_a_comparison(client):
    page = client.get("/suite/runs")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assert f'<a href="/suite/runs/{NEWER}/report.html">{NEWER}</a>' in html
    assert '<form method="get" action="/suite/compare">' in html
    assert "20261127-130000-smoke" in html and "JSONDecodeError" in html  # listed, never hidden
    assert html.count("<option") == 4  # two readable runs, in each of the two pickers


def test_a_runs_report_is_served_by_its_name_alone(client, runs_dir):
    served = client.get(f"/suite/runs/{OLDER}/report.html")
    assert served.status_code == 200
    assert served.get_data(as_text=True) == (runs_dir / OLDER / "report.html").read_text()
    for name in ("20261127-120000-compare", "..", "20261127-130000-smoke", "nothing"):
        assert client.get(f"/suite/runs/{name}/report.html").status_code == 404, name
    assert client.get("/suite/runs/%2E%2E%2Fruns/report.html").status_code == 404


def test_two_runs_are_compared_as_make_compare_shows_them(client, runs_dir):
    page = client.get(f"/suite/compare?a={OLDER}&b={NEWER}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    result = compare.compare(compare.load(runs_dir / OLDER), compare.load(runs_dir / NEWER))
    assert html == compare.html(result, OLDER, NEWER)  # make compare's page, for these two
    assert client.get(f"/suite/compare?a={OLDER}&b=../../etc").status_code == 400
    assert client.get("/suite/compare").status_code == 400


# Issue 44, item 4: the review's reflected HTML.
SCRIPT, IMAGE = "<script>alert(1)</script>", "<img src=x onerror=alert(1)>"


def test_a_name_that_is_no_runs_is_said_back_as_text_never_as_html(client):
    for answer, status in (
        (client.get("/suite/compare", query_string={"a": SCRIPT, "b": NEWER}), 400),
        (client.get(f"/suite/runs/{IMAGE}/report.html"), 404),
        (client.get("/suite/compare", query_string={"a": "x" * 5000}), 400),
    ):
        assert answer.status_code == status and answer.mimetype == "text/plain"
        assert len(answer.get_data()) < 400  # a long name is cut, not repeated whole
    said = client.get("/suite/compare", query_string={"a": SCRIPT}).get_data(as_text=True)
    assert SCRIPT in said  # the operator sees what was asked for, as text


def test_the_suites_pages_load_nothing_but_their_own_and_are_never_framed(client):
    for path in (
        "/suite/runs",
        "/suite/report",
        f"/suite/runs/{OLDER}/report.html",
        f"/suite/compare?a={OLDER}&b={NEWER}",
    ):
        page = client.get(path)
        assert page.status_code == 200 and page.mimetype == "text/html", path
        policy = dict(
            part.strip().split(" ", 1) for part in page.headers["Content-Security-Policy"].split(";")
        )
        assert policy["default-src"] == "'none'" and policy["frame-ancestors"] == "'none'", path
        assert policy["img-src"] == "data:" and "script-src" not in policy, path  # no script at all


def test_the_latest_report_is_the_newest_run_with_one(client, runs_dir):
    # the newest folder (the smoke's) has an unreadable summary and no report: the one before
    assert (
        client.get("/suite/report").get_data(as_text=True) == (runs_dir / NEWER / "report.html").read_text()
    )


def test_the_latest_report_is_the_machines_whatever_started_it(client, runs_dir):
    """Issue 43, item 6: a headless make <profile> that ended after this UI's run is the latest."""
    headless = runs_dir / "20261127-140000-soak"
    planted_run(headless, 5)
    (runs_dir / "20261127-150000-manual").mkdir()  # a run under way: no summary, no report yet
    assert client.get("/suite/report").get_data(as_text=True) == (headless / "report.html").read_text()


def test_locusts_page_loads_the_suites_script_and_no_other_page_does(runs_dir):
    """Issue 43, item 6: addresses in the tabs as links, labels as written (static/suite-ui.js)."""
    app = Flask(__name__)
    locust = Blueprint("locust", __name__)  # Locust's own blueprint and its page's endpoint
    locust.add_url_rule("/", "index", lambda: "<html><head><title>L</title></head><body></body></html>")
    app.register_blueprint(locust)
    webpages.add(app, runs_dir)
    client = app.test_client()
    tag = f'<script defer src="{webpages.SCRIPT}"></script></head>'
    assert tag in client.get("/").get_data(as_text=True)
    assert "<script" not in client.get("/suite/runs").get_data(as_text=True)
    script = client.get(webpages.SCRIPT)
    assert script.status_code == 200 and script.mimetype == "text/javascript"
    assert "innerHTML" not in script.get_data(as_text=True)  # text and attributes only


def test_no_run_yet_says_how_to_start_one(tmp_path):
    app = Flask(__name__)
    webpages.add(app, tmp_path / "runs")
    assert "No run yet" in app.test_client().get("/suite/runs").get_data(as_text=True)
    assert app.test_client().get("/suite/report").status_code == 404


def test_a_linked_cell_is_a_link_in_markdown_too():
    (row,) = blocks.table(["run"], [[blocks.cell("a run", "code", href="/x/report.html")]])["rows"]
    assert blocks.markdown(blocks.table(["run"], [row])).splitlines()[2] == "| [a run](/x/report.html) |"


def test_the_runs_tab_lists_the_newest_runs_as_text_with_their_reports_address(runs_dir):
    rows = runs.tab_rows(runs.listed(runs_dir), webpages.report_url, webpages.RUNS)
    assert [row["run"] for row in rows[:3]] == ["20261127-130000-smoke", NEWER, OLDER]
    assert rows[0]["profile"].startswith("JSONDecodeError")  # unreadable, listed as such
    newer = json.loads((runs_dir / NEWER / "summary.json").read_text())
    assert rows[1] == {
        "run": NEWER,
        "profile": "ramp",
        "started_from": "headless",
        "started": newer["started"],
        "seconds": blocks.fmt(newer["seconds"]),
        "verdict": "PASS" if newer["verdict"]["passed"] else "FAIL",
        "requests": blocks.fmt(newer["overall"]["requests"]),
        "failures": blocks.fmt(newer["overall"]["failures"]),
        "p95": blocks.fmt(newer["overall"]["p95"]),
        "capacity_rpm": blocks.fmt(None),
        "cpu_ms_per_purchase": blocks.fmt(newer["cpu_ms_per_purchase"]["services"]),
        "lost": blocks.fmt(newer["audit"]["lost"]),
        "report": f"/suite/runs/{NEWER}/report.html",
    }
    assert rows[-1] == {"run": "two runs compared: /suite/runs"}
    assert [column["key"] for column in runs.tab_columns()] == [*runs.KEYS, "report"]


def test_the_runs_tab_shows_the_newest_runs_and_says_how_many_more(tmp_path, monkeypatch):
    monkeypatch.setattr(runs, "TAB_RUNS", 1)
    lines = [{"run": "b", "report": False}, {"run": "a", "report": True}]
    rows = runs.tab_rows(lines, webpages.report_url, webpages.RUNS)
    assert [row["run"] for row in rows] == ["b", "1 more, and two runs compared: /suite/runs"]
    assert rows[0]["report"] == "none"


def test_the_runs_page_is_paged_newest_first(client, monkeypatch):
    monkeypatch.setattr(runs, "PAGE", 2)
    first = client.get("/suite/runs").get_data(as_text=True)
    assert "Page 1 of 2" in first and '<a href="?page=2">older runs</a>' in first
    assert NEWER in first.split("Compare two runs")[0] and f"{OLDER}</a>" not in first
    second = client.get("/suite/runs?page=2").get_data(as_text=True)
    assert f'<a href="/suite/runs/{OLDER}/report.html">{OLDER}</a>' in second
    assert '<a href="?page=1">newer runs</a>' in second
    for odd in ("0", "99", "x", "9" * 40):  # the nearest page, never an error
        assert client.get(f"/suite/runs?page={odd}").status_code == 200


def test_a_comparison_is_kept_in_the_newer_runs_folder_and_made_again_when_a_run_changed(client, runs_dir):
    kept = runs_dir / NEWER / f"compare-{OLDER}.html"
    first = client.get(f"/suite/compare?a={OLDER}&b={NEWER}").get_data(as_text=True)
    assert kept.read_text() == first
    kept.write_text("kept")  # served from the folder while neither summary changed
    assert client.get(f"/suite/compare?a={OLDER}&b={NEWER}").get_data(as_text=True) == "kept"
    summary = runs_dir / OLDER / "summary.json"
    summary.write_text(summary.read_text())
    os.utime(kept, (0, 0))  # older than the summary now
    assert client.get(f"/suite/compare?a={OLDER}&b={NEWER}").get_data(as_text=True) == first


def test_each_run_says_where_it_was_started_and_an_older_summary_says_nothing(client, runs_dir):
    """The trial's item 4: two runs of one profile, one from the web UI and one headless, looked
    the same on the Runs page and in the Runs tab; a summary older than "started_from" shows –."""
    for name, started_from in (("20261127-140000-ramp", "web UI"), ("20261127-150000-ramp", None)):
        planted_run(runs_dir / name, 5)
        summary = json.loads((runs_dir / name / "summary.json").read_text())
        if started_from is None:
            del summary["started_from"]
        else:
            summary["started_from"] = started_from
        (runs_dir / name / "summary.json").write_text(json.dumps(summary))
    rows = runs.tab_rows(runs.listed(runs_dir), webpages.report_url, webpages.RUNS)
    shown = {row["run"]: row.get("started_from") for row in rows}
    assert shown["20261127-140000-ramp"] == "web UI" and shown[NEWER] == "headless"
    assert shown["20261127-150000-ramp"] == blocks.DASH
    assert {"key": "started_from", "title": "started from"} in runs.tab_columns()

    html = client.get("/suite/runs").get_data(as_text=True)
    assert '<th class="text">profile</th><th class="text">started from</th>' in html
    for name, said in (("20261127-140000-ramp", "web UI"), ("20261127-150000-ramp", blocks.DASH)):
        assert f'>{name}</a></td><td class="text">ramp</td><td class="text">{said}</td>' in html, name
