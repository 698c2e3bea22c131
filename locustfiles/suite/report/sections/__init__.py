"""The report as data: one function per section, each reading the summary once and returning
a section ({"id", "title", "blocks"}) or None when the run has nothing for it. The blocks are
the suite's one report model (locustfiles/suite/core/blocks.py); the templates turn them into
HTML and Markdown.
"""

from locustfiles.suite.core.summary import Finding, Summary
from locustfiles.suite.report.sections.endurance import soak
from locustfiles.suite.report.sections.faults import reliability
from locustfiles.suite.report.sections.hotspots import profiling
from locustfiles.suite.report.sections.limits import capacity, overload
from locustfiles.suite.report.sections.machine import (
    cpu_per_purchase,
    load_balancer,
    load_generator,
    resources,
)
from locustfiles.suite.report.sections.outcome import audit, client, thresholds
from locustfiles.suite.report.sections.storage import database, sql
from locustfiles.suite.report.sections.top import header, provenance
from locustfiles.suite.report.sections.traffic import endpoints, errors, steps, time_split_section, timeline

PROFILE_SECTIONS = {
    "capacity": capacity,
    "soak": soak,
    "reliability": reliability,
    "client": client,
    "profiling": profiling,
    "overload": overload,
}


def build(summary: Summary, findings: list[Finding]) -> dict:
    """The whole report as data, in reading order."""
    chosen = [PROFILE_SECTIONS[name](summary) for name in summary.get("profile_sections", [])]
    parts = [
        provenance(summary),
        steps(summary),
        timeline(summary),
        *chosen,
        endpoints(summary),
        errors(summary),
        time_split_section(summary),
        resources(summary),
        cpu_per_purchase(summary),
        load_generator(summary),
        load_balancer(summary),
        database(summary),
        sql(summary),
        audit(summary),
        thresholds(summary),
    ]
    return {"header": header(summary), "findings": findings, "sections": [p for p in parts if p]}
