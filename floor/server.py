"""A bare handler under a service's own gunicorn settings: one worker, the canned answers.

The settings are the service's, as its gunicorn.conf.py computes them (the file is run, not
copied): the worker class, the HTTP parser, keep-alive, worker connections, the request limits,
the hooks that count requests and answer gunicorn's own refusals in JSON. Only what makes it a
bare handler differs: a free port on 127.0.0.1, one worker, the application
(``floor.canned:application``), its own name, and no ``post_worker_init`` of the service's (it
opens the database pool and loads Django); the request counter that hook starts is started
here too. Its files (pid file, control socket, logs, request counts) go to a folder of its own:
the server runs with VAR_DIR set there, so nothing of the running stack's is touched.

The services serve plain HTTP (TLS ends at a load balancer where there is one), so the bare
handler does too, and the hops are sent to it over plain HTTP: a certificate in the service's
settings would be the bare handler's as well, and the hops would then need https.
"""

import os
import socket
import subprocess
import sys
from pathlib import Path

import psutil

from common.environment import ROOT
from floor import bare, canned
from stack.processes import StackError, start_detached, stop_pid, tail
from stack.services import ECOMMERCE, LMS, answers_200

SERVICES = {service.name: service for service in (LMS, ECOMMERCE)}
CONFIG = ROOT / "floor" / "gunicorn.conf.py"
STARTED_SECONDS = 60


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class BareServer:
    """A bare handler for ``service``'s hops, answering ``answers`` (route -> canned.Answer),
    its files under ``folder``."""

    def __init__(self, service: str, answers: dict[str, canned.Answer], folder: Path):
        self.service = SERVICES[service]
        self.answers = answers
        self.folder = Path(folder)
        self.port = 0
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pidfile(self) -> Path:
        return self.folder / "run" / f"{self.service.name}.pid"

    def start(self) -> "BareServer":
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        env = {
            **os.environ,
            "VAR_DIR": str(self.folder),
            bare.SERVICE_VARIABLE: self.service.name,
            bare.CONFIG_VARIABLE: str(ROOT / self.service.config),
            bare.BIND_VARIABLE: f"127.0.0.1:{self.port}",
            canned.ANSWERS_VARIABLE: canned.encode(self.answers),
        }
        argv = [sys.executable, "-m", "gunicorn", "-c", str(CONFIG)]
        self.process = start_detached(argv, self.folder / "gunicorn.out", cwd=ROOT, env=env)
        if not answers_200(self.url + "/health/", STARTED_SECONDS):
            self.stop()
            said = tail(self.folder / "gunicorn.out", 15) + tail(self.folder / "log" / "bare.log", 15)
            raise StackError(f"the bare {self.service.name} handler did not answer:\n" + "\n".join(said))
        return self

    def processes(self) -> list[psutil.Process]:
        """The master and its worker."""
        assert self.process is not None, "not started"
        master = psutil.Process(self.process.pid)
        return [master, *master.children()]

    def cpu_seconds(self) -> float:
        """CPU time (user and system) the master and its worker have used."""
        return sum(sum(process.cpu_times()[:2]) for process in self.processes())

    def stop(self) -> None:
        """Stop it by the pid it was started with (its pid file names the same master)."""
        if self.process is None:
            return
        self.pidfile.parent.mkdir(parents=True, exist_ok=True)
        self.pidfile.write_text(f"{self.process.pid}\n")
        # "floor" is in its command line, as started and as gunicorn may retitle it (floor-<service>).
        stop_pid(self.pidfile, f"bare {self.service.name}", "floor", seconds=10)
        self.process.wait(timeout=10)
        self.process = None

    def __enter__(self) -> "BareServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
