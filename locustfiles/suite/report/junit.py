"""junit.xml: a run's verdict as a JUnit report, the file CI systems read (k6, Gatling and
JMeter hand CI the same).

Like report.md, it renders the summary and reads nothing else. Every check the verdict holds is
a test case: each threshold on its scope, the audit's "nothing lost", and the profile's own
(chaos's faults, capacity's search, overload's orders left by refusals). Every failure of the
verdict that no such failed case claims (by its kind and what it is about, never its words)
becomes a failed case of its own, and a failed verdict with no failed case gets an errored one:
CI never reads a failed run as a pass.
"""

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from locustfiles.suite.core.blocks import fmt
from locustfiles.suite.core.summary import (
    AUDIT,
    CAPACITY,
    FAULT,
    OVERLOAD,
    THRESHOLDS,
    THRESHOLDS_AT_BROKE_STEP,
    Summary,
    Verdict,
)
from locustfiles.suite.core.text import plural
from locustfiles.suite.figures import results

__all__ = ["FILE", "cases", "render", "write"]

FILE = "junit.xml"
WHOLE_RUN = "whole run"
# Characters XML 1.0 cannot carry: an exception's text in the audit's error may hold them.
UNWRITABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


@dataclass
class Case:
    """One test case: passed when ``outcome`` is None, else "failure", "error" or "skipped"
    with a one-line ``message`` and the figures behind it in ``detail``."""

    group: str  # the classname's last part: thresholds, audit, or the profile's name
    name: str
    outcome: str | None = None
    message: str = ""
    detail: str = ""
    claims: tuple[tuple[str, str | None], ...] = ()  # the (kind, about) of the failures it shows


def cases(summary: Summary) -> list[Case]:
    """The run's test cases, in the order the report gives its verdict."""
    verdict = summary.get("verdict")
    if not verdict:
        return [Case("verdict", "verdict", "error", "the summary holds no verdict")]
    found = _thresholds(summary, verdict) + [_audit(summary)] + _profile_cases(summary, verdict)
    claimed = {claim for case in found if case.outcome in ("failure", "error") for claim in case.claims}
    found += [
        Case(summary.get("profile") or "verdict", failure["text"], "failure", failure["text"])
        for failure in verdict.get("failures") or []
        if (failure["kind"], failure["about"]) not in claimed
    ]
    if not verdict.get("passed") and not any(c.outcome in ("failure", "error") for c in found):
        found.append(Case("verdict", "verdict", "error", "the run failed and gave no reason"))
    return found


def render(summary: Summary) -> bytes:
    """junit.xml's bytes: one <testsuites> holding one <testsuite> for the run."""
    found = cases(summary)
    profile = summary.get("profile") or "unknown"
    counts = {
        "tests": str(len(found)),
        "failures": str(sum(c.outcome == "failure" for c in found)),
        "errors": str(sum(c.outcome == "error" for c in found)),
        "skipped": str(sum(c.outcome == "skipped" for c in found)),
        "time": fmt(float(summary.get("seconds") or 0)),
    }
    root = ET.Element("testsuites", {"name": f"load run: {profile}", **counts})
    suite = ET.SubElement(root, "testsuite", {"name": f"load run: {profile}", **counts})
    if summary.get("started"):
        suite.set("timestamp", str(summary["started"]))
    properties = ET.SubElement(suite, "properties")
    verdict = summary.get("verdict") or {}
    for name, value in (
        ("profile", profile),
        ("started_from", summary.get("started_from")),
        ("verdict", "PASS" if verdict.get("passed") else "FAIL"),
    ):
        if value is not None:
            ET.SubElement(properties, "property", {"name": name, "value": _clean(str(value))})
    for case in found:
        element = ET.SubElement(
            suite, "testcase", {"classname": f"loadrun.{profile}.{case.group}", "name": _clean(case.name)}
        )
        if case.outcome:
            outcome = ET.SubElement(element, case.outcome, {"message": _clean(case.message)})
            outcome.text = _clean(case.detail) or None
        elif case.detail:
            ET.SubElement(element, "system-out").text = _clean(case.detail)
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


def write(summary: Summary, folder: Path) -> Path:
    path = Path(folder) / FILE
    path.write_bytes(render(summary))
    return path


def _thresholds(summary: Summary, verdict: Verdict) -> list[Case]:
    """Each threshold check on its scope. A capacity run's checks are those of the step that
    broke above capacity: a broken one there is what capacity measures, so it is skipped, not
    failed (capacity's own case fails when no step held)."""
    capacity = verdict.get("thresholds_at") == THRESHOLDS_AT_BROKE_STEP
    row = results.broke_row(summary) if capacity else None
    step = _step_name(summary, row) if row else None
    found = []
    for check in verdict.get("thresholds") or []:
        scope = check.get("scope") or step or WHOLE_RUN
        name = f"{check['threshold']} ({scope})"
        measured = "no data" if check.get("value") is None else f"measured {fmt(check['value'])}"
        if check.get("ok"):
            found.append(Case("thresholds", name, detail=f"{name}: {measured}"))
        elif capacity:
            message = f"{name}: {measured}, at the step that broke: capacity is below it"
            found.append(Case("thresholds", name, "skipped", message))
        else:
            claims = ((THRESHOLDS, check.get("scope")),)
            found.append(Case("thresholds", name, "failure", f"{name}: {measured}", claims=claims))
    return found


def _audit(summary: Summary) -> Case:
    """The audit's "nothing lost": every answered purchase committed once and enrolled."""
    audit = summary.get("audit") or {}
    name = "audit: nothing lost"
    figures = ", ".join(
        f"{key} {fmt(audit.get(key))}"
        for key in ("successes", "orders", "enrollments", "lost", "duplicates", "partial", "unanswered")
        if key in audit
    )
    if audit.get("passed"):
        return Case("audit", name, detail=figures)
    claims = ((AUDIT, None),)
    if audit.get("error") or not audit:
        message = f"the audit could not run: {audit.get('error') or 'the summary holds none'}"
        return Case("audit", name, "error", message, figures, claims)
    failures = (summary.get("verdict") or {}).get("failures") or []
    told = next((f["text"] for f in failures if f["kind"] == AUDIT), None)
    message = (
        told or f"audit failed: lost {fmt(audit.get('lost'))}, duplicates {fmt(audit.get('duplicates'))}"
    )
    return Case("audit", name, "failure", message, figures, claims)


def _profile_cases(summary: Summary, verdict: Verdict) -> list[Case]:
    """The profile's own checks, as its judging reads them from the summary."""
    profile = summary.get("profile") or "profile"
    found = []
    for row in summary.get("reliability") or []:
        step = _step_name(summary, next((r for r in summary["steps"] if r["index"] == row["index"]), None))
        name = f"fault {row['fault']} ({step})"
        lines = [f"{c['check']}: {'ok' if c['ok'] else 'FAILED'} ({c['detail']})" for c in row["checks"]]
        broken = [f"{c['check']} ({c['detail']})" for c in row["checks"] if not c["ok"]]
        if row["passed"]:
            found.append(Case(profile, name, detail="\n".join(lines)))
        else:
            message = f"{row['fault']}: " + ", ".join(broken)
            found.append(Case(profile, name, "failure", message, "\n".join(lines), ((FAULT, row["fault"]),)))
    if verdict.get("thresholds_at") == THRESHOLDS_AT_BROKE_STEP:
        name = "capacity: a step held every threshold"
        held = summary.get("capacity_rpm")
        if held is None:
            found.append(
                Case(profile, name, "failure", "no step held the thresholds", claims=((CAPACITY, None),))
            )
        else:
            found.append(Case(profile, name, detail=f"capacity {fmt(held)} RPM"))
    if "overload" in summary:
        name = "overload: refusals left no committed order"
        left = (summary["overload"] or {}).get("orders_left_by_refusals")
        if left:
            message = f"{plural(left, 'order')} committed for purchases that were not answered 2xx"
            found.append(Case(profile, name, "failure", message, claims=((OVERLOAD, None),)))
        else:
            found.append(Case(profile, name, detail=f"orders left by refusals: {fmt(left)}"))
    return found


def _step_name(summary: Summary, row: Mapping[str, Any] | None) -> str:
    """ "step 2: 600 RPM": the step's place among the run's measured steps, and its label."""
    if row is None:
        return "step unknown"
    place = next((n for n, r in enumerate(summary.get("steps") or [], 1) if r is row), None)
    return f"step {place}: {row.get('label')}" if place else f"step {row.get('label')}"


def _clean(text: str) -> str:
    return UNWRITABLE.sub("", text)
