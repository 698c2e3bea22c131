"""stack/processes.py on real processes: a pid file is trusted only for the process it should
name, a stop reaches the whole process group (a gunicorn master and its workers), a process
that ignores SIGTERM is killed after its grace, and a refusal ends a command as the scripts end."""

import ast
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from common.environment import BadSetting
from stack import processes
from stack.processes import StackError, StepFailed
from tests.support.processes import bystander

ROOT = Path(__file__).resolve().parents[2]

# A parent that starts a child of its own in the same group, and takes SIGTERM as asked: ends
# (polite), ignores it (stubborn) or ends a second later (slow).
FAMILY = """
import signal, subprocess, sys, time
if sys.argv[1] == "stubborn":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if sys.argv[1] == "slow":
    signal.signal(signal.SIGTERM, lambda *_: (time.sleep(1), sys.exit(0)))
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
print(child.pid, flush=True)
time.sleep(60)
"""


@pytest.fixture
def family(tmp_path):
    """A parent process leading its own session (as the stack starts each), its child's pid,
    and its pid file; whatever is left is killed by pid at the end."""
    started = []

    def start(kind: str = "polite"):
        parent = subprocess.Popen(
            [sys.executable, "-c", FAMILY, kind, "family-marker"],
            stdout=subprocess.PIPE,
            start_new_session=True,
        )
        child = int(parent.stdout.readline())
        started.append((parent, child))
        path = tmp_path / f"family-{len(started)}.pid"
        path.write_text(f"{parent.pid}\n")
        return parent, child, path

    yield start
    for parent, child in started:
        for pid in (parent.pid, child):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        parent.wait()


def gone(pid: int) -> bool:
    """The child is reparented when its parent dies; it is gone once not even a zombie is left."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().split(") ")[1].startswith("Z"):
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


def test_a_pid_file_is_trusted_only_for_a_process_with_the_expected_command_line(tmp_path, family):
    parent, _, path = family()
    assert processes.pid_alive(path, "family-marker")
    assert not processes.pid_alive(path, "mariadbd")  # the same number, some other program
    assert not processes.pid_alive(tmp_path / "family-marker.pid")  # no such file
    (tmp_path / "garbage.pid").write_text("12ab\n")
    assert not processes.pid_alive(tmp_path / "garbage.pid", "")


def test_a_pid_file_of_a_process_that_exited_names_nothing(tmp_path):
    path = tmp_path / "python.pid"
    path.write_text(f"{os.getpid()}\n")
    assert processes.pid_alive(path)  # this test's own python
    path.write_text("4194304\n")  # above any pid_max: never a process
    assert not processes.pid_alive(path)


def test_stop_signals_the_whole_group_and_removes_the_pid_file(family, capsys):
    parent, child, path = family()
    processes.stop_pid(path, "family", "family-marker", 10)
    assert parent.wait(timeout=5) == -signal.SIGTERM
    assert gone(child)
    assert not path.exists()
    assert capsys.readouterr().err == f"family: stopped (pid {parent.pid})\n"


def test_a_process_that_ignores_sigterm_is_killed_after_its_grace(family, capsys):
    parent, child, path = family("stubborn")
    began = time.monotonic()
    processes.stop_pid(path, "family", "family-marker", 1)
    assert 1 <= time.monotonic() - began < 5
    assert parent.wait(timeout=5) == -signal.SIGKILL
    assert gone(child)
    assert capsys.readouterr().err == (
        f"family: still running after 1s, sending SIGKILL\nfamily: stopped (pid {parent.pid})\n"
    )


def test_stopping_what_does_not_run_says_so_and_removes_a_stale_pid_file(tmp_path, capsys):
    with bystander() as other:  # a live process, but no ecommerce
        stale = tmp_path / "ecommerce.pid"
        stale.write_text(f"{other.pid}\n")
        processes.stop_pids([(stale, "ecommerce", "ecommerce"), (tmp_path / "none.pid", "rollup", "rollup")])
        assert not stale.exists()
        assert capsys.readouterr().err == "ecommerce: not running\nrollup: not running\n"
        assert other.poll() is None  # never signalled


def test_stopping_several_signals_all_first_so_that_their_stops_overlap(family):
    first_parent, _, first = family("slow")
    second_parent, _, second = family("slow")
    began = time.monotonic()
    processes.stop_pids([(first, "first", "family-marker"), (second, "second", "family-marker")], 10)
    assert 1 <= time.monotonic() - began < 1.9  # a second each, at the same time
    assert first_parent.wait(timeout=5) == second_parent.wait(timeout=5) == 0


def test_a_port_is_in_use_only_while_something_listens_on_it():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        port = listener.getsockname()[1]
        assert not processes.port_in_use(port)  # bound, not listening: a connection is refused
        listener.listen()
        assert processes.port_in_use(port)


def test_a_detached_program_leads_a_session_of_its_own_and_writes_to_its_log(tmp_path):
    log = tmp_path / "program.out"
    log.write_text("earlier\n")
    started = processes.start_detached([sys.executable, "-c", "import os; print(os.getsid(0))"], log)
    assert started.wait(timeout=10) == 0
    assert log.read_text() == f"earlier\n{started.pid}\n"


@pytest.mark.parametrize(
    "failure, status, message",
    [
        (StackError("port 1 is taken"), 1, "error: port 1 is taken\n"),
        (
            BadSetting("MYSQL_PORT", "MYSQL_PORT must be a whole number, not 'x'."),
            1,
            "error: MYSQL_PORT must",
        ),
        (StepFailed(7), 7, ""),
    ],
)
def test_a_refusal_ends_the_command_with_its_message_and_status(failure, status, message, capsys):
    def command(argv):
        raise failure

    assert processes.exit_status(command, []) == status
    assert capsys.readouterr().err.startswith(message) if message else capsys.readouterr().err == ""


class ClosedPipe:
    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    flush = write


def test_a_message_that_cannot_be_written_does_not_stop_the_work():
    processes.say("nobody reads this", ClosedPipe())


def test_the_stack_imports_the_standard_library_and_the_environments_table_only():
    """The system python3 runs it before scripts/bootstrap.sh has made the virtualenv."""
    allowed = set(sys.stdlib_module_names) | {"stack", "common"}
    found = {}
    for path in (ROOT / "stack").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            for name in names:
                if name.split(".")[0] not in allowed or (
                    name.startswith("common") and name != "common.environment"
                ):
                    found.setdefault(name, []).append(path.name)
    assert found == {}


def test_the_stack_runs_without_the_virtualenv():
    """Without site-packages (-S) and from no folder but the checkout: `make status` and `make
    down` on a machine that has no virtualenv yet."""
    # Nothing of make test's own MariaDB (test.sh exports its MYSQL_DIR and port).
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("MYSQL_")}
    clean = {**inherited, "PYTHONPATH": str(ROOT), "VAR_DIR": "/nonexistent/var"}
    urls = subprocess.run(
        [sys.executable, "-S", "-P", "-m", "stack", "urls"], env=clean, capture_output=True, text=True
    )
    assert urls.returncode == 0, urls.stderr
    assert urls.stdout.startswith("  LMS (lms_stub)")
    status = subprocess.run(
        [sys.executable, "-S", "-P", "-m", "stack.mysql", "status"], env=clean, capture_output=True, text=True
    )
    assert (status.returncode, status.stderr) == (3, "mariadb: stopped\n")
