"""The layering contracts of pyproject.toml bite: an import that crosses a border fails
``make lint`` (checked on a copy of the tree, so the real one is never touched), and so does
an import inside a function of the load suite."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("common", "ecommerce", "floor", "lms_stub", "locustfiles", "settings", "stack")
LAYERS = "the load suite's layers import one way, from core up to run"


@pytest.fixture
def tree(tmp_path):
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    return tmp_path


def lint_imports(tree: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(ROOT / ".venv/bin/lint-imports"), "--no-logo", "--no-cache"],
        cwd=tree,
        capture_output=True,
        text=True,
    )


def test_the_tree_as_it_is_keeps_every_contract(tree):
    done = lint_imports(tree)
    assert done.returncode == 0, done.stdout
    assert "0 broken" in done.stdout


@pytest.mark.parametrize(
    "module, line, contract",
    [
        (
            "lms_stub/probe.py",
            "from ecommerce.core import errors",
            "lms_stub, the settings and the load suite import nothing from ecommerce",
        ),
        (
            "settings/probe.py",
            "import ecommerce.orders.purchase",
            "lms_stub, the settings and the load suite import nothing from ecommerce",
        ),
        (
            "locustfiles/suite/stack/probe.py",
            "from common import dbpool",
            "the load suite knows the wire contract, not the services' plumbing",
        ),
        (
            "common/probe.py",
            "import lms_stub.http",
            "common imports neither service, nor the load suite, nor the settings",
        ),
        (
            "common/probe.py",
            "from stack import mysql",
            "common imports neither service, nor the load suite, nor the settings",
        ),
        (
            "stack/probe.py",
            "import settings.effective",
            "the stack imports neither service, nor the load suite, nor the settings",
        ),
        (
            "floor/probe.py",
            "from lms_stub.commerce import ecommerce_client",
            "the floor imports neither service",
        ),
        (
            "locustfiles/suite/tools/probe.py",
            "from floor import canned",
            "nothing imports the floor",
        ),
        (
            "ecommerce/probe.py",
            "from locustfiles.suite import plan",
            "ecommerce imports nothing from lms_stub or the load suite",
        ),
        (
            "common/contract/probe.py",
            "from common import timing",
            "the wire contract stands alone",
        ),
        (
            "locustfiles/suite/core/probe.py",
            "from locustfiles.suite.figures import results",
            LAYERS,
        ),
        (
            "locustfiles/suite/users/probe.py",
            "from locustfiles.suite.run import session",
            LAYERS,
        ),
        (
            "locustfiles/suite/users/probe.py",
            "from locustfiles.suite.stack import services",
            LAYERS,
        ),
        (
            "locustfiles/suite/verdict/probe.py",
            "import locustfiles.suite.report.terminal",
            LAYERS,
        ),
    ],
)
def test_an_import_across_a_border_breaks_its_contract(tree, module, line, contract):
    (tree / module).write_text(line + "\n")
    done = lint_imports(tree)
    assert done.returncode == 1, done.stdout
    assert f"{contract} BROKEN" in done.stdout
    assert "1 broken" in done.stdout


def test_the_load_suites_layers_are_the_whole_suite(tree):
    """Every package of the suite is in a layer: a new one must be placed (exhaustive)."""
    (tree / "locustfiles/suite/newcomer").mkdir()
    (tree / "locustfiles/suite/newcomer/__init__.py").write_text("")
    done = lint_imports(tree)
    assert done.returncode != 0
    assert "newcomer" in done.stdout + done.stderr


def test_an_import_inside_a_function_of_the_load_suite_fails_ruff(tree):
    (tree / "locustfiles/suite/core/probe.py").write_text(
        "def plan():\n    from locustfiles.suite.core import plan\n\n    return plan\n"
    )
    done = subprocess.run(
        [str(ROOT / ".venv/bin/ruff"), "check", "--no-cache", "locustfiles/suite/core/probe.py"],
        cwd=tree,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1, done.stdout
    assert "PLC0415" in done.stdout
