"""The services' own management commands, run as an operator would: this checkout's manage.py
with the stack's environment (the same database names, host and credentials).

The suite asks the services instead of reading their tables, so what a table is called or what
a status is named stays the service's business.
"""

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PYTHON = ROOT / ".venv" / "bin" / "python"


class Unavailable(OSError):
    """The services' commands are not on this host: no checkout's virtualenv (a deployment's
    Locust host, which also holds no service's database account)."""


def settings_module(service: str, env) -> str:
    """ecommerce runs with the stack's DJANGO_SETTINGS_MODULE (settings.local by default),
    lms_stub always with its own settings, as scripts/stack.sh runs them."""
    if service == "lms_stub":
        return "settings.lms_stub"
    return env.get("DJANGO_SETTINGS_MODULE") or "settings.local"


def start(service: str, *args: str, env=None) -> subprocess.Popen:
    """A command of `service` ("ecommerce" or "lms_stub"), started: several run at once."""
    if not PYTHON.exists():
        raise Unavailable(
            f"the services' management commands are not on this host (no {PYTHON}): a deployed "
            "Locust host has neither them nor a service's database account, so audit from the "
            "database's side"
        )
    run_env = dict(env if env is not None else os.environ)
    run_env["DJANGO_SETTINGS_MODULE"] = settings_module(service, run_env)
    return subprocess.Popen(
        [str(PYTHON), str(ROOT / "manage.py"), *args],
        env=run_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process: subprocess.Popen, timeout: float) -> subprocess.CompletedProcess:
    """Wait for a started command; its output and exit code."""
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        stdout, stderr = process.communicate()
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def run(service: str, *args: str, env=None, timeout: float = 600) -> subprocess.CompletedProcess:
    return finish(start(service, *args, env=env), timeout)
