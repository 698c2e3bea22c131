"""Issue 46: summary.json's readers are type-checked against core/summary.py's TypedDicts, so a
read of a key the run does not write fails `make lint` (mypy, configured in pyproject.toml)
instead of failing a report at run time, or reading None for ever."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _mypy(tmp_path: Path, read: str) -> subprocess.CompletedProcess:
    """mypy, as make lint runs it (the project's configuration), over a reader of the summary."""
    reader = tmp_path / "reader.py"
    reader.write_text(
        "from locustfiles.suite.core.summary import Summary\n\n\n"
        f"def read(summary: Summary) -> object:\n    return {read}\n"
    )
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml")]
        + ["--cache-dir", str(tmp_path / "cache"), str(reader)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_key_the_summary_does_not_have_fails_the_type_check(tmp_path):
    found = _mypy(tmp_path, 'summary["nope"]')
    assert found.returncode == 1, found.stdout + found.stderr
    assert 'reader.py:5: error: TypedDict "Summary" has no key "nope"' in found.stdout


def test_a_key_the_summary_has_passes(tmp_path):
    found = _mypy(tmp_path, 'summary["verdict"]["passed"]')
    assert found.returncode == 0, found.stdout + found.stderr
    assert "Success: no issues found in 1 source file" in found.stdout
