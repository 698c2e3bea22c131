"""Where the stack runs and the handles a fault pulls: lms_stub's fault settings, the scripts
that stop and start MariaDB, the services' pid files and processes. The same environment as
the stack's, so a fault reaches the services this run drives."""

import os
import subprocess
from pathlib import Path

import gevent
import psutil
import requests

from common.environment import get

ROOT = Path(__file__).resolve().parents[3]


class Stack:
    def __init__(self, env=None):
        env = env if env is not None else os.environ
        self.lms_url = get("LMS_URL", env)
        self.ecommerce_url = get("ECOMMERCE_URL", env)
        self.api_key = get("EDX_API_KEY", env)  # the enrollment API's
        self.fault_api_key = get("LMS_FAULT_API_KEY", env)
        self.var_dir = Path(get("VAR_DIR", env))
        self.env = dict(env)
        self.session = requests.Session()

    def lms_faults(self, method: str, body: dict | None = None) -> dict:
        """Set (PUT) or clear (DELETE) lms_stub's fault settings; returns once every lms_stub
        worker has read them."""
        response = self.session.request(
            method,
            f"{self.lms_url}/api/faults/",
            json=body,
            headers={"X-Fault-Api-Key": self.fault_api_key},
            timeout=10,
        )
        response.raise_for_status()
        applies = float(response.json().get("applies_within_seconds", 0.5))
        gevent.sleep(applies + 0.1)
        return response.json()

    def script(self, *args: str) -> None:
        """Run one of scripts/ (e.g. "mysql.sh", "down") with the stack's environment."""
        done = subprocess.run(
            [str(ROOT / "scripts" / args[0]), *args[1:]],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode != 0:
            raise RuntimeError(f"scripts/{' '.join(args)} failed: {(done.stdout + done.stderr)[-300:]}")

    def alive(self, name: str) -> bool:
        """Whether the process of var/run/<name>.pid runs."""
        try:
            return psutil.pid_exists(int((self.var_dir / "run" / f"{name}.pid").read_text().strip()))
        except (OSError, ValueError):
            return False

    def client_connections(self, pid: int) -> int:
        """Established client connections a worker holds on ecommerce's port (requests in
        flight and kept-alive connections of lms_stub)."""
        port = int(self.ecommerce_url.rsplit(":", 1)[1].split("/")[0])
        try:
            connections = psutil.Process(pid).net_connections(kind="tcp")
        except psutil.Error:
            return 0
        return sum(1 for c in connections if c.status == psutil.CONN_ESTABLISHED and c.laddr.port == port)

    def ecommerce_workers(self) -> tuple[int, list[int]]:
        """(master pid, worker pids) of ecommerce's gunicorn."""
        master = psutil.Process(int((self.var_dir / "run" / "ecommerce.pid").read_text().strip()))
        return master.pid, sorted(child.pid for child in master.children())
