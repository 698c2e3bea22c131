"""The Locust processes of this checkout: `make run`'s web UI (VAR_DIR/run/locust.pid: its pid,
then its URL; scripts/run.sh writes it) and load-suite runs (VAR_DIR/run/suite-<pid>.pid: the pid
of `python -m locustfiles.suite.run`, then what runs; locustfiles/suite/stack/services.py writes
it). `make status` lists them, and `make down` stops them before the services, as Ctrl-C in their
terminal would.
"""

import fnmatch
import os
import signal
import subprocess
from pathlib import Path

from stack.processes import line_of, pid_alive, pid_matches, pid_of, say, stop_pid, wait_exit

MAKE_RUN_PATTERN = "bin/locust"
SUITE_RUN = "locustfiles.suite.run"
# What a load run's child is, by its command line (the first pattern that matches).
CHILD_ROLES = (
    ("*bin/locust*--worker*", "locust worker"),
    ("*bin/locust*--master*", "locust master"),
    ("*bin/locust*", "locust"),
)


def suite_runs(run_dir: Path) -> list[Path]:
    """The pid files of the load-suite runs that still run; stale ones are removed."""
    alive = []
    for path in sorted(run_dir.glob("suite-*.pid")):
        if pid_alive(path, SUITE_RUN):
            alive.append(path)
        else:
            path.unlink(missing_ok=True)
    return alive


def child_lines(ps_output: str) -> list[str]:
    """A load run's Locust processes, one line each, from ``ps -o pid=,args=`` of its children."""
    lines = []
    for row in ps_output.splitlines():
        pid, _, args = row.strip().partition(" ")
        role = next((name for pattern, name in CHILD_ROLES if fnmatch.fnmatchcase(args, pattern)), None)
        if role:
            lines.append(f"  {role}: pid {pid}")
    return lines


def status(run_dir: Path) -> None:
    make_run = run_dir / "locust.pid"
    if pid_alive(make_run, MAKE_RUN_PATTERN):
        say(f"locust (make run): web UI {line_of(make_run, 2)} (pid {pid_of(make_run)})")
    else:
        say("locust (make run): not running")
    for path in suite_runs(run_dir):
        pid = pid_of(path)
        say(f"load run: {line_of(path, 2)} (pid {pid})")
        children = subprocess.run(
            ["ps", "-ww", "-o", "pid=,args=", "--ppid", str(pid)], capture_output=True, text=True
        )
        for line in child_lines(children.stdout):
            say(line)


def parent_of(pid: int) -> int | None:
    try:
        fields = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return None
    return next((int(line.split()[1]) for line in fields if line.startswith("PPid:")), None)


def stop(run_dir: Path) -> None:
    """`make run`'s Locust first (scripts/run.sh then stops what it started, and is waited for,
    so that nothing is stopped twice at once), then each load run, which still writes the report
    of what ran."""
    make_run = run_dir / "locust.pid"
    if pid_alive(make_run, MAKE_RUN_PATTERN):
        parent = parent_of(int(pid_of(make_run) or 0))
        stop_pid(make_run, "locust (make run)", MAKE_RUN_PATTERN, 30)
        if parent and pid_matches(parent, "scripts/run.sh") and not wait_exit(parent, 120):
            say(f"make run: still stopping after 120 s (pid {parent})")
    make_run.unlink(missing_ok=True)
    for path in suite_runs(run_dir):
        pid = int(pid_of(path) or 0)
        say(f"load run: stopping {line_of(path, 2)} (pid {pid})")
        try:
            os.kill(pid, signal.SIGTERM)  # the suite takes it as Ctrl-C
        except OSError:
            pass
        if wait_exit(pid, 120):
            say(f"load run: stopped (pid {pid})")
        else:
            say(f"load run: still running after 120 s (pid {pid})")
