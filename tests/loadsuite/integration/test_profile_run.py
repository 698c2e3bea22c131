"""make profile, seconds long, against the load suite's real stack (conftest.py): py-spy on each
process group during the measured step, the flame graphs and top frames in the run folder and
the report, and every py-spy stopped, also when the run is interrupted."""

import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import psutil
import pytest

from locustfiles.suite.profiling.collapsed import OWN_CODE
from tests.loadsuite.runs import ROOT, assert_nothing_lost, run
from tests.support.summaries import read_summary

pytestmark = pytest.mark.slow


def py_spies(folder: Path) -> list[psutil.Process]:
    """The py-spy processes recording into ``folder``."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        cmdline = process.info["cmdline"] or []
        if cmdline and cmdline[0].endswith("py-spy") and any(str(folder) in arg for arg in cmdline):
            found.append(process)
    return found


def test_a_profile_run_writes_each_services_flame_graph_and_top_frames(stack_env):
    # Latency is not what this run is judged by: the machine may be busy with other tests.
    code, folder, summary = run(
        stack_env, "profile", RPM=300, DURATION=6, WARMUP_SECONDS=2, SAMPLE_HZ=99, THRESHOLDS="errors<0.01"
    )
    assert code == 0, summary["verdict"]  # a profile not taken would fail the run
    assert_nothing_lost(summary)
    found = summary["profiling"]
    assert found["taken"] and found["rate_hz"] == 99
    assert 5 <= found["seconds"] <= 8  # the measured step only, not the warm-up
    assert set(found["groups"]) == {"ecommerce", "lms_stub", "rollup", "locust"}
    for group, figures in found["groups"].items():
        assert "error" not in figures, (group, figures)
        svg = ET.parse(folder / figures["svg"]).getroot()
        assert svg.tag == "{http://www.w3.org/2000/svg}svg" and figures["svg"] == f"flame-{group}.svg"
        assert (folder / figures["stacks"]).exists()
        assert figures["behind_seconds"] < 1.0, (group, (folder / f"py-spy-{group}.log").read_text())
    for group, own in (("ecommerce", "ecommerce/orders/"), ("lms_stub", "lms_stub/")):
        figures = found["groups"][group]
        assert figures["samples"] > 0 and figures["cpu_seconds"] > 0
        # The workers' samples are grouped (stack_env: 2 each). At this rate the few kept-alive
        # connections between the services may all be a single worker's: one may have none.
        assert 1 <= len(figures["processes"]) <= 2 + 1
        assert any(row["file"].startswith(own) for row in figures["top_own"]), figures["top_own"]
        # Each row says whether it is our code. (Which rows lead the list is chance at this
        # rate: 49 Hz once caught 8 samples of lms_stub, its own frames 12th on ties.)
        assert all(row["own_code"] == row["file"].startswith(OWN_CODE) for row in figures["top_inclusive"])
        assert sum(row["samples"] for row in figures["top_self"]) <= figures["samples"]
    assert not py_spies(folder)
    html = (folder / "report.html").read_text()
    assert "Where the CPU goes" in html and '<a href="flame-ecommerce.svg">' in html


def test_an_interrupted_profile_run_stops_every_py_spy_and_reports_what_it_sampled(stack_env):
    env = {**stack_env, "RPM": "240", "DURATION": "40", "WARMUP_SECONDS": "2", "THRESHOLDS": "errors<0.01"}
    runner = subprocess.Popen(
        [sys.executable, "-m", "locustfiles.suite.run", "profile"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        folder = None
        for line in runner.stdout:  # "profile run (headless): started, folder <path>"
            if "started, folder " in line:
                folder = Path(line.split("started, folder ", 1)[1].strip())
                break
        assert folder is not None
        deadline = time.monotonic() + 30
        while len(py_spies(folder)) < 4 and time.monotonic() < deadline:
            time.sleep(0.5)
        assert len(py_spies(folder)) == 4  # one per group, once the warm-up ended
        time.sleep(3)
        runner.send_signal(signal.SIGINT)  # Ctrl-C
        output, _ = runner.communicate(timeout=180)
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.wait()
    assert folder == Path(output.strip().splitlines()[-1])
    assert not py_spies(folder)
    summary = read_summary(folder)
    found = summary["profiling"]
    assert found["taken"] and found["seconds"] < 20
    assert found["groups"]["ecommerce"]["samples"] > 0
    assert (folder / "flame-ecommerce.svg").exists()
