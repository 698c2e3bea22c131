"""The layering contracts of pyproject.toml bite: an import that crosses a border fails
``make lint`` (checked on a copy of the tree, so the real one is never touched)."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("common", "ecommerce", "lms_stub", "locustfiles", "settings")


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
            "locustfiles/suite/probe.py",
            "from common import dbpool",
            "the load suite knows the wire contract, not the services' plumbing",
        ),
        (
            "common/probe.py",
            "import lms_stub.http",
            "common imports neither service, nor the load suite, nor the settings",
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
    ],
)
def test_an_import_across_a_border_breaks_its_contract(tree, module, line, contract):
    (tree / module).write_text(line + "\n")
    done = lint_imports(tree)
    assert done.returncode == 1, done.stdout
    assert f"{contract} BROKEN" in done.stdout
    assert "1 broken" in done.stdout
