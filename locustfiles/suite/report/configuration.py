"""The configuration that differs between two runs, as rows of text (setting, A, B): the run's
settings as it resolved them (summary.json's ``settings``, from schema 7 on), then the stack's
configuration (``config``: the services' settings, the database the run started on). A nested
value is a row of its own named by its path ("database_at_start.size_mb"), a list reads as
make takes it ("1 2 3"): a reader never sees a Python structure."""

from locustfiles.suite.core.blocks import DASH, fmt
from locustfiles.suite.core.settings import SETTINGS
from locustfiles.suite.core.summary import Summary

ORDER = {name: i for i, name in enumerate(SETTINGS)}
DASH_NOTE = "– the run has no value for it: its profile does not take it, or it did not record it."


def shown(value) -> str:
    """A value as text: a list as its items apart, a mapping as name: value pairs."""
    if isinstance(value, list | tuple):
        return " ".join(shown(v) for v in value) or DASH
    if isinstance(value, dict):
        return ", ".join(f"{k}: {shown(v)}" for k, v in value.items()) or DASH
    return fmt(value)


def flat(values: dict, prefix: str = "") -> dict:
    """Nested mappings as one, each value named by its path."""
    out = {}
    for key, value in values.items():
        if isinstance(value, dict) and value:
            out.update(flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def _resolved(summary: Summary) -> dict | None:
    found = summary.get("settings")
    return None if found is None else dict(found.get("resolved") or {})


def _rows(found_a: dict, found_b: dict) -> list[list[str]]:
    """(name, A, B) where the two differ as text, in A's order then B's (settings: in the
    registry's order, the plan's sizes first)."""

    def value(found: dict, name: str) -> str:
        return shown(found[name]) if name in found else DASH

    names = sorted(dict.fromkeys([*found_a, *found_b]), key=lambda name: ORDER.get(name, len(ORDER)))
    rows = [[name, value(found_a, name), value(found_b, name)] for name in names]
    return [row for row in rows if row[1] != row[2]]


def differing(a: Summary, b: Summary) -> list[list[str]]:
    """The settings (where both runs recorded them), then the stack's configuration, where runs
    ``a`` and ``b`` differ."""
    settings_a, settings_b = _resolved(a), _resolved(b)
    return [
        *(_rows(settings_a, settings_b) if settings_a is not None and settings_b is not None else []),
        *_rows(flat(a.get("config") or {}), flat(b.get("config") or {})),
    ]


def notes(a: Summary, b: Summary, rows: list[list[str]]) -> list[str]:
    """What the table leaves out and what its dashes mean."""
    older = [name for name, summary in (("A", a), ("B", b)) if _resolved(summary) is None]
    found = []
    if older:
        runs = "is a run" if len(older) == 1 else "are runs"
        found.append(
            f"{' and '.join(older)} {runs} from before summaries recorded their settings (schema 7): "
            "the settings are not compared, only the stack's configuration."
        )
    if any(DASH in row[1:] for row in rows):
        found.append(DASH_NOTE)
    return found
