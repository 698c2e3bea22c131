"""scripts/edx2015-original.sh refuses what is not edX's client at 860f6fa before it copies,
installs or runs anything (its edits and its run are checked with a real checkout by
tests/loadsuite/edx2015/test_wire.py when EDX_LOAD_TESTS is set)."""

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts/edx2015-original.sh"
CLIENT_FILES = (
    "locust/ecommerce/__init__.py",
    "locust/ecommerce/api.py",
    "locust/ecommerce/baskets.py",
    "locust/ecommerce/commerce.py",
    "locust/ecommerce/config.py",
    "locust/ecommerce/locustfile.py",
    "locust/ecommerce/payment.py",
    "locust/helpers/__init__.py",
    "locust/helpers/auto_auth_tasks.py",
)


def run(*args: str, tmp_path: Path) -> subprocess.CompletedProcess:
    # VAR_DIR in tmp_path: had the script gone on, its installs would show there.
    env = {**os.environ, "VAR_DIR": str(tmp_path / "var")}
    return subprocess.run([str(SCRIPT), *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)


def test_it_says_how_to_call_it(tmp_path):
    done = run(tmp_path=tmp_path)
    assert done.returncode != 0 and "usage: scripts/edx2015-original.sh" in done.stderr


def test_a_folder_without_the_client_is_refused(tmp_path):
    done = run(str(tmp_path), tmp_path=tmp_path)
    assert done.returncode != 0 and "is it a checkout of edx/load-tests at 860f6fa" in done.stderr
    assert not (tmp_path / "var").exists()


def test_files_of_another_commit_are_refused(tmp_path):
    checkout = tmp_path / "load-tests"
    for name in CLIENT_FILES:
        (checkout / name).parent.mkdir(parents=True, exist_ok=True)
        (checkout / name).write_text("# not edX's file\n")
    done = run(str(checkout), tmp_path=tmp_path)
    assert done.returncode != 0 and "is not the file of edx/load-tests at 860f6fa" in done.stderr
    assert not (tmp_path / "var").exists()
