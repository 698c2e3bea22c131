"""The stack under a load run: up, with the settings the run's environment asks for.

A run restarts the services only when a setting that reaches them differs from the one they
were started with, and then says which, with the old and the new value. Both sides come from
the one place that resolves them, ``scripts/stack.sh settings`` (the services' own defaults
applied), so an unset variable and its default never count as a change.

A run also leaves var/run/suite-<pid>.pid while it runs, so that ``make status`` lists it and
its Locust processes, and ``make down`` stops it first (SIGTERM, taken as Ctrl-C).
"""

import atexit
import os
import subprocess
import sys
from pathlib import Path

from common.environment import get
from locustfiles.suite.stack.commands import ROOT


def stack(command: str, env: dict) -> str:
    """``scripts/stack.sh COMMAND`` in ``env``; its standard output. Exits the run with the
    script's output when it fails."""
    done = subprocess.run([str(ROOT / "scripts/stack.sh"), command], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"scripts/stack.sh {command} failed")
    return done.stdout


def parse_settings(text: str) -> dict[str, str]:
    """NAME=value lines as a dict."""
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def run_dir(env: dict) -> Path:
    return Path(get("VAR_DIR", env)) / "run"


def running_settings(env: dict) -> dict[str, str]:
    """The settings the running services were started with (scripts/stack.sh records them)."""
    path = run_dir(env) / "stack.env"
    return parse_settings(path.read_text()) if path.exists() else {}


def changes(running: dict[str, str], wanted: dict[str, str]) -> list[str]:
    """For every setting that differs: "NAME old -> new" (an empty or missing value: "(none)")."""
    return [
        f"{name} {running.get(name) or '(none)'} -> {wanted.get(name) or '(none)'}"
        for name in sorted(running.keys() | wanted.keys())
        if running.get(name) != wanted.get(name)
    ]


def ensure_up(env: dict) -> dict[str, str]:
    """Start the stack if it is down; restart the services if they run with settings other
    than ``env`` asks for, printing which changed. Returns the settings they run with."""
    wanted = parse_settings(stack("settings", env))  # also refuses a bad value before anything starts
    stack("up", env)
    running = running_settings(env)
    changed = changes(running, wanted) if running else ["their settings were not recorded"]
    if changed:
        print("restarting the services: " + ", ".join(changed), flush=True)
        stack("restart", env)
        running = running_settings(env)
    return running


def register_run(env: dict, profile: str, web_ui: str | None) -> None:
    """Make this run known to ``make status`` and ``make down``: var/run/suite-<pid>.pid holds
    its pid, then what runs ("smoke, headless" or "smoke, web UI <web_ui>"), until it exits.
    ``make down`` sends it SIGTERM, which the run takes as Ctrl-C (run/cli.py), so it still
    writes the report of what ran."""
    path = run_dir(env) / f"suite-{os.getpid()}.pid"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{os.getpid()}\n{profile}, {f'web UI {web_ui}' if web_ui else 'headless'}\n")
    atexit.register(path.unlink, missing_ok=True)
