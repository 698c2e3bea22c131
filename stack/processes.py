"""The processes the stack starts, known by their pid files: whether one runs, stopping it (and its
process group: a gunicorn master and its workers), whether a port is taken, and the messages.

A pid file is trusted only while the process it names has the expected words in its command
line: after a reboot the same number may belong to some other process, which is never signalled.
"""

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import NoReturn

from common.environment import BadSetting

POLL_SECONDS = 0.1


class StackError(Exception):
    """A step that cannot go on: printed as ``error: <message>``, and the command exits 1."""


class StepFailed(Exception):
    """A program the stack ran failed and said why itself: the command exits with its status."""

    def __init__(self, returncode: int):
        super().__init__(returncode)
        self.returncode = returncode


def say(message: str, stream=None) -> None:
    """One line to stderr (or ``stream``). A message that cannot be written (its terminal or pipe
    gone) never stops the work it reports on."""
    try:
        print(message, file=stream or sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def exit_status(command: Callable[[list[str]], int], argv: list[str]) -> int:
    """``command(argv)``'s exit status, its refusals said as the scripts say them."""
    try:
        return command(argv)
    except (StackError, BadSetting) as exc:
        say(f"error: {exc}")
        return 1
    except StepFailed as exc:
        return exc.returncode


def script(command: Callable[[list[str]], int]) -> NoReturn:
    """Run ``command`` on this process's arguments as a script of scripts/ did: what it writes is
    the owner's, readable by its group (scripts/lib.sh's umask), and Ctrl-C ends it without a
    traceback."""
    os.umask(0o027)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(exit_status(command, sys.argv[1:]))


def run_step(argv: list[str], **options) -> None:
    """Run a program whose failure ends the command with its exit status (as `set -e` did)."""
    done = subprocess.run(argv, check=False, **options)
    if done.returncode != 0:
        raise StepFailed(done.returncode)


def pid_of(path: Path) -> str | None:
    """The first line of a pid file (Locust's have its URL on the second), None if unreadable."""
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return None
    return lines[0] if lines else ""


def line_of(path: Path, number: int) -> str:
    """Line ``number`` (from 1) of a pid file, "" if it has none."""
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return ""
    return lines[number - 1] if len(lines) >= number else ""


def pid_matches(pid: str | int | None, pattern: str) -> bool:
    """True when ``pid`` is a running process whose command line contains ``pattern``."""
    if pid is None or not str(pid).isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists; another user's
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return False
    return pattern in command


def pid_alive(path: Path, pattern: str | None = None) -> bool:
    """True when the pid file names a running process whose command line contains ``pattern``
    (default: the file's name without .pid)."""
    return pid_matches(pid_of(path), pattern if pattern is not None else path.stem)


def running(pid: int) -> bool:
    """True while ``pid`` runs; a zombie (exited, not yet reaped by its parent) has stopped."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return True
    return state != "Z"


def wait_exit(pid: int, seconds: float) -> bool:
    """Wait until ``pid`` has exited; False if it still runs after ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not running(pid):
            return True
        time.sleep(POLL_SECONDS)
    return not running(pid)


def signal_group(pid: int, signum: int) -> None:
    """``signum`` to ``pid``'s process group (it leads one: the stack starts each in a session of
    its own), else to ``pid`` alone; one that is gone already is no error."""
    try:
        os.killpg(pid, signum)
        return
    except OSError:
        pass
    try:
        os.kill(pid, signum)
    except OSError:
        pass


def stop_pid(path: Path, name: str, pattern: str, seconds: float = 45) -> None:
    """SIGTERM the process the pid file names and its group, wait, then SIGKILL the group."""
    stop_pids([(path, name, pattern)], seconds)


def stop_pids(entries: Iterable[tuple[Path, str, str]], seconds: float = 45) -> None:
    """Stop each (pid file, name, pattern): every one signalled first and then awaited, so that
    their graceful stops overlap."""
    signalled = []
    for path, name, pattern in entries:
        if not pid_alive(path, pattern):
            path.unlink(missing_ok=True)
            say(f"{name}: not running")
            continue
        pid = int(pid_of(path) or 0)
        signal_group(pid, signal.SIGTERM)
        signalled.append((path, name, pid))
    for path, name, pid in signalled:
        await_stop(path, name, pid, seconds)


def await_stop(path: Path, name: str, pid: int, seconds: float) -> None:
    """Wait for a signalled ``pid``; SIGKILL its group after ``seconds``."""
    if not wait_exit(pid, seconds):
        say(f"{name}: still running after {seconds:g}s, sending SIGKILL")
        signal_group(pid, signal.SIGKILL)
    path.unlink(missing_ok=True)
    say(f"{name}: stopped (pid {pid})")


def port_in_use(port: int) -> bool:
    """True when something accepts connections on 127.0.0.1:``port``."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def start_detached(argv: list[str], log: Path, **options) -> subprocess.Popen:
    """``argv`` in a session of its own (a signal to the caller's group never reaches it, and
    its pid leads a group that stop_pid signals whole), reading nothing and appending its output
    to ``log``: no pipe of the caller's stays open in it."""
    with open(log, "ab") as output:
        return subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            **options,
        )


def tail(path: Path, lines: int) -> list[str]:
    """The last ``lines`` lines of a log, none if it cannot be read."""
    try:
        return path.read_text(errors="replace").splitlines()[-lines:]
    except OSError:
        return []
