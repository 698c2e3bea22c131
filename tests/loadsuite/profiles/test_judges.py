"""Issue 30, item 4: a profile's judging reads the summary and writes nothing into it; what a
profile adds (capacity, the overload's and the soak's figures) comes from its figures() hook,
computed by figures/, before it is judged."""

import copy

import pytest

from locustfiles.suite import profiles
from locustfiles.suite.core import thresholds
from tests.loadsuite import synthetic

RUNS = {
    "capacity": {"RPM": "600 1200 1800", "STEP_SECONDS": "10"},
    "overload": {"RPM": "300", "DURATION": "10", "WARMUP_SECONDS": "0"},
    "soak": {"HOURS": "0.01", "BUCKET_SECONDS": "12", "WARMUP_SECONDS": "5"},
    "ramp": {},
    "rpm": {},
}


def summary_of(name: str) -> dict:
    p, recorder, *_ = synthetic.recorded(name, RUNS[name])
    return synthetic.summary_for(p, recorder, {"profile_sections": list(profiles.get(name).sections)})


@pytest.mark.parametrize("name", sorted(RUNS))
def test_judging_writes_nothing_into_the_summary(name):
    profile = profiles.get(name)
    rules = thresholds.parse(profile.thresholds)
    summary = summary_of(name)
    summary.update(profile.figures(summary, rules, {}))  # as run/summary.judged calls it
    before = copy.deepcopy(summary)
    profile.judge(summary, rules)
    assert summary == before


@pytest.mark.parametrize(
    ("name", "keys"),
    [
        ("capacity", {"capacity_rpm", "capacity_steps_held", "capacity_search", "ceiling", "scalability"}),
        ("overload", {"overload"}),
        ("soak", {"trend"}),
        ("ramp", set()),
    ],
)
def test_each_profiles_figures_are_its_own_keys(name, keys):
    profile = profiles.get(name)
    assert set(profile.figures(summary_of(name), thresholds.parse(profile.thresholds), {})) == keys
