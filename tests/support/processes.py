"""Running a command of this checkout in a child process, as the tests of settings do."""

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def succeed(args: list[str], env: dict, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run ``args`` in the checkout with exactly ``env``; fail the test with its stderr unless it
    exits 0."""
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr
    return done
