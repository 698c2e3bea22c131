"""`make help`, run as a user runs it: each profile's line states its defaults from the profile."""

import subprocess

from locustfiles.suite import profiles
from locustfiles.suite.core import catalogue
from tests.loadsuite.runs import ROOT

COLUMN = " " * 24  # where a description goes on when it wraps


def described(lines: list[str], name: str) -> list[str]:
    """The lines of ``make name``'s description: its own and those that go on in the column."""
    first = next(i for i, line in enumerate(lines) if line.strip().startswith(f"make {name} "))
    rest = lines[first + 1 :]
    ends = next((i for i, line in enumerate(rest) if not line.startswith(COLUMN)), len(rest))
    return [lines[first], *rest[:ends]]


def test_make_help_states_each_profiles_defaults_from_the_profile():
    done = subprocess.run(["make", "help"], cwd=ROOT, capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    for name in catalogue.RUNNABLE:
        profile = profiles.get(name)
        own = described(lines, name)
        said = " ".join(line.strip() for line in own)
        for key, default in profile.defaults.items():
            if default:
                assert f"{key} ({default})" in said, said
        assert all(len(line) <= 110 for line in own), own  # wrapped, not left to the terminal
