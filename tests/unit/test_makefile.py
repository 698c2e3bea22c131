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
