"""Issue 43: the report says only what is true of the run it reports: whose statements its SQL
sections list. Synthetic summaries (tests/loadsuite/synthetic.py)."""

from markupsafe import escape

from locustfiles.suite import report
from locustfiles.suite.report.sections import storage
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
