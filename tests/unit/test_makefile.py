"""The Makefile's commands as make expands them (make -n: nothing runs)."""

import os
import re
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def expanded(*args: str, **env: str) -> str:
    environment = {k: v for k, v in os.environ.items() if k not in ("COURSES", "ORDERS", "PAID", "CALLGRIND")}
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
        (("bench", "PAID=1"), {}, "--orders 300 --courses 1 --paid --json"),
        (("bench", "PAID=0"), {}, "--orders 300 --courses 1 --json"),
        (("bench", "CALLGRIND=1"), {}, "--orders 10 --courses 1 --callgrind --json"),
        (
            ("bench", "CALLGRIND=1", "ORDERS=4", "PAID=1"),
            {},
            "--orders 4 --courses 1 --paid --callgrind --json",
        ),
        (("bench", "CALLGRIND=0"), {}, "--orders 300 --courses 1 --json"),
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
    assert "valid: lint ansible unit lms_stub integration schema loadunit load browser" in done.stderr
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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_make_test_runs_beside_a_running_mariadb_and_leaves_it_alone(tmp_path):
    """A developer's MariaDB (as `make up` starts it) keeps running, untouched, while make test
    runs on one of its own, even with the developer's MYSQL_PORT and MYSQL_DIR exported."""
    developer = {
        **os.environ,
        "VAR_DIR": str(tmp_path / "dev"),
        "MYSQL_DIR": str(tmp_path / "dev" / "mysql"),
        "MYSQL_PORT": str(free_port()),
    }
    mysql_sh = str(ROOT / "scripts/mysql.sh")
    subprocess.run([mysql_sh, "up"], env=developer, check=True, capture_output=True, timeout=120)
    try:
        pid = (tmp_path / "dev" / "mysql" / "mysqld.pid").read_text()

        def databases():
            """The developer's databases, and how many were ever created on that server (a test's
            own are dropped again: only the counter shows they were made there)."""
            shown = subprocess.run(
                [mysql_sh, "shell", "-N", "-e", "SHOW DATABASES; SHOW GLOBAL STATUS LIKE 'Com_create_db'"],
                env=developer,
                capture_output=True,
                text=True,
            )
            return sorted(shown.stdout.split())

        before = databases()
        done = subprocess.run(
            [str(ROOT / "scripts/test.sh"), "-k", "test_a_copy_has_the_tables_keys_foreign_keys_and_rows"],
            cwd=ROOT,
            env={**developer, "SUITES": "unit load", "TEST_MYSQL_DIR": str(tmp_path / "test" / "mysql")},
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        assert "1 passed" in done.stdout
        # -k names a unit test: the load suite's two runs select none, which fails neither.
        assert (done.stdout + done.stderr).count("(the arguments select no test of this suite)") == 2
        # Each suite's time at the end, the one run alongside the unit suite said to be.
        times = (done.stdout + done.stderr).split("make test: each suite's time")[1]
        for suite in ("set-up", "unit and ecommerce", "load suite with services"):
            assert re.search(rf"^  {re.escape(suite)} +\d+ s", times, re.M), times
        assert re.search(r"^  load suite without services +\d+ s  alongside the unit suite$", times, re.M)
        # The developer's server is the same process, with the same databases, on its port.
        assert (tmp_path / "dev" / "mysql" / "mysqld.pid").read_text() == pid
        assert databases() == before
        # make test's own server was stopped.
        assert not (tmp_path / "test" / "mysql" / "mysqld.pid").exists() or not os.path.exists(
            f"/proc/{(tmp_path / 'test' / 'mysql' / 'mysqld.pid').read_text().strip()}"
        )
    finally:
        subprocess.run([mysql_sh, "down"], env=developer, capture_output=True, timeout=120)


def recipe_environment(*args: str, **env: str) -> dict[str, str]:
    """The environment a recipe of this Makefile runs in (a target added with --eval)."""
    environment = {k: v for k, v in os.environ.items() if k not in ("LOCUST_TASK_SET", "EDX2015_WAIT_SCALE")}
    environment.update(env)
    done = subprocess.run(
        ["make", "--no-print-directory", "--eval", "show-env: ; @env -0", "show-env", *args],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return dict(item.split("=", 1) for item in done.stdout.split("\0") if "=" in item)


def test_the_2015_clients_task_set_reaches_it_only_when_given():
    # edX's client takes a variable that is set as it is, even empty: make must not set it empty.
    assert "LOCUST_TASK_SET" not in recipe_environment()
    assert recipe_environment("LOCUST_TASK_SET=BasketsTasks")["LOCUST_TASK_SET"] == "BasketsTasks"
    given = recipe_environment(LOCUST_TASK_SET="CybersourcePaymentTasks")
    assert given["LOCUST_TASK_SET"] == "CybersourcePaymentTasks"


@pytest.mark.parametrize(
    "given, refusal",
    [
        ("RMP=100", "error: RMP: no such setting; did you mean RPM?"),
        ("rpm=100", "error: rpm: no such setting; did you mean RPM?"),
        ("DURATON=5", "error: DURATON: no such setting; did you mean DURATION?"),
        ("QQQQQQ=1", "error: QQQQQQ: no such setting; `make help` and docs/configuration.md list them"),
    ],
)
def test_a_variable_that_is_no_setting_is_refused_before_any_target_runs(given, refusal):
    # As a user types it: not as a make under make test (MAKEFLAGS and MAKELEVEL say "Entering").
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    done = subprocess.run(
        ["make", "-n", "rpm", given, "DURATION=5"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 2
    assert refusal in done.stderr.splitlines()
    assert "nothing was run" in done.stderr and done.stdout == ""


def test_every_variable_the_makefile_reads_is_a_setting_make_accepts():
    makefile = (ROOT / "Makefile").read_text()
    read = set(re.findall(r"\$\((?:or \$\()?([A-Z][A-Z0-9_]*)\)", makefile)) - {
        "MAKEFILE_LIST",
        "CURDIR",
        # The Makefile's own, made from the command line and the catalogue (refused if given).
        "GIVEN",
        "PROFILES",
        "LOAD_SETTINGS",
    }
    assert read, "the pattern finds the Makefile's variables"
    given = [f"{name}=1" for name in sorted(read)]
    done = subprocess.run(["make", "-n", "help", *given], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def help_lines() -> list[str]:
    done = subprocess.run(
        ["make", "--no-print-directory", "help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def description_column(line: str) -> int:
    """Where the description of a `make help` line starts: after "make <target>", a variable's
    name, or nothing (a line that goes on from the one above), and the spaces after it."""
    found = re.match(r"  (make [a-z0-9-]+|[A-Z][A-Z0-9_]*|) +\S", line)
    assert found, line
    return found.end() - 1


def test_make_help_sets_every_description_in_one_column():
    # "make cluster-deploy site.yml onto…" ran together once: names longer than the column.
    lines = [line for line in help_lines() if line.startswith("  ")]
    columns = {line: description_column(line) for line in lines}
    assert len(set(columns.values())) == 1, columns
    described = set(re.findall(r"^([a-z0-9-]+):.*## ", (ROOT / "Makefile").read_text(), re.M))
    listed = {line.split()[1] for line in lines if line.startswith("  make ")}
    assert described <= listed


def test_a_name_that_runs_into_its_description_is_caught():
    # Two lines of the old `make help`, whose column was 12 characters wide.
    old = ["  make help         list the targets", "  make cluster-deploy site.yml onto those hosts"]
    assert [description_column(line) for line in old] == [20, 22]


def test_make_run_refuses_a_taken_locust_port_before_starting_anything(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        env = {**os.environ, "VAR_DIR": str(tmp_path / "var"), "LOCUST_PORT": port}
        done = subprocess.run(
            ["make", "--no-print-directory", "run"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode != 0
    assert f"port {port} is taken by another program; set LOCUST_PORT to a free port" in done.stderr
    assert not (tmp_path / "var").exists()  # no MariaDB, no pid file, no log


def test_make_reads_itself_on_a_machine_without_python3(tmp_path):
    """A fresh Debian minbase has no python3 until the first target's bootstrap installs it
    (make fresh-test found the Makefile asking python3 for its profiles as it read itself)."""
    bare = tmp_path / "bin"
    bare.mkdir()
    for tool in ("make", "bash"):
        (bare / tool).symlink_to(shutil.which(tool))
    env = {"PATH": str(bare), "HOME": str(tmp_path)}
    for target in (["up"], ["smoke", "USERS=2"], ["rpm"]):
        done = subprocess.run(["make", "-n", *target], cwd=ROOT, env=env, capture_output=True, text=True)
        assert done.returncode == 0, (target, done.stderr)
        assert "scripts/" in done.stdout and "python3" not in done.stderr, (target, done.stderr)


def test_make_help_says_where_the_stacks_own_settings_are():
    # README's comparison runs set ORDER_COUNTER on make's command line; `make help`, which lists
    # only the load runs' variables, once left a newcomer no trace of it.
    text = "\n".join(help_lines())
    assert "ORDER_COUNTER" in text and "docs/configuration.md" in text
    assert (ROOT / "docs" / "configuration.md").read_text().count("`ORDER_COUNTER`") >= 1
