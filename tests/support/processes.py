"""Running a command of this checkout in a child process, as the tests of settings do; a live
process that is none of the stack's, for a pid file that must not be trusted."""

import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def succeed(args: list[str], env: dict, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run ``args`` in the checkout with exactly ``env``; fail the test with its stderr unless it
    exits 0."""
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr
    return done


@contextlib.contextmanager
def bystander() -> Iterator[subprocess.Popen]:
    """A live process whose command line (`sleep 60`) names nothing the stack looks for, killed
    at the end. Not the test's own python: `make test` runs the unit suite as `pytest tests/unit
    tests/ecommerce`, a command line that names ecommerce, and a stop that trusted it ended the
    suite."""
    process = subprocess.Popen(["sleep", "60"])
    try:
        yield process
    finally:
        process.kill()
        process.wait()
