"""`make help`'s lines for the load runs: each profile's own line, and what each setting takes.

Standard library and ``common`` only, as the catalogue: the system python3 prints them before
the virtualenv exists.

    python3 -m locustfiles.suite.core.help            the profiles, with their defaults
    python3 -m locustfiles.suite.core.help --bounds   each setting's kind, unit and bounds
    python3 -m locustfiles.suite.core.help --make     the Makefile's lists: its profile targets
                                                      and the settings it passes to the runs
"""

import re
import sys
import textwrap

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


def make_lists() -> str:
    """One word per profile target (profile:NAME) and per setting the targets export
    (setting:NAME), which the Makefile sorts apart with $(filter): read once per make."""
    return " ".join([*(f"profile:{name}" for name in RUNNABLE), *(f"setting:{name}" for name in SIZES)])


def main(argv: list[str]) -> int:
    if argv == ["--make"]:
        print(make_lists())
    else:
        print("\n".join(bounds_lines() if argv == ["--bounds"] else profile_lines()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
