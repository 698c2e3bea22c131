"""Issue 43: the report says only what is true of the run it reports: whose statements its SQL
sections list, what the run's model used, one row per step of a one-step run, one mark for a
thin percentile, and what each count counts. Synthetic summaries (tests/loadsuite/synthetic.py)."""

from markupsafe import escape

from locustfiles.suite import report
from locustfiles.suite.core import names
from locustfiles.suite.report import live, runs, terminal
from locustfiles.suite.report.sections import storage, traffic
from locustfiles.suite.report.sections.top import provenance
from locustfiles.suite.verdict import findings
from tests.loadsuite import synthetic

OPEN_MODEL = {"RPM": "600", "DURATION": "20", "WARMUP_SECONDS": "0"}


def rpm_summary(**extra) -> dict:
    p, recorder, _, log = synthetic.recorded("rpm", OPEN_MODEL, reads=300)
    return synthetic.summary_for(p, recorder, extra, log=log)


def written(folder, summary) -> tuple[str, str]:
    report.write(summary, folder)
    return (folder / "report.md").read_text(), (folder / "report.html").read_text()


def section_text(markdown: str, title: str) -> str:
    return markdown.split(f"## {title}")[1].split("\n## ")[0]


def test_the_sql_section_says_its_statements_are_the_services_not_the_suites(tmp_path):
    """The statements are read as the load stops, before the audit asks the services
    (run/keeper.py); the suite's readings use no service's database. The section says so, and
    a chaos run's faults, which look up their learners through the services mid-run, are said
    to be among them."""
    summary = rpm_summary()
    summary["sql"]["top"] = [synthetic.statement("SELECT `order_order` . `id` FROM `order_order`")]
    text, html = written(tmp_path / "rpm", summary)
    sql = section_text(text, "SQL statements")
    assert storage.WHOSE in sql and escape(storage.WHOSE) in html
    assert sql.index(storage.WHOSE) < sql.index("The requests' costliest statements")
    assert storage.CHAOS_LOOK_UPS.strip() not in sql

    summary["profile_sections"] = ["reliability"]  # chaos's
    (whose, *_) = storage.sql(summary)["blocks"]
    assert whose["text"] == storage.WHOSE + storage.CHAOS_LOOK_UPS


def load_table(summary: dict) -> dict[str, str]:
    """The test setup's load table as {row: value}."""
    (setup,) = [
        b for b in provenance(summary)["blocks"] if b["kind"] == "table" and b["headers"][0] == "load"
    ]
    return {row[0]["text"]: row[1]["text"] for row in setup["rows"]}


def test_an_open_model_runs_setup_lists_what_the_open_model_uses(tmp_path):
    """Its arrivals come at the target rate whatever the users do: no think time, spawn rate or
    users at most (a pool that only sends the arrivals), but the rate and the journeys' mix."""
    summary = rpm_summary()
    summary["load"].update(users=26, spawn_rate=1)
    found = load_table(summary)
    assert not {"think time", "spawn rate", "users (at most)", "users start", "task weights"} & set(found)
    assert found["arrivals"] == "each step's target RPM, spread evenly over the step (open model)"
    assert found["journeys"] == (
        "every arrival a purchase: 50 free and 1 paid in every 51; 5 order reads for every 51 purchases"
    )
    assert found["courses bought"] == "100"
    text, _ = written(tmp_path, summary)
    setup = section_text(text, "Test setup")
    assert "| arrivals |" in setup and "think time" not in setup and "spawn rate" not in setup


def test_a_closed_model_runs_setup_says_how_its_users_started():
    """The profile's load shape starts each step's users within a second, whatever Locust's
    spawn rate option says; a run set by hand (manual) spawns at the rate it was given."""
    p, recorder, _, _ = synthetic.recorded()
    summary = synthetic.summary_for(p, recorder)
    found = load_table(summary)
    assert found["users (at most)"] == "3" and found["think time"] == "3–5 s"
    assert found["task weights"] == "buy 50 : pay 1 : read 5"
    assert found["users start"] == "all of a step's users within its first second (the profile's load shape)"
    assert "spawn rate" not in found and "arrivals" not in found
    summary["profile"] = "manual"
    assert load_table(summary)["spawn rate"] == "3 users a second"
    # edX's client brings its own tasks, think time and course: the learners' settings are not it.
    summary.update(profile="edx2015", client={"users": 3})
    found = load_table(summary)
    assert not {"think time", "task weights", "courses bought"} & set(found)
    assert found["learners"].startswith("edX's 2015 client: its own tasks")


def steps_of(markdown: str, title: str) -> list[str]:
    """The step column of a section's table (its rows' second cell for endpoints)."""
    return [line for line in section_text(markdown, title).splitlines() if line.startswith("| ")]


def test_a_one_step_run_shows_its_step_once_not_again_as_all(tmp_path):
    summary = rpm_summary()
    assert len(summary["steps"]) == 1
    text, _ = written(tmp_path / "one", summary)
    steps = steps_of(text, "Order endpoint per step (ms)")
    assert [line.split(" | ")[0] for line in steps[2:]] == ["| 600 RPM"]
    endpoints = [line.split(" | ")[:2] for line in steps_of(text, "Every endpoint per step (ms)")[2:]]
    assert endpoints == [["| /api/commerce/v0/baskets/", "600 RPM"], [f"| {synthetic.READ}", "600 RPM"]]
    printed = terminal.lines(summary)
    assert any(line.startswith("600 RPM ") for line in printed)
    assert not any(line.startswith("all ") for line in printed)
    written_run = live.Live(None, None, None, {}, [], None, 0.0, summary=summary)  # the live tab, at the end
    assert live.rows(written_run) == summary["steps"]

    p, recorder, _, log = synthetic.recorded(reads=300)  # three steps: "all" is a row of its own
    text, _ = written(tmp_path / "three", synthetic.summary_for(p, recorder, log=log))
    assert [line.split(" | ")[0] for line in steps_of(text, "Order endpoint per step (ms)")[2:]] == [
        "| 1 user",
        "| 2 users",
        "| 3 users",
        "| all",
    ]
    assert [line.split(" | ")[1] for line in steps_of(text, "Every endpoint per step (ms)")[2:]].count(
        "all"
    ) == 2


def test_a_thin_percentile_has_one_mark_explained_in_the_terminal_as_in_the_report(tmp_path):
    p, recorder, _, log = synthetic.recorded(requests=60)
    summary = synthetic.summary_for(p, recorder, log=log)
    first = summary["steps"][0]
    assert "p99" in first["thin"]
    printed = terminal.lines(summary)
    row = next(line for line in printed if line.startswith("1 user "))
    assert f" {first['p99']}†" in row and "*" not in "\n".join(printed)
    assert traffic.THIN_NOTE in printed and traffic.THIN_NOTE.startswith("† ")
    text, html = written(tmp_path, summary)
    assert f"| {first['p99']} † |" in text and traffic.THIN_NOTE in text
    assert f"{first['p99']}<sup>†</sup>" in html and escape(traffic.THIN_NOTE) in html

    # A thin p95 from the schedule alone (the order row's is not) is explained too.
    thin_schedule = rpm_summary()
    (step,) = thin_schedule["steps"]
    step["thin"] = []
    step["from_schedule"] = {"samples": 60, "p95": 500}
    assert traffic.from_schedule_cell(step)["mark"] == "thin"
    assert traffic.THIN_NOTE in terminal.lines(thin_schedule)


def test_every_count_says_what_it_counts(tmp_path):
    """The Runs page's and the live tab's requests are the order endpoint's; the findings' are
    every endpoint's; the terminal's table says whose it is."""
    summary = rpm_summary()  # orders and reads: the order endpoint's requests are not all of them
    every_endpoint = sum(e["requests"] for e in summary["overall"]["endpoints"].values())
    assert summary["overall"]["requests"] < every_endpoint
    report.write(summary, tmp_path / "a-run")
    (table,) = runs.sections([runs.line(tmp_path / "a-run")], lambda name: name)[0]["blocks"]
    headers = set(table["headers"])
    assert {"order requests", "order failures"} <= headers and not {"requests", "failures"} & headers
    assert any(f"the order endpoint's (POST {names.ORDER_ENDPOINT})" in note for note in table["notes"])
    titles = {column["title"] for column in live.step_columns(())}
    assert {"order requests (samples)", "order failures"} <= titles
    said = [f["text"] for f in findings.findings(summary)]
    assert any(f"requests of {every_endpoint} (every endpoint's) failed" in text for text in said)
    printed = terminal.lines(summary)
    assert f"The order endpoint (POST {names.ORDER_ENDPOINT}) per step, times in ms:" in printed
