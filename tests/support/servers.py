"""Real services for tests: each one a gunicorn master with its own port, database and var/
folder, so tests never touch a developer's running stack. Stopped by PID at the end."""

import contextlib
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from tests.support import mysql, templates, tokens

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable

SERVICES = {
    # name: (gunicorn config, variable prefix, settings module, database variable)
    "ecommerce": ("ecommerce/gunicorn.conf.py", "ECOMMERCE", "settings.local", "ECOMMERCE_DB_NAME"),
    "lms_stub": ("lms_stub/gunicorn.conf.py", "LMS", "settings.lms_stub", "LMS_DB_NAME"),
}


# The test stacks run without admission control (common/shedding.py) unless a test sets a limit:
# their tests send bursts of concurrent requests on purpose (locks, pools, idempotency), which
# a worker past its limit would refuse. tests/integration/test_shedding.py sets the limits.
SHEDDING_OFF = {"LMS_MAX_IN_FLIGHT": "0", "ECOMMERCE_MAX_IN_FLIGHT": "0"}


# Ports are picked below the kernel's ephemeral range, from which every outgoing connection
# takes its local port: a port picked there and bound only once a service has started, tens of
# seconds later, was at times taken meanwhile (four `make run`s at once: "Address already in
# use" for Locust's). The range's lower end is read from the kernel; ports under 20000 (the
# stack's defaults among them) are never picked.
EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")


def free_port() -> int:
    """A port no one listens on now, on 127.0.0.1, outside the ephemeral range."""
    low = int(EPHEMERAL_RANGE.read_text().split()[0]) if EPHEMERAL_RANGE.exists() else 32768
    for port in random.sample(range(20000, max(low, 20100)), 100):
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise OSError(f"no free port between 20000 and {low}")


# The environment of a management command that makes or fills tables: it connects as the owner
# account, as scripts/stack.sh runs migrate, seed_catalog and ensure_staff; every other command
# and the services connect as their service's own.
AS_OWNER = {"DB_ACCOUNT": "owner"}


def manage(settings_module: str, *args: str, env: dict | None = None) -> str:
    run_env = {**os.environ, **(env or {}), "DJANGO_SETTINGS_MODULE": settings_module}
    done = subprocess.run(
        [PYTHON, str(ROOT / "manage.py"), *args],
        cwd=ROOT,
        env=run_env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def prepare_database(service: str, database: str, env: dict | None = None, courses: int = 5) -> None:
    """A fresh, migrated database for ``service`` (seeded with ``courses`` seats for ecommerce)."""
    migrated_database(service, database, env)
    _, _, settings_module, db_var = SERVICES[service]
    env = {**(env or {}), db_var: database}
    if service == "ecommerce":
        manage(settings_module, "seed_catalog", "--courses", str(courses), env={**env, **AS_OWNER})


def migrated_template(service: str, env: dict | None = None) -> str:
    """The name of ``service``'s migrated template (tests/support/templates.py) on the tests'
    MariaDB, which the first call migrates."""
    _, _, settings_module, db_var = SERVICES[service]

    def migrate(name: str) -> None:
        manage(settings_module, "migrate", "--noinput", "-v0", env={**(env or {}), db_var: name, **AS_OWNER})

    return templates.ensure_template(service, migrate)


def migrated_database(service: str, database: str, env: dict | None = None) -> None:
    """``database`` freshly made and migrated for ``service``: a copy of the migrated template."""
    templates.clone(migrated_template(service, env), database)


@dataclass
class Service:
    name: str
    port: int
    database: str
    process: subprocess.Popen
    var_dir: Path
    env: dict = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def master_pid(self) -> int:
        return self.process.pid

    def worker_pids(self) -> list[int]:
        import psutil

        return [child.pid for child in psutil.Process(self.master_pid).children()]

    def log(self) -> str:
        return "".join(
            path.read_text(errors="replace")[-4000:]
            for path in sorted((self.var_dir / "log").glob("*"))
            if path.is_file()
        )

    def stop(self, timeout: float = 45) -> None:
        """SIGTERM the master's process group (master and workers), then SIGKILL it."""
        if self.process.poll() is not None:
            return
        os.killpg(self.master_pid, signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.master_pid, signal.SIGKILL)
            self.process.wait(10)


def start_service(
    service: str,
    database: str,
    env: dict | None = None,
    workers: int = 1,
    worker_class: str | None = None,
    health_timeout: float = 60,
    port: int | None = None,
    wrapper: list[str] | None = None,
) -> Service:
    """``wrapper``: a command that runs gunicorn (``["newrelic-admin", "run-program"]``)."""
    conf, prefix, settings_module, db_var = SERVICES[service]
    port = port or free_port()
    var_dir = ROOT / "var" / "test" / f"{service}-{port}"
    (var_dir / "log").mkdir(parents=True, exist_ok=True)
    run_env = {
        **SHEDDING_OFF,
        **os.environ,
        **(env or {}),
        "VAR_DIR": str(var_dir),
        "DJANGO_SETTINGS_MODULE": settings_module,
        f"{prefix}_PORT": str(port),
        f"{prefix}_WORKERS": str(workers),
        db_var: database,
    }
    if worker_class:
        run_env[f"{prefix}_WORKER_CLASS"] = worker_class
    out = open(var_dir / "log" / "stdout.log", "ab")  # noqa: SIM115 (owned by the process)
    process = subprocess.Popen(
        [*(wrapper or []), PYTHON, "-m", "gunicorn", "-c", conf],
        cwd=ROOT,
        env=run_env,
        stdout=out,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    out.close()
    started = Service(service, port, database, process, var_dir, run_env)
    deadline = time.monotonic() + health_timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{service} exited with {process.returncode}:\n{started.log()}")
        try:
            with urllib.request.urlopen(started.url + "/health/", timeout=2) as response:
                if response.status == 200:
                    return started
        except OSError:
            pass
        time.sleep(0.2)
    started.stop()
    raise RuntimeError(f"{service} did not become healthy in {health_timeout}s:\n{started.log()}")


@contextlib.contextmanager
def loop(ecommerce_db: str, lms_db: str, courses: int, staff_password: str, workers: int = 1):
    """lms_stub and ecommerce on free ports, each on a fresh test database, calling each other;
    yields (lms, ecommerce, env). Both stop and their databases are dropped on the way out."""
    lms_port, ecommerce_port = free_port(), free_port()
    env = {
        "CATALOG_COURSES": str(courses),
        "LMS_URL": f"http://127.0.0.1:{lms_port}",
        "ECOMMERCE_URL": f"http://127.0.0.1:{ecommerce_port}",
        "LMS_FAULT_REFRESH_SECONDS": "0",
        "ECOMMERCE_DB_NAME": ecommerce_db,
        "LMS_DB_NAME": lms_db,
        "ECOMMERCE_STAFF_PASSWORD": staff_password,
        "STAFF_JWT_SECRET_KEY": tokens.STAFF_SECRET,
    }
    prepare_database("ecommerce", ecommerce_db, env, courses=courses)
    prepare_database("lms_stub", lms_db, env)
    manage("settings.local", "ensure_staff", env={**env, **AS_OWNER})
    started = []
    try:
        started.append(start_service("lms_stub", lms_db, env, workers=workers, port=lms_port))
        started.append(start_service("ecommerce", ecommerce_db, env, workers=workers, port=ecommerce_port))
        yield started[0], started[1], env
    finally:
        for service in reversed(started):
            service.stop()
        mysql.drop_database(ecommerce_db)
        mysql.drop_database(lms_db)
