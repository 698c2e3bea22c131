"""py-spy itself (profiling/pyspy.py): one real recording of a small busy process, stopped by
SIGINT, read into its stacks, SVG and top frames."""

import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

from locustfiles.suite.profiling import pyspy
from tests.loadsuite.profiling.test_flamegraph import SVG

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
