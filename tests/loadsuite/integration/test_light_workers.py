"""What each process loads. A Locust worker only sends requests: what it imports stays clear of
the reports (no numpy, no matplotlib, no report or judging module of the suite), both in a
fresh interpreter that imports every locustfile and in a real worker process once Locust's
init event has made its run object (Jinja2 is not asked about: Locust itself imports it, for
its web UI). And `python -m locustfiles.suite.run` imports no Locust: the processes it starts
do (Locust's gevent patching after ssl was imported, by PyJWT say, ends in a RecursionError)."""

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
LOCUSTFILES = ["learners", "buy_seat", "smoke", "ramp", "rpm", "capacity", "overload", "soak", "chaos"]
HEAVY = ("numpy", "matplotlib")
# The suite's layers a worker needs: what its users import, and the run object's recording side.
WORKER_LAYERS = ("core", "users", "record.recorder", "run.hooks", "run.session")

PROBE = """
import json, sys
import locust  # noqa: F401  (as in a worker: Locust is loaded before the locustfiles)
for name in sys.argv[1:]:
    __import__("locustfiles." + name)
print(json.dumps(sorted(sys.modules)))
"""


def env() -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}


def test_importing_every_locustfile_loads_nothing_that_reports():
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *LOCUSTFILES, "edx2015_hooks"],
        cwd=ROOT,
        env=env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert [m for m in loaded if m.split(".")[0] in HEAVY] == []
    suite = [m.removeprefix("locustfiles.suite.") for m in loaded if m.startswith("locustfiles.suite.")]
    beyond = [m for m in suite if m.split(".")[0] not in ("core", "users", "record", "run")]
    beyond += [m for m in suite if m.startswith(("record.", "run.")) and m not in WORKER_LAYERS]
    assert beyond == []


def test_the_command_line_imports_no_locust():
    probe = "import json, sys, locustfiles.suite.run.cli; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env(), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert [m for m in json.loads(done.stdout) if m.split(".")[0] == "locust"] == []


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def locust(*args: str, **extra) -> subprocess.Popen:
    command = [str(Path(sys.executable).parent / "locust"), "-f", "locustfiles/rpm.py", *args]
    return subprocess.Popen(
        command,
        cwd=ROOT,
        env={**env(), "PROFILE": "rpm", **extra},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def test_a_locust_worker_maps_no_numpy_or_matplotlib(tmp_path):
    """A real worker, once its master acknowledged it and its run object is attached (with
    REQUEST_LOG set, attaching opens the worker's request log in the run folder). The master,
    with its web UI and no test started, keeps the results: it does load them."""
    port, web = free_port(), free_port()
    master = locust(
        "--master",
        "--master-bind-host",
        "127.0.0.1",
        "--master-bind-port",
        str(port),
        "--web-host",
        "127.0.0.1",
        "--web-port",
        str(web),
    )
    worker = locust(
        "--worker",
        "--master-host",
        "127.0.0.1",
        "--master-port",
        str(port),
        "--suite-run-dir",
        str(tmp_path),
        REQUEST_LOG="1",
    )
    try:
        log = tmp_path / f"requests-{worker.pid}.csv"
        deadline = time.monotonic() + 90
        while not log.exists() and worker.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert log.exists(), "the worker's run object was not attached"
        assert mapped(worker.pid) == []
        assert mapped(master.pid) != []  # the same check sees them where they are
    finally:
        for process in (worker, master):
            process.terminate()
            process.wait(timeout=30)


def mapped(pid: int) -> list[str]:
    """The shared objects of numpy and matplotlib in the process's memory."""
    maps = Path(f"/proc/{pid}/maps").read_text().splitlines()
    return [line for line in maps if any(f"/{lib}/" in line for lib in HEAVY)]
