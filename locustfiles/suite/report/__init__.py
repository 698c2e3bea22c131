"""Writing a run's folder: summary.json, junit.xml (for CI: report/junit.py), report.md,
report.html and PNG plots.

The report opens the way a professional load report does: the verdict, then findings in plain
sentences, then what ran on what (provenance), then the tables (one row per step like the 2015
tables, every endpoint, errors by status, resources, the load generator, the database, the
SQL, the audit, the thresholds). It is data collected once (``sections.build``: blocks of the
report model, core/blocks.py) and rendered by two Jinja2 templates, the HTML one through the
block macro it shares with compare.html and the Markdown one through the blocks' own Markdown,
so the HTML and the Markdown never disagree.
"""

import json
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from locustfiles.suite.core import blocks
from locustfiles.suite.core.summary import Summary
from locustfiles.suite.report import junit, plots, sections
from locustfiles.suite.verdict import findings as findings_

__all__ = ["write", "render", "context"]

TEMPLATES = Path(__file__).parent / "templates"


def _environment(autoescape: bool) -> Environment:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=autoescape,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["markdown"] = blocks.markdown
    return env


HTML, MARKDOWN = _environment(True), _environment(False)


def context(summary: Summary, folder: Path) -> dict:
    """The report's data, with its plots drawn into ``folder`` (a plot the run has no data for
    is left out)."""
    found = summary["findings"] if "findings" in summary else findings_.findings(summary)
    built = sections.build(summary, found)
    for part in built["sections"]:
        part["blocks"] = [
            block
            for block in part["blocks"]
            if block["kind"] != "image" or plots.draw(summary, block["file"], folder)
        ]
    return built


def render(built: dict, folder: Path) -> tuple[str, str]:
    """(HTML, Markdown) of a built report; the HTML carries its plots inline."""

    def inline(file: str) -> str:
        return plots.data_uri((folder / file).read_bytes())

    html = HTML.get_template("report.html.j2").render(report=built, inline=inline)
    markdown = MARKDOWN.get_template("report.md.j2").render(report=built)
    return html, markdown


def write(summary: Summary, folder: Path) -> None:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
    junit.write(summary, folder)
    html, markdown = render(context(summary, folder), folder)
    (folder / "report.md").write_text(markdown)
    (folder / "report.html").write_text(html)
