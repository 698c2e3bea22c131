"""The markdown form: one table per section, as docs/configuration.md shows them
(tests/unit/test_environment.py keeps them equal), and the load runs' lines of `make help`."""

from common.environment.model import PLACEHOLDER, Section, Variable
from common.environment.table import SECTIONS

HEADER = ["| variable | default | kind | meaning |", "| --- | --- | --- | --- |"]
# The sections `make help` lists after the load profiles.
HELP_SECTIONS = ("Load runs", "Thresholds and the noise floor", "Chaos timings")


def _shown(variable_: Variable) -> str:
    if variable_.shown is not None:
        shown = variable_.shown
    elif variable_.default is None:
        raise ValueError(f"{variable_.name} has no default and says nothing to show for one")
    else:
        text = variable_.default.replace("{ROOT}/", "")
        shown = "`" + PLACEHOLDER.sub(lambda m: "$" + m.group(1), text) + "`"
    if variable_.production is not None:
        shown += f" (settings.production: `{variable_.production}`)"
    return shown


def section_table(section: Section) -> list[str]:
    rows = [
        f"| `{v.name}` | {_shown(v)} | {v.kind} | {v.description.replace('|', '∣')} |"
        for v in section.variables
    ]
    return [f"### {section.title}", "", *HEADER, *rows, ""]


def markdown() -> str:
    """Every section's table under its heading, in the table's order."""
    lines = [line for section in SECTIONS for line in section_table(section)]
    return "\n".join(lines)


def _first_clause(description: str) -> str:
    return description.split("; ")[0].split(" (")[0]


def _asked(variable_: Variable) -> bool:
    """Whether a person sets it (the suite sets a few for its own processes)."""
    return not variable_.description.startswith("set by the suite")


def help_lines() -> str:
    """`make help`'s list of the load runs' variables: name and meaning, one a line."""
    lines = []
    for section in SECTIONS:
        if section.title in HELP_SECTIONS:
            lines += [
                # in the column of the Makefile's targets ("make " and 16)
                f"  {v.name:<21} {_first_clause(v.description)}"
                for v in section.variables
                if _asked(v)
            ]
    return "\n".join(lines) + "\n"
