"""The stack under load runs, on the load suite's real stack (conftest.py; CATALOG_COURSES
unset, as in a developer's shell): identical runs leave the services alone, a changed setting
restarts them and says so, and `make status` / `make down` know `make run`'s Locust."""

import subprocess
import sys
from pathlib import Path

import pytest

from tests.loadsuite.runs import ROOT, started, under_way, wait_for

# After the other tests on the load suite's stack (conftest.py): these restart its services,
# and the last one stops them.
pytestmark = [pytest.mark.slow, pytest.mark.stack_order(1)]


def server_pids(env: dict) -> dict[str, str]:
    run = Path(env["VAR_DIR"]) / "run"
    return {name: (run / f"{name}.pid").read_text().strip() for name in ("ecommerce", "lms_stub")}


def smoke(env: dict, **changed: str) -> str:
    """A two-second smoke run; its output."""
    done, _ = started(env, "smoke", **{"USERS": "1", "STEP_SECONDS": "2", **changed})
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def stack(env: dict, command: str) -> str:
    done = subprocess.run(
        [str(ROOT / "scripts/stack.sh"), command], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def test_two_identical_runs_keep_the_same_server_pids(stack_env):
    started = server_pids(stack_env)
    outputs = [smoke(stack_env), smoke(stack_env)]
    assert server_pids(stack_env) == started
    assert not any("restarting" in output for output in outputs), outputs


def test_a_changed_setting_restarts_the_services_and_names_it(stack_env):
    before = server_pids(stack_env)
    output = smoke(stack_env, ECOMMERCE_WORKERS="1")
    assert "restarting the services: ECOMMERCE_WORKERS 2 -> 1" in output
    after = server_pids(stack_env)
    assert after["ecommerce"] != before["ecommerce"] and after["lms_stub"] != before["lms_stub"]
    # the next run with the original setting restarts them back, naming it the other way round
    assert "restarting the services: ECOMMERCE_WORKERS 1 -> 2" in smoke(stack_env)


def test_the_stacks_logs_and_secrets_are_not_for_every_user(stack_env):
    """Issue 28: a log may hold what a request carried (a reset link, under the console mail
    backend of a developer's machine); the stack's logs and generated secrets are the owner's
    and its group's only, and only ecommerce holds the staff token key."""
    var = Path(stack_env["VAR_DIR"])
    logs = [path for path in (var / "log").iterdir() if path.is_file()]
    assert {"ecommerce.out", "ecommerce.log"} <= {path.name for path in logs}
    for path in [var / "log", *logs]:
        assert path.stat().st_mode & 0o007 == 0, (path, oct(path.stat().st_mode))
    assert (var / "staff-jwt-secret").stat().st_mode & 0o077 == 0
    ecommerce_env = Path(f"/proc/{server_pids(stack_env)['ecommerce']}/environ").read_bytes().split(b"\0")
    lms_env = Path(f"/proc/{server_pids(stack_env)['lms_stub']}/environ").read_bytes().split(b"\0")
    secret = (var / "staff-jwt-secret").read_bytes()
    assert b"STAFF_JWT_SECRET_KEY=" + secret in ecommerce_env
    assert not [
        entry for entry in lms_env if entry.startswith(b"STAFF_JWT_SECRET_KEY=") and entry.endswith(secret)
    ]


def test_status_lists_the_locusts_and_down_stops_them(stack_env):
    """`make run`'s web UI and a load run at once: `make status` lists them with pids and URL,
    `make down` stops both as Ctrl-C would. Last in this file: it stops the stack's services."""
    run_dir = Path(stack_env["VAR_DIR"]) / "run"
    # A stale pid file names a live process that is no load run: never listed, never signalled.
    bystander = subprocess.Popen(["sleep", "300"])
    stale = run_dir / f"suite-{bystander.pid}.pid"
    runs = Path(stack_env["VAR_DIR"]) / "runs"
    earlier = set(runs.glob("*-smoke"))
    output = {"stdout": subprocess.PIPE, "stderr": subprocess.STDOUT, "text": True}
    make_run = subprocess.Popen([str(ROOT / "scripts/run.sh")], env=stack_env, **output)
    load_run = subprocess.Popen(
        [sys.executable, "-m", "locustfiles.suite.run", "smoke"],
        cwd=ROOT,
        env={**stack_env, "USERS": "1", "STEP_SECONDS": "120"},
        **output,
    )
    try:
        stale.write_text(f"{bystander.pid}\nsmoke, headless\n")
        url = f"http://127.0.0.1:{stack_env['LOCUST_PORT']}"
        lines = (f"web UI {url}", f"load run: smoke, headless (pid {load_run.pid})", "  locust: pid")
        wait_for(lambda: all(map(stack(stack_env, "status").__contains__, lines)))
        status = stack(stack_env, "status")
        locust_pid = (run_dir / "locust.pid").read_text().split()[0]
        assert f"locust (make run): web UI {url} (pid {locust_pid})" in status
        assert f"load run: smoke, headless (pid {load_run.pid})" in status
        assert status.count("load run:") == 1 and not stale.exists()
        # under way: the suite's own "started" line (stopped earlier, while test_start still ran,
        # it would have nothing to report; Locust opens its stats history before that)
        wait_for(lambda: any(map(under_way, set(runs.glob("*-smoke")) - earlier)))

        stale.write_text(f"{bystander.pid}\nsmoke, headless\n")
        # `make down`, with a MariaDB of its own (none), so the shared one stays up for others
        down = stack({**stack_env, "MYSQL_DIR": str(Path(stack_env["VAR_DIR"]) / "no-mysql")}, "down")
        assert f"locust (make run): stopped (pid {locust_pid})" in down
        assert f"load run: stopped (pid {load_run.pid})" in down
        # both ended as after Ctrl-C: make run stopped what it started, the run wrote its folder
        assert "run: stopping what this command started" in make_run.communicate(timeout=60)[0]
        folder = Path(load_run.communicate(timeout=60)[0].strip().splitlines()[-1])
        assert (folder / "summary.json").exists()
        assert "locust (make run): not running" in stack(stack_env, "status")
        assert bystander.poll() is None
    finally:
        for process in (make_run, load_run):
            if process.poll() is None:
                process.terminate()
                process.communicate(timeout=120)
        bystander.kill()
        bystander.wait()
