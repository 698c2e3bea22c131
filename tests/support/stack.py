"""A whole stack for a test suite, started the way `make up` starts it (scripts/stack.sh) but on
free ports, with its own test_* databases and var/ folder, sharing this checkout's MariaDB.
A developer's `make up` stack is left alone."""

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.support import mysql
from tests.support.servers import SHEDDING_OFF, free_port, migrated_database

ROOT = Path(__file__).resolve().parents[2]


def stack_environment(name: str, databases: tuple[str, str], **extra: str) -> dict:
    """The environment of a stack called ``name``: ecommerce and lms_stub on free ports, the
    given (ecommerce, lms) databases, var/test/<name>/ for its pid files and logs."""
    lms_port, ecommerce_port = free_port(), free_port()
    return {
        **SHEDDING_OFF,
        **os.environ,
        "VAR_DIR": str(ROOT / "var" / "test" / name),
        # Collected once for every test stack (they come from the installed packages only).
        "STATIC_DIR": str(ROOT / "var" / "test" / "static"),
        "MYSQL_DIR": os.environ.get("MYSQL_DIR", str(ROOT / "var" / "mysql")),  # make test's own
        "LMS_PORT": str(lms_port),
        "ECOMMERCE_PORT": str(ecommerce_port),
        "LMS_URL": f"http://127.0.0.1:{lms_port}",
        "ECOMMERCE_URL": f"http://127.0.0.1:{ecommerce_port}",
        "LOCUST_PORT": str(free_port()),
        "ECOMMERCE_DB_NAME": databases[0],
        "LMS_DB_NAME": databases[1],
        "CATALOG_COURSES": "5",
        "ECOMMERCE_WORKERS": "2",
        "LMS_WORKERS": "2",
        "PYTHONPATH": str(ROOT),
        **extra,
    }


def stack_up(env: dict) -> None:
    """scripts/stack.sh up, on databases copied from the migrated templates when they do not
    exist yet (its own migrate then has nothing to do)."""
    for service, variable in (("ecommerce", "ECOMMERCE_DB_NAME"), ("lms_stub", "LMS_DB_NAME")):
        database = env[variable]
        if database.startswith("test_") and not mysql.query(
            "information_schema", "SELECT 1 FROM SCHEMATA WHERE SCHEMA_NAME = %s", [database]
        ):
            migrated_database(service, database, env)
    done = subprocess.run(
        [str(ROOT / "scripts/stack.sh"), "up"], env=env, capture_output=True, text=True, timeout=300
    )
    if done.returncode != 0:
        raise RuntimeError(f"scripts/stack.sh up failed:\n{done.stdout}\n{done.stderr}")


def stack_stop(env: dict) -> None:
    """Stop the services (MariaDB stays up: others share it) and drop the stack's databases."""
    subprocess.run([str(ROOT / "scripts/stack.sh"), "stop"], env=env, capture_output=True, timeout=120)
    for database in (env["ECOMMERCE_DB_NAME"], env["LMS_DB_NAME"]):
        if database.startswith("test_"):
            subprocess.run(
                [str(ROOT / "scripts/mysql.sh"), "shell", "-e", f"DROP DATABASE IF EXISTS `{database}`"],
                env=env,
                capture_output=True,
            )


class LocustWebUI:
    """The Locust web UI of `make run` (locustfiles/buy_seat.py, no load shape: the form asks
    for users and spawn rate) against the stack in ``env``, in its own session so that it is
    stopped by its PID."""

    def __init__(self, env: dict, locustfile: str = "locustfiles/buy_seat.py"):
        self.env = env
        self.port = int(env["LOCUST_PORT"])
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = Path(env["VAR_DIR"]) / "log" / "locust.log"
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [
                    str(Path(sys.executable).parent / "locust"),
                    "-f",
                    locustfile,
                    "--host",
                    env["LMS_URL"],
                    "--web-host",
                    "127.0.0.1",
                    "--web-port",
                    str(self.port),
                    "--loglevel",
                    "WARNING",
                ],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def wait_ready(self, seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"Locust exited with {self.process.returncode}:\n{self.log()}")
            try:
                with urllib.request.urlopen(self.url + "/", timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"the Locust web UI did not answer within {seconds}s:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]

    def state(self) -> str:
        """Where Locust's process is now (py-spy's dump of its stack: the greenlet running, or
        the hub waiting), then the end of its log: for a test's failure message."""
        spy = Path(sys.executable).parent / "py-spy"
        try:
            dump = subprocess.run(
                [str(spy), "dump", "--pid", str(self.process.pid)], capture_output=True, text=True, timeout=30
            )
            where = dump.stdout + dump.stderr
        except (OSError, subprocess.TimeoutExpired) as exc:
            where = f"(no stack: {exc})"
        return f"{where}\n--- its log:\n{self.log()}"

    def stop(self, timeout: float = 30) -> None:
        """SIGTERM Locust's process group by its PID, then SIGKILL it."""
        if self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)
