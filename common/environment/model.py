"""What the table is made of: a variable (name, default, kind, meaning), the section of the
configuration guide it is listed under, and the errors a reader raises."""

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

KINDS = ("str", "int", "float", "bool", "list")
PLACEHOLDER = re.compile(r"\{([A-Z][A-Z0-9_]*)\}")
# Names a default may use that are not variables: the checkout this package is in.
BUILTINS = {"ROOT": str(ROOT)}


class BadSetting(ValueError):
    """A variable's value that cannot be read as its kind; the message names the variable."""

    def __init__(self, name: str, message: str):
        super().__init__(message)
        self.name = name


class UnknownVariable(KeyError):
    """A name that is not in the table: add it there, with its default and meaning."""

    def __str__(self) -> str:
        return f"{self.args[0]} is not in the table of common/environment"


@dataclass(frozen=True)
class Variable:
    name: str
    # As the environment would hold it ("13306", "true", "127.0.0.1,localhost"), with {NAME}
    # placeholders; None: no default (unset reads as None, or the reader computes one: shown).
    default: str | None
    kind: str
    description: str
    # scripts/lib.sh exports it (its shell form); the others only the Python readers apply.
    shell: bool = False
    # What the markdown table shows as the default, when it is not the default's text.
    shown: str | None = None
    # The default under settings.production, when a deployment must not have the developer's
    # (readers given production=True); no placeholders.
    production: str | None = None

    @property
    def references(self) -> list[str]:
        return PLACEHOLDER.findall(self.default or "")


@dataclass(frozen=True)
class Section:
    """A part of the table: one heading and one table of docs/configuration.md."""

    title: str
    variables: tuple[Variable, ...]
