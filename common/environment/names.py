"""Names given on make's command line, checked against the table: a misspelled variable
(``make rpm RMP=100``) would otherwise be ignored without a word, and the run would take the
default. Each unknown name is refused with the nearest known one."""

import difflib
from collections.abc import Iterable

from common.environment.table import VARIABLES

# Not the project's, but read by the tools its targets run (make test's pytest).
TOOLS = ("PYTEST_ADDOPTS",)


def nearest(name: str, known: Iterable[str]) -> str | None:
    """The known name closest to ``name`` (case aside), if one is close enough."""
    near = difflib.get_close_matches(name.upper(), list(known), n=1, cutoff=0.6)
    return near[0] if near else None


def hint(name: str, known: Iterable[str]) -> str:
    """'did you mean RPM?', or where the names are listed."""
    near = nearest(name, known)
    return f"did you mean {near}?" if near else "`make help` and docs/configuration.md list them"


def refusal(name: str, known: Iterable[str]) -> str:
    """'RMP: no such setting; did you mean RPM?'"""
    return f"{name}: no such setting; {hint(name, known)}"


def unknown(names: Iterable[str]) -> list[str]:
    """A refusal for each of ``names`` that is neither the table's nor a tool's."""
    known = (*VARIABLES, *TOOLS)
    return [refusal(name, known) for name in names if name not in known]
