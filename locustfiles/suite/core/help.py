"""`make help`'s lines for the load runs: each profile's own line, and what each setting takes.

Standard library and ``common`` only, as the catalogue: the system python3 prints them before
the virtualenv exists.

    python3 -m locustfiles.suite.core.help            the profiles, with their defaults
    python3 -m locustfiles.suite.core.help --bounds   each setting's kind, unit and bounds
    python3 -m locustfiles.suite.core.help --write    make/load-runs.mk, the Makefile's lists
                                                      (--check: exit 1 if it is stale)
"""

import re
import sys
import textwrap
from pathlib import Path

from common.environment.load import SIZES
from locustfiles.suite.core.catalogue import RUNNABLE, get
from locustfiles.suite.core.learner_settings import help_line
from locustfiles.suite.core.settings import SETTINGS

COLUMN = 24  # where the Makefile's descriptions start ("  make ", a 16-character name, a space)
WIDTH = 110  # a line of `make help`, wrapped at a space into the column below
KEEP = "\u00a0"  # a space not to wrap at


def wrapped(start: str, text: str) -> list[str]:
    """``start`` (padded to the column) and ``text``, in lines of WIDTH at most; a variable and
    its default in parentheses stay on one line."""
    kept = re.sub(r"([A-Z][A-Z0-9_]*) \(", rf"\1{KEEP}(", text)
    lines = textwrap.wrap(
        kept,
        WIDTH,
        initial_indent=start.ljust(COLUMN),
        subsequent_indent=" " * COLUMN,
        break_on_hyphens=False,
    )
    return [line.replace(KEEP, " ") for line in lines]


def profile_lines() -> list[str]:
    lines = [line for name in RUNNABLE for line in wrapped(f"  make {name}", get(name).help_line())]
    lines += wrapped("", f"any of them with {help_line()}")
    lines += wrapped("", "any of them with PRELOAD=N: on a database preloaded to N purchases first")
    return lines


def bounds_lines() -> list[str]:
    """Each setting, what it takes (core/settings.py), and which profiles take several values."""
    lines = []
    for name, entry in SETTINGS.items():
        several = [profile for profile in RUNNABLE if name in get(profile).lists]
        also = f" ({', '.join(several)}: up to {entry.most} of them)" if several else ""
        lines.append(f"  {name:<21} {entry.expects()}{also}")
    return lines


# The Makefile's lists, written from the catalogue and the table into a file it includes: a
# fresh machine has no python3 until make's first target has bootstrapped it, so the Makefile
# cannot ask for them as it reads itself. `make lint` checks the file is what they give.
MAKE_FILE = Path(__file__).resolve().parents[3] / "make" / "load-runs.mk"


def make_lists() -> str:
    """make/load-runs.mk: the profiles' targets and the settings the targets pass to the runs."""
    return (
        "# Written by `python3 -m locustfiles.suite.core.help --write` from the catalogue of profiles\n"
        "# (locustfiles/suite/core/catalogue.py) and the load runs' settings (common/environment/load.py);\n"
        "# `make lint` fails when it is stale. Never edited by hand.\n"
        f"PROFILES := {' '.join(RUNNABLE)}\n"
        f"LOAD_SETTINGS := {' '.join(SIZES)}\n"
    )


def main(argv: list[str]) -> int:
    if argv == ["--write"]:
        MAKE_FILE.write_text(make_lists())
    elif argv == ["--check"]:
        if MAKE_FILE.read_text() != make_lists():
            print(f"{MAKE_FILE}: stale; run python3 -m locustfiles.suite.core.help --write", file=sys.stderr)
            return 1
    else:
        print("\n".join(bounds_lines() if argv == ["--bounds"] else profile_lines()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
