"""`make help`, run as a user runs it: each profile's line states its defaults from the profile."""

import subprocess

from locustfiles.suite import profiles
from locustfiles.suite.core import catalogue
from tests.loadsuite.runs import ROOT


def test_make_help_states_each_profiles_defaults_from_the_profile():
    done = subprocess.run(["make", "help"], cwd=ROOT, capture_output=True, text=True, check=True)
    for name in catalogue.RUNNABLE:
        profile = profiles.get(name)
        line = next(line for line in done.stdout.splitlines() if line.strip().startswith(f"make {name} "))
        for key, default in profile.defaults.items():
            if default:
                assert f"{key} ({default})" in line, line
