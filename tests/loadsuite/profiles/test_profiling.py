"""make profile's pieces without the stack: the report section, the profile's settings and
verdict, and a run without py-spy. A real py-spy recording is in integration/test_py_spy.py,
the services' own in integration/test_profiles.py; reading the recordings and the flame graph
in tests/loadsuite/profiling/."""

import pytest

from locustfiles.suite import profiles, report
from locustfiles.suite.core import catalogue
from locustfiles.suite.profiling import collapsed, pyspy
from tests.loadsuite import synthetic
from tests.loadsuite.profiling.test_collapsed import COLLAPSED
from tests.loadsuite.report.test_report import recorded


def profiled_summary(profiling: dict) -> dict:
    p, recorder, _ = recorded()
    return synthetic.summary_for(p, recorder, {"profile_sections": ["profiling"], "profiling": profiling})


def group_figures() -> dict:
    figures = collapsed.top_frames(collapsed.read_collapsed(COLLAPSED).stacks)
    return {
        "svg": "flame-ecommerce.svg",
        "stacks": "stacks-ecommerce.txt",
        "pid": 10,
        "processes": {"11": 8, "12": 12},
        "sampled_seconds": 0.4,
        "cpu_seconds": 0.2,
        "behind_seconds": 1.5,
        "sampling_errors": 0,
        **figures,
    }


def test_the_report_links_each_flame_graph_and_shows_its_top_frames(tmp_path):
    summary = profiled_summary(
        {
            "taken": True,
            "reason": None,
            "tool": "py-spy 0.4.1",
            "rate_hz": 49,
            "seconds": 60.0,
            "groups": {"ecommerce": group_figures(), "rollup": {"error": "its process was not found"}},
        }
    )
    report.write(summary, tmp_path)
    markdown = (tmp_path / "report.md").read_text()
    html = (tmp_path / "report.html").read_text()
    assert "## Where the CPU goes" in markdown
    assert "[ecommerce flame graph (flame-ecommerce.svg)](flame-ecommerce.svg)" in markdown
    assert '<a href="flame-ecommerce.svg">' in html and '<a href="stacks-ecommerce.txt">' in html
    assert "| 1 | execute | pymysql/cursors.py:133 | 6 | 30 |" in markdown
    assert "| 5 | event loop (gevent hub) | gevent/hub.py:631 | 4 | 20 |" in markdown  # inclusive
    assert "| 1 | post | ecommerce/orders/views.py:42 | 11 | 55 |" in markdown  # our code
    assert "0.4 s sampled at 49 Hz, against 0.2 s of CPU used" in markdown
    assert "held the GIL 0.2 s longer than it ran" in markdown
    assert "fell up to 1.5 s behind in sampling" in markdown
    assert "rollup: no profile (its process was not found)." in markdown


def test_a_profile_not_taken_is_said_in_the_report_and_fails_the_run(tmp_path):
    profiling = {"taken": False, "reason": "ecommerce: py-spy is not installed", "rate_hz": 49, "groups": {}}
    summary = profiled_summary(profiling)
    checks, failures = profiles.get("profile").judge(summary, [])
    assert failures == [
        {
            "kind": "profiling",
            "about": None,
            "text": "no profile was taken: ecommerce: py-spy is not installed",
        }
    ]
    report.write(summary, tmp_path)
    assert "No profile was taken: ecommerce: py-spy is not installed." in (tmp_path / "report.md").read_text()


def test_the_profile_is_rpm_with_a_warm_up_and_a_sampling_rate():
    profile = profiles.get("profile")
    plan = profile.plan({})
    assert [(s.warm_up, s.start, s.seconds, s.target_rpm) for s in plan.steps] == [
        (True, 0, 15, 900),
        (False, 15, 60, 900),
    ]
    assert profile.rate({}) == 49 and profile.rate({"SAMPLE_HZ": "19"}) == 19
    assert profile.locustfiles({}) == ["locustfiles/rpm.py"]
    assert profile.sections == ("profiling",)
    for bad in ("0", "fast", "2000"):
        with pytest.raises(ValueError, match="SAMPLE_HZ"):
            profile.plan({"SAMPLE_HZ": bad})
    assert "profile" in catalogue.RUNNABLE


def test_without_py_spy_no_profile_is_taken_and_each_group_says_why(tmp_path, monkeypatch):
    monkeypatch.setattr(pyspy, "py_spy", lambda: None)
    recorder = pyspy.Profiler(tmp_path, tmp_path, 49)
    recorder.start(5)
    found = recorder.results()
    assert not found["taken"]
    assert set(found["groups"]) == set(pyspy.GROUPS)
    assert all("py-spy is not installed" in g["error"] for g in found["groups"].values())
    assert found["reason"].startswith("ecommerce: py-spy is not installed")
