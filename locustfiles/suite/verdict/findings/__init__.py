"""The findings a report opens with: plain sentences written from a run's summary, the way a
performance engineer would summarise it (where p95 rose and by how much, what broke which
threshold, what failed with which status, which process was busiest, whether the load
generator itself was the limit, which statements used no index, which percentiles rest on
too few samples).

A finding only says what the data says; when a measurement is missing, the finding says it
is missing. Levels: "problem" (the run failed or its figures cannot be trusted), "warning"
(worth a look), "info".

What a real change is (the noise floor) is verdict/noise.py's, shared with the comparisons.
"""

from locustfiles.suite.core.summary import Finding, Summary
from locustfiles.suite.verdict.findings.machine import (
    NEAR_FULL_CORE,
    busiest_process_findings,
    cpu_findings,
    from_schedule_findings,
    index_findings,
    load_generator,
    load_generator_findings,
    missed_findings,
    shared_machine_findings,
    shed_machine_findings,
    thin_findings,
)
from locustfiles.suite.verdict.findings.outcome import (
    audit_findings,
    capacity_findings,
    error_findings,
    p95_findings,
    verdict_findings,
    warm_up_findings,
)
from locustfiles.suite.verdict.findings.words import SoFar

__all__ = [
    "LEVELS",
    "NEAR_FULL_CORE",
    "load_generator",
    "findings",
    "so_far",
    "verdict_findings",
    "error_findings",
]

LEVELS = ("problem", "warning", "info")


def findings(summary: Summary) -> list[Finding]:
    """[{"level", "text"}], problems first."""
    found = [
        *verdict_findings(summary),
        *warm_up_findings(summary),
        *capacity_findings(summary),
        *p95_findings(summary),
        *error_findings(summary),
        *shed_machine_findings(summary),
        *audit_findings(summary),
        *load_generator_findings(summary),
        *busiest_process_findings(summary),
        *shared_machine_findings(summary),
        *cpu_findings(summary),
        *index_findings(summary),
        *thin_findings(summary),
        *missed_findings(summary),
        *from_schedule_findings(summary),
    ]
    return _ranked(found)


def so_far(summary: SoFar) -> list[Finding]:
    """The findings a running run's rows already support (its steps that ended, and the run so
    far as "overall"): those read from the steps and the run's endpoints alone, problems first.
    The rest need what only the end has (the audit, the verdict, the readings of the run)."""
    found = [
        *p95_findings(summary),
        *error_findings(summary),
        *thin_findings(summary),
        *missed_findings(summary),
        *from_schedule_findings(summary),
    ]
    return _ranked(found)


def _ranked(found: list[Finding]) -> list[Finding]:
    """Problems first, then warnings, then information; each level in the order found."""
    return sorted(found, key=lambda f: LEVELS.index(f["level"]))
