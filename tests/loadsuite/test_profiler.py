"""make profile's pieces without the stack: reading py-spy's collapsed stacks, the top frames'
arithmetic, the flame graph SVG, the report section, the profile's settings and verdict, and
one real py-spy recording of a small process (the services' own are in test_profiles.py)."""

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter

import pytest

from locustfiles.suite import profiles, report
from locustfiles.suite.core import catalogue
from locustfiles.suite.profiling import flamegraph, pyspy, stacks
from tests.loadsuite import synthetic
from tests.loadsuite.test_reports import recorded

SVG = "{http://www.w3.org/2000/svg}"

HANDLE = "handle (gunicorn/workers/base_async.py:38)"
POST = "post (ecommerce/orders/views.py:42)"
EXECUTE = "execute (pymysql/cursors.py:133)"
FULFIL = "fulfil (ecommerce/fulfillment/api.py:62)"
SEND = "send (gevent/_socketcommon.py:712)"
HUB = "run (gevent/hub.py:631)"
WALK = "walk (ecommerce/tree.py:5)"
MASTER = 'process 10:"python -m gunicorn";'
WORKER_11 = 'process 11:"python -m gunicorn";'
WORKER_12 = 'process 12:"python -m gunicorn";'
# As py-spy writes it with --subprocesses --function: the gunicorn master, then the worker. A
# command line may hold a newline (the third stack): py-spy writes it as it is.
COLLAPSED = (
    f"{MASTER}{WORKER_11}{HANDLE};{POST};{EXECUTE} 6\n"
    f"{MASTER}{WORKER_11}{HANDLE};{POST} 2\n"
    f'{MASTER}process 12:"python -c import x\nrun()";{HANDLE};{POST};{FULFIL};{SEND} 3\n'
    f"{MASTER}{WORKER_12}{HUB} 4\n"
    f"{MASTER}{WORKER_12}{WALK};{WALK};{WALK} 5\n"
)


def test_collapsed_stacks_are_read_without_their_process_frames_and_counted_per_process():
    read = stacks.read_collapsed(COLLAPSED)
    assert read.samples == 20
    assert read.processes == Counter({11: 8, 12: 12})  # the worker's pid, never the master's
    assert read.stacks[(HUB,)] == 4
    assert read.stacks[(HANDLE, POST, FULFIL, SEND)] == 3  # its command line held a newline
    # Without --subprocesses there are no process frames.
    single = stacks.read_collapsed("a (x.py:1);b (y.py:2) 7\n")
    assert single.stacks == Counter({("a (x.py:1)", "b (y.py:2)"): 7}) and not single.processes


def test_a_frame_is_its_function_file_and_line():
    assert stacks.parse_frame("_get_response (django/core/handlers/base.py:174)") == {
        "function": "_get_response",
        "file": "django/core/handlers/base.py",
        "line": 174,
    }
    assert stacks.parse_frame("<listcomp> (<frozen abc>)") == {
        "function": "<listcomp>",
        "file": "<frozen abc>",
        "line": None,
    }
    assert stacks.is_event_loop("run (gevent/hub.py:631)")
    assert not stacks.is_event_loop("run (gevent/threadpool.py:199)")
    assert stacks.is_own_code("post (ecommerce/orders/views.py:42)")
    assert not stacks.is_own_code("post (requests/api.py:103)")


def test_top_frames_by_self_and_inclusive_samples_as_shares_of_the_group():
    figures = stacks.top_frames(stacks.read_collapsed(COLLAPSED).stacks)
    assert figures["samples"] == 20 and figures["event_loop_samples"] == 4

    def table(key):
        return [(row["frame"], row["samples"], row["percent"]) for row in figures[key]]

    assert table("top_self") == [
        ("execute (pymysql/cursors.py:133)", 6, 30.0),
        ("walk (ecommerce/tree.py:5)", 5, 25.0),
        ("run (gevent/hub.py:631)", 4, 20.0),
        ("send (gevent/_socketcommon.py:712)", 3, 15.0),
        ("post (ecommerce/orders/views.py:42)", 2, 10.0),
    ]
    assert table("top_inclusive") == [
        ("handle (gunicorn/workers/base_async.py:38)", 11, 55.0),
        ("post (ecommerce/orders/views.py:42)", 11, 55.0),
        ("execute (pymysql/cursors.py:133)", 6, 30.0),
        ("walk (ecommerce/tree.py:5)", 5, 25.0),  # recursive: once per sample, not three times
        ("run (gevent/hub.py:631)", 4, 20.0),
        ("fulfil (ecommerce/fulfillment/api.py:62)", 3, 15.0),
        ("send (gevent/_socketcommon.py:712)", 3, 15.0),
    ]
    assert table("top_own") == [
        ("post (ecommerce/orders/views.py:42)", 11, 55.0),
        ("walk (ecommerce/tree.py:5)", 5, 25.0),
        ("fulfil (ecommerce/fulfillment/api.py:62)", 3, 15.0),
    ]
    hub = next(row for row in figures["top_self"] if row["event_loop"])
    assert (hub["function"], hub["file"], hub["line"]) == ("run", "gevent/hub.py", 631)
    assert stacks.top_frames(Counter(), 10) == {
        "samples": 0,
        "event_loop_samples": 0,
        "top_self": [],
        "top_inclusive": [],
        "top_own": [],
    }


def test_how_far_py_spy_fell_behind_is_read_from_its_output():
    log = (
        "py-spy> Sampling process 49 times a second for 75 seconds. Press Control-C to exit.\n"
        "py-spy> 1.06s behind in sampling, results may be inaccurate. Try reducing the sampling rate\n"
        "py-spy> 5.93s behind in sampling, results may be inaccurate. Try reducing the sampling rate\n"
        "py-spy> 950.2ms behind in sampling, results may be inaccurate. Try reducing the sampling rate\n"
    )
    assert stacks.behind_seconds(log) == pytest.approx(5.93)
    assert stacks.behind_seconds("py-spy> Wrote raw flamegraph data. Samples: 3 Errors: 0") == 0.0


def test_the_flame_graph_is_an_svg_whose_boxes_are_as_wide_as_their_samples():
    recorded = stacks.read_collapsed(COLLAPSED).stacks
    root = ET.fromstring(flamegraph.render(recorded, "ecommerce & co", "20 samples", stacks.kind))
    assert root.tag == f"{SVG}svg"
    width = float(root.get("width"))
    boxes = {}
    for group in root.iter(f"{SVG}g"):
        boxes.setdefault(group.get("data-label"), []).append(group)
    (everything,) = boxes["all (20 samples)"]
    assert float(everything.find(f"{SVG}rect").get("width")) == pytest.approx(width - 0.5)
    (post,) = boxes["post (ecommerce/orders/views.py:42)"]  # one box: its stacks share callers
    assert float(post.get("data-w")) == pytest.approx(width * 11 / 20)
    assert post.find(f"{SVG}title").text == "post (ecommerce/orders/views.py:42): 11 samples, 55.00 %"
    assert len(boxes["walk (ecommerce/tree.py:5)"]) == 3  # recursion: one above the other
    fills = {label: g[0].find(f"{SVG}rect").get("fill") for label, g in boxes.items()}
    assert fills["run (gevent/hub.py:631)"] == "rgb(190,190,190)"
    assert fills["post (ecommerce/orders/views.py:42)"] != fills["handle (gunicorn/workers/base_async.py:38)"]
    assert root.find(f"{SVG}text").text == "ecommerce & co"
    empty = ET.fromstring(flamegraph.render(Counter(), "rollup"))
    assert "No samples were recorded." in "".join(empty.itertext())


def profiled_summary(profiling: dict) -> dict:
    p, recorder, _ = recorded()
    return synthetic.summary_for(p, recorder, {"profile_sections": ["profiling"], "profiling": profiling})


def group_figures() -> dict:
    figures = stacks.top_frames(stacks.read_collapsed(COLLAPSED).stacks)
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
    checks, reasons = profiles.get("profile").judge(summary, [])
    assert reasons == ["no profile was taken: ecommerce: py-spy is not installed"]
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


SPINNER = """
import time


def spin(until):
    while time.time() < until:
        sum(range(1000))


spin(time.time() + 30)
"""


def test_a_real_recording_of_a_busy_process_names_its_function(tmp_path):
    """py-spy on a small Python process (as the rollup group: its pid file), stopped by SIGINT
    after a second: the stacks file, the SVG and the top frame; the groups whose processes are
    not running say so, and no py-spy is left running."""
    script = tmp_path / "spinner.py"
    script.write_text(SPINNER)
    spinner = subprocess.Popen([sys.executable, str(script)], cwd=tmp_path)
    try:
        (tmp_path / "run").mkdir()
        (tmp_path / "run" / "rollup.pid").write_text(f"{spinner.pid}\n")
        recorder = pyspy.Profiler(tmp_path, tmp_path, 49)
        recorder.start(20)
        import time

        time.sleep(1.5)
        found = recorder.results()
    finally:
        spinner.kill()
        spinner.wait()
    assert all(not r.running for r in recorder.recordings.values())
    rollup = found["groups"]["rollup"]
    assert found["taken"] and rollup["samples"] > 10, (rollup, (tmp_path / "py-spy-rollup.log").read_text())
    assert rollup["top_self"][0]["function"] in ("spin", "<module>")
    assert any(row["function"] == "spin" and row["file"] == "spinner.py" for row in rollup["top_inclusive"])
    assert ET.parse(tmp_path / "flame-rollup.svg").getroot().tag == f"{SVG}svg"
    assert (tmp_path / "stacks-rollup.txt").read_text().count("spin (spinner.py:") >= 1
    assert "its process was not found" in found["groups"]["ecommerce"]["error"]
    assert os.path.exists(tmp_path / "py-spy-rollup.log")
