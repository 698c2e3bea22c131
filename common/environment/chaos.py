"""The timings of `make chaos`: which faults, and how long each lasts (docs/load-runs.md, "Faults")."""

from common.environment.model import Section, Variable

SECTION = Section(
    "Chaos timings",
    (
        Variable(
            "FAULTS",
            None,
            "str",
            "the faults `make chaos` injects, in this order (comma- or space-separated)",
            shown="all",
        ),
        Variable(
            "PHASE_SECONDS", None, "int", "seconds of each fault's step", shown="per profile (`make help`)"
        ),
        Variable(
            "FAULT_SECONDS",
            None,
            "int",
            "seconds each fault lasts within its step (after a fifth of it; at least 1)",
            shown="a quarter of a step, at least 2 s",
        ),
    ),
)
