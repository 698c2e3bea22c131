"""The Makefile's commands as make expands them (make -n: nothing runs)."""

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def expanded(*args: str, **env: str) -> str:
    environment = {k: v for k, v in os.environ.items() if k not in ("COURSES", "ORDERS")}
    environment.update(env)
    done = subprocess.run(["make", "-n", *args], cwd=ROOT, env=environment, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize(
    "args, env, expected",
    [
        (("bench",), {}, "--orders 300 --courses 1 --json"),
        (("bench", "COURSES=5", "ORDERS=50"), {}, "--orders 50 --courses 5 --json"),
        (("bench",), {"COURSES": "3"}, "--orders 300 --courses 3 --json"),
    ],
)
def test_bench_gets_its_sizes_with_defaults(args, env, expected):
    # COURSES is also a load-run variable exported to the suite; bench must still default it.
    assert expected in expanded(*args, **env)


@pytest.mark.parametrize(
    "suites, refused",
    [
        ("loadsuite,bogus", "unknown suite 'bogus'"),
        ("unitt", "unknown suite 'unitt'"),
        (" , ", "names no suite"),
    ],
)
def test_make_test_refuses_a_suite_it_does_not_know_before_installing_anything(suites, refused):
    done = subprocess.run(
        [str(ROOT / "scripts/test.sh")],
        cwd=ROOT,
        env={**os.environ, "SUITES": suites, "VENV": "/nonexistent"},  # bootstrap would fail on it
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert refused in done.stderr
    assert "valid: lint ansible unit lms_stub integration schema load browser" in done.stderr
    assert "passed" not in done.stdout + done.stderr


def test_the_folder_names_are_suites_too():
    # ecommerce and loadsuite pass the check; the unknown name after them is the one refused.
    done = subprocess.run(
        [str(ROOT / "scripts/test.sh")],
        cwd=ROOT,
        env={**os.environ, "SUITES": "ecommerce loadsuite browser nope", "VENV": "/nonexistent"},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2 and "unknown suite 'nope'" in done.stderr, done.stderr
