"""`make help`, run as a user runs it: each profile's line states its defaults from the profile."""

import subprocess

from locustfiles.suite import profiles
from locustfiles.suite.core import catalogue
from tests.loadsuite.runs import ROOT


def test_make_help_states_each_profiles_defaults_from_the_profile():
    done = subprocess.run(["make", "help"], cwd=ROOT, capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    for name in catalogue.RUNNABLE:
        profile = profiles.get(name)
        first = next(i for i, line in enumerate(lines) if line.strip().startswith(f"make {name} "))
        # Its description, wrapped: the lines that go on in the column below it.
        rest = [line.strip() for line in lines[first + 1 :]]
        said = " ".join(
            [
                lines[first],
                *rest[
                    : next(i for i, line in enumerate(lines[first + 1 :]) if not line.startswith(" " * 24))
                ],
            ]
        )
        for key, default in profile.defaults.items():
            if default:
                assert f"{key} ({default})" in said, said
        assert all(len(line) <= 110 for line in lines if line.startswith("  make ")), name
