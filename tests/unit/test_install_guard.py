"""Every program the project starts is installed by scripts/bootstrap.sh, or is part of the base
system every machine has: a missing install step fails here, on the developer's machine, and not
first on a new one (issue 27: supervisord and haproxy were on every machine the tests ran on,
and on none of a user's). `make fresh-test` proves the same by running the README's commands."""

import functools
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from tests.support.programs import makefile_programs, python_programs, shell_functions, shell_programs

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ROOT / "scripts/packages.txt"
BASE = Path(__file__).parent / "data/base-programs.txt"
SHELL_FILES = (".sh", ".ci/run")


def project_files() -> list[str]:
    done = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [name for name in done.stdout.split() if (ROOT / name).is_file()]


@functools.cache
def started() -> dict[str, set[str]]:
    """Each program the scripts, the Makefile and the Python code (tests included) start, and
    the files that start it."""
    functions = shell_functions((ROOT / "scripts/lib.sh").read_text())
    found: dict[str, set[str]] = {}
    for name in project_files():
        text = (ROOT / name).read_text() if name.endswith((*SHELL_FILES, ".py", "Makefile")) else ""
        if name.endswith(SHELL_FILES):
            programs = shell_programs(text, functions)
        elif name == "Makefile":
            programs = makefile_programs(text)
        elif name.endswith(".py"):
            programs = python_programs(text)
        else:
            continue
        for program in programs:
            found.setdefault(program, set()).add(name)
    return found


def package_table(text: str) -> dict[str, list[str]]:
    """scripts/packages.txt: each package and the programs the project starts from it."""
    table = {}
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            package, *programs = line.split()
            table[package] = [program for program in programs if program != "-"]
    return table


def base_programs() -> set[str]:
    return {line for line in BASE.read_text().splitlines() if line and not line.startswith("#")}


def virtualenv_programs() -> set[str]:
    """What the pinned packages (constraints.txt: everything bootstrap puts in the virtualenv)
    install into its bin/."""
    programs = set()
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if "==" in line and not line.startswith("#"):
            files = metadata.distribution(line.split("==")[0]).files or []
            programs |= {file.name for file in files if file.parent.name == "bin"}
    return programs


def unprovided(found: dict[str, set[str]], table: dict[str, list[str]]) -> dict[str, list[str]]:
    provided = base_programs() | virtualenv_programs()
    provided |= {program for programs in table.values() for program in programs}
    return {program: sorted(files) for program, files in found.items() if program not in provided}


def test_every_program_the_project_starts_is_installed_by_the_bootstrap_or_in_the_base_system():
    missing = unprovided(started(), package_table(PACKAGES.read_text()))
    assert not missing, f"add each program's Debian package to scripts/packages.txt: {missing}"


def test_a_program_whose_package_leaves_the_table_is_reported_with_the_files_that_start_it():
    table = package_table(PACKAGES.read_text())
    del table["supervisor"]
    assert unprovided(started(), table) == {"supervisord": ["tests/unit/test_hostreadings.py"]}


def test_the_scan_sees_the_programs_a_fresh_machine_lacked():
    found = started()
    assert "tests/unit/test_hostreadings.py" in found["supervisord"]
    assert "tests/unit/test_deployment_balancer.py" in found["haproxy"]
    assert "stack/locusts.py" in found["ps"]
    assert "stack/mysql.py" in found["mariadbd"]  # looked for with shutil.which before it starts
    assert "Makefile" in found["awk"]


def test_bootstrap_installs_exactly_the_tables_packages():
    done = subprocess.run(
        [ROOT / "scripts/bootstrap.sh", "packages"], capture_output=True, text=True, check=True, timeout=30
    )
    assert done.stdout.split() == list(package_table(PACKAGES.read_text()))


@functools.cache
def dependencies() -> dict[str, list[str]]:
    """Each installed Debian package and the names it depends (or pre-depends) on."""
    listed = subprocess.run(
        ["dpkg-query", "-W", "-f=${Package}\t${Pre-Depends},${Depends}\n"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    graph = {}
    for line in listed.splitlines():
        name, depends = line.split("\t")
        graph[name] = [re.split(r"[ :(]", choice.strip())[0] for choice in re.split(r"[,|]", depends)]
    return graph


def installed_with(package: str) -> set[str]:
    """The package and every installed package it depends on, however deep (apt installs them
    with it): mariadb-server brings mariadb-client, python3 python3-minimal."""
    graph = dependencies()
    assert package in graph, f"{package} is not installed: make test's bootstrap installs it"
    found, todo = set(), [package]
    while todo:
        name = todo.pop()
        if name in graph and name not in found:
            found.add(name)
            todo += graph[name]
    return found


def owners(program: str) -> set[str]:
    """The installed packages that ship a bin/ or sbin/ file of that name."""
    listed = subprocess.run(["dpkg-query", "-S", f"*bin/{program}"], capture_output=True, text=True).stdout
    return {
        name.strip().split(":")[0]
        for line in listed.splitlines()
        if line.endswith(f"bin/{program}")
        for name in line.split(": ")[0].split(",")
    }


@pytest.mark.parametrize("package", list(package_table(PACKAGES.read_text())))
def test_each_package_ships_the_programs_the_table_names(package):
    brought = installed_with(package)
    wrong = [
        program for program in package_table(PACKAGES.read_text())[package] if not owners(program) & brought
    ]
    assert not wrong, f"neither {package} nor what it depends on ships {wrong}"


def test_the_virtualenv_is_the_one_bootstrap_built():
    assert Path(sys.executable).parent.name == "bin" and "py-spy" in virtualenv_programs()


SCRIPT = """#!/bin/bash
source lib.sh
helper() { grep -q x "$1"; }
NAME=value first --flag "$(second -o) $((1 + 2))" 2>&1 | third >"$out" || helper file
case $1 in
  up|down) fourth ;;
esac
array=(notacommand "$(fifth)")
while read -r line; do sixth; done < <(seventh)
cat <<'EOF'
notacommand either
EOF
echo "notacommand $(eighth)" # notacommand
[[ $x =~ ^(a|b)$ ]] && exec ninth
"$PYTHON" -c 'import notacommand' ; ./own.sh ; /usr/bin/tenth
"""


def test_the_shell_scan_finds_commands_and_nothing_else():
    assert shell_programs(SCRIPT) == {
        "first",
        "second",
        "third",
        "grep",
        "fourth",
        "fifth",
        "sixth",
        "seventh",
        "cat",
        "eighth",
        "ninth",
        "tenth",
    }


def test_the_makefile_scan_reads_recipes_and_not_makes_own_expansions():
    makefile = (
        "x:  ## help\n\t@first $(or $(A),b) && $$(second)\n\t-third $(shell notacommand)\nnotacommand: y\n"
    )
    assert makefile_programs(makefile) == {"first", "second", "third"}


def test_the_python_scan_takes_literal_program_names_only():
    source = (
        "import shutil, subprocess, sys\n"
        "subprocess.run(['first', '-x'])\nsubprocess.Popen(('second',))\nshutil.which('third')\n"
        "subprocess.run([sys.executable, '-c', 'x'])\nsubprocess.run([*git, 'x'])\n"
        "subprocess.run('a b', shell=True)\n"
        "run(['notacommand'])\nsubprocess.run(['/usr/bin/absolute'])\n"
    )
    assert python_programs(source) == {"first", "second", "third", "absolute"}
