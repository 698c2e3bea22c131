"""What a run ran on, recorded once per run so a report can be trusted and repeated: the
commit, the host, the versions, the services' effective settings and the load's settings.

It runs inside the Locust process, so it never imports Django or the services: package
versions come from importlib.metadata, and the services' settings from the values the stack
was started with: scripts/stack.sh records in var/run/stack.env what the services' own
configuration resolves them to (settings/effective.py), defaults included.
"""

import importlib.metadata
import os
import platform
import socket
import subprocess
from pathlib import Path

import psutil

from common.monitor_account import mysql_connect
from locustfiles.suite.core.learner_settings import LOAD_DEFAULTS, load_settings
from locustfiles.suite.stack.commands import ROOT

__all__ = ["LOAD_DEFAULTS", "collect", "git", "load_settings", "machine", "services", "versions"]


PACKAGES = {  # provenance name: distribution name
    "django": "Django",
    "oscar": "django-oscar",
    "drf": "djangorestframework",
    "locust": "locust",
    "gunicorn": "gunicorn",
    "gevent": "gevent",
}

SERVICES = {"ecommerce": "ECOMMERCE", "lms_stub": "LMS"}  # service: its settings' prefix


def collect(
    env: dict,
    running_settings: dict,
    *,
    open_model: bool,
    git_at_start: dict | None = None,
) -> dict:
    """The run's provenance (summary.json's "provenance"). ``env`` is the run's environment,
    ``open_model`` its plan's (its learners have no think time), ``running_settings`` what the
    running services were started with (services.running_settings; {} if the stack recorded
    nothing). ``git_at_start`` is the checkout as the run began: that is the code that ran;
    when the checkout differs at the end (a commit or an edit during a long run), the end's
    state is kept beside it as ``changed_during_run``."""
    found = git(ROOT)
    if git_at_start is not None:
        found, at_end = dict(git_at_start), found
        if at_end != git_at_start:
            found["changed_during_run"] = at_end
    return {
        "git": found,
        "host": machine(),
        "versions": versions(),
        "services": services(running_settings),
        # The learners' settings; who made the load is the summary's "profile", "started_from"
        # and "load", written once there.
        "load": load_settings(env, open_model=open_model),
    }


def git(folder: Path) -> dict:
    """The commit checked out in ``folder`` and whether tracked files differ from it;
    "unknown" for both outside a checkout (an installed copy, a tarball)."""

    def run(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=10
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    commit = run("rev-parse", "HEAD")
    if commit is None:
        return {"commit": "unknown", "dirty": "unknown"}
    changes = run("status", "--porcelain", "--untracked-files=no")
    return {"commit": commit, "dirty": "unknown" if changes is None else bool(changes)}


def machine() -> dict:
    return {
        "hostname": socket.gethostname(),
        "cores": os.cpu_count(),
        "memory_gb": round(psutil.virtual_memory().total / 2**30, 1),
        "cpu_model": cpu_model(),
        "os": os_name(),
    }


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def os_name() -> str:
    try:
        release = dict(
            line.split("=", 1) for line in Path("/etc/os-release").read_text().splitlines() if "=" in line
        )
        name = release.get("PRETTY_NAME", "").strip('"')
    except OSError:
        name = ""
    return f"{name or platform.system()}, kernel {platform.release()}"


def versions() -> dict:
    found: dict = {"python": platform.python_version()}
    for key, distribution in PACKAGES.items():
        try:
            found[key] = importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            found[key] = None
    found["mariadb"] = mariadb_version()
    return found


def mariadb_version() -> str | None:
    """SELECT VERSION() of the run's MariaDB; None when it cannot be reached."""
    try:
        connection = mysql_connect()
    except Exception:  # refused, unknown host, bad credentials: the version is not known
        return None
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT VERSION()")
            return cursor.fetchone()[0]
    finally:
        connection.close()


def services(running: dict) -> dict:
    """Each service's settings as the running stack resolved them when it started (scripts/
    stack.sh records what settings/effective.py reads from the services' own configuration),
    and the settings they share. None where the stack recorded nothing."""

    def value(name: str, kind=str):
        found = running.get(name)
        return None if found in (None, "") else kind(found)

    out: dict = {}
    for service, prefix in SERVICES.items():
        out[service] = {
            "worker_class": value(f"{prefix}_WORKER_CLASS"),
            "workers": value(f"{prefix}_WORKERS", int),
            "worker_connections": value(f"{prefix}_WORKER_CONNECTIONS", int),
            "driver": value(f"{prefix}_MYSQL_DRIVER"),
            "pool": value(f"{prefix}_DB_POOL"),
            "pool_size": value(f"{prefix}_DB_POOL_SIZE", int),
            "max_in_flight": value(f"{prefix}_MAX_IN_FLIGHT", int),  # 0: no shedding
            "admission": value(f"{prefix}_ADMISSION"),  # in-flight or queue-delay
            "queue_target_ms": value(f"{prefix}_QUEUE_TARGET_MS", int),  # queue-delay's gate
            "queue_interval_ms": value(f"{prefix}_QUEUE_INTERVAL_MS", int),
            "max_requests": value(f"{prefix}_MAX_REQUESTS", int),  # then a worker is recycled
        }
    out["pool_timeout_seconds"] = value("DB_POOL_TIMEOUT", float)
    out["order_counter"] = value("ORDER_COUNTER")
    out["lms_enrollment_timeout_seconds"] = value("LMS_ENROLLMENT_TIMEOUT", float)
    out["ecommerce_cpus"] = value("ECOMMERCE_CPUS") or ("not pinned" if running else None)
    out["catalog_courses"] = value("CATALOG_COURSES", int)
    out["learner_rate"] = value("ECOMMERCE_LEARNER_RATE")
    out["server_timing"] = value("SERVER_TIMING")
    out["code"] = value("SERVICES_CODE")  # the checkout, commit and edits the services run
    return out
