"""A load run as the tests start it (``python -m locustfiles.suite.run`` against the load suite's
stack, its summary validated against the schema), its audit's "nothing lost", and waiting for
one to be under way."""

import subprocess
import sys
import time
from pathlib import Path

from locustfiles.suite.core.names import PROGRESS_FILE
from tests.support.summaries import read_summary

ROOT = Path(__file__).resolve().parents[2]


def run(stack_env, profile: str, **sizes) -> tuple[int, Path, dict]:
    """The run's exit code, folder and validated summary."""
    done, folder = started(stack_env, profile, **sizes)
    return done.returncode, folder, read_summary(folder)


def started(stack_env, profile: str, **sizes) -> tuple[subprocess.CompletedProcess, Path]:
    """The finished run's process (its output: the terminal's lines) and its folder."""
    env = {**stack_env, **{k: str(v) for k, v in sizes.items()}}
    done = subprocess.run(
        [sys.executable, "-m", "locustfiles.suite.run", profile],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    folder = Path(done.stdout.strip().splitlines()[-1])
    assert (folder / "summary.json").exists(), done.stdout + done.stderr
    return done, folder


def assert_nothing_lost(summary):
    result = summary["audit"]
    assert result["passed"], result
    assert result["lost"] == 0 and result["duplicates"] == 0
    assert result["successes"] == result["answered_numbers"] == result["orders"] > 0
    assert result["enrollments"] == result["orders"]


def under_way(folder: Path) -> bool:
    """The run of ``folder`` has begun its load: its progress log says it started."""
    try:
        return ": started, folder" in (folder / PROGRESS_FILE).read_text()
    except OSError:
        return False


def wait_for(condition, seconds: float = 120, explain=None) -> None:
    """Until ``condition()`` holds; after ``seconds`` fail, with what ``explain()`` says."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"not within {seconds} s" + (f": {explain()}" if explain else "")
        time.sleep(0.5)
