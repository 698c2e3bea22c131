"""One load run from the command line: ``python -m locustfiles.suite.run PROFILE``.

Starts the stack if it is not up (sized by HOST_PROFILE if set), then Locust headless (or its
web UI with UI=1), with WORKERS worker processes if asked, on 127.0.0.1 only. The run folder
var/runs/<timestamp>-<profile>/ gets summary.json, report.md, report.html, plots and Locust's
CSVs; its path is the last line printed. The exit code is Locust's: 1 when a threshold or the
audit failed.

Sizes come from the environment (the make variables): USERS, STEP_SECONDS, RPM, DURATION,
HOURS, BUCKET_SECONDS, WARMUP_SECONDS, RPM_START, RPM_STEP, RPM_MAX, KNEE_PCT, COURSES, WORKERS, THRESHOLDS,
HOST_PROFILE, UI, WAIT_MIN, WAIT_MAX, BUY_WEIGHT, PAY_WEIGHT, READ_WEIGHT; for chaos FAULTS,
PHASE_SECONDS, FAULT_SECONDS; for profile SAMPLE_HZ; for edx2015 the 2015 client's own settings
(locustfiles/edx2015/config.py).
PRELOAD=N first fills the databases to N preloaded purchases if they hold fewer (make preload).
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from common.environment import env_bool, get, given
from locustfiles.suite.core import catalogue, run_folders
from locustfiles.suite.core.names import PROGRESS_FILE, WEB_OPERATOR
from locustfiles.suite.report import terminal
from locustfiles.suite.run import admission
from locustfiles.suite.stack import hosts, services
from locustfiles.suite.stack.commands import ROOT
from locustfiles.suite.tools import preload
from locustfiles.suite.verdict import facts

# Seconds the master has, once told to stop, to write the report; then it is killed.
MASTER_STOP_SECONDS = 60
# What stops a run as Ctrl-C does: Ctrl-C itself, TERM (make down; a supervisor, a CI runner or
# `timeout`; make passing its own on) and HUP (the terminal gone).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Stop:
    """Whether one of STOP_SIGNALS asked the run to stop. A signal is noted, never raised: they
    come in pairs (make passes its TERM on while the process group gets one too), and the second,
    raised as KeyboardInterrupt while the first one's was being handled, ended this process before
    it had told Locust to stop, leaving Locust's master and worker running (TERM to `make smoke`'s
    group, on a fresh root's `make test`). SIGINT too, which a shell starts a background job with
    ignored."""

    def __init__(self) -> None:
        self.asked = False

    def install(self) -> None:
        for signum in STOP_SIGNALS:
            signal.signal(signum, self.note)

    def note(self, signum, frame) -> None:
        self.asked = True


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in catalogue.RUNNABLE:
        print(f"usage: python -m locustfiles.suite.run {{{','.join(catalogue.RUNNABLE)}}}", file=sys.stderr)
        return 2
    profile = argv[0]
    env = dict(os.environ)
    host_env, host = hosts.environment(given("HOST_PROFILE", env))
    env.update(host_env)
    env.setdefault("PYTHONPATH", str(ROOT))
    env["PROFILE"] = profile
    ui = (given("UI", env) or "") not in ("", "0", "false")
    try:  # refuse bad sizes before starting anything
        admitted = admission.admit(profile, env)
        login = ui and env_bool("WEB_LOGIN", env)  # Locust takes it as --web-login (run/hooks.py)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    stop = Stop()
    run_dir = _prepare(profile, env, host, admitted.preload, stop)
    size_mb = round(preload.tablespace_bytes(facts.databases()) / 2**20, 1)
    locust_port = get("LOCUST_PORT", env)
    services.register_run(env, profile, f"http://127.0.0.1:{locust_port}" if ui else None)

    def first() -> None:
        if ui:
            print(f"Locust web UI: http://127.0.0.1:{locust_port}  (Ctrl-C to stop)", flush=True)
            if login:  # the password's file, never its value
                where = get("WEB_LOGIN_PASSWORD_FILE", env)
                print(f"Its login: user {WEB_OPERATOR}, the password in {where}")
            print("The machine's latest report (any run's): /suite/report in the web UI", flush=True)
        admission.database_at_start(env, run_dir, size_mb)

    commands = _locust_commands(profile, env, run_dir, ui, admitted.workers)
    return _follow(commands, env, run_dir, ui, first, stop)


def _prepare(profile: str, env: dict, host: dict, preload_to: int | None, stop: Stop) -> Path:
    """The stack up (and preloaded), ``stop`` taking the signals that stop the run, and the
    run's folder with the services' configuration in SUITE_CONFIG."""
    running = services.ensure_up(env)
    if preload_to:
        admission.preload_up_to(preload_to, running, env)
    stop.install()
    run_dir = run_folders.stamped(run_folders.runs(get("VAR_DIR", env)), profile)
    run_dir.mkdir(parents=True, exist_ok=True)
    env["SUITE_CONFIG"] = json.dumps(admission.service_config(running, host))
    return run_dir


def _locust_commands(profile: str, env: dict, run_dir: Path, ui: bool, workers: int) -> list:
    """The commands of the Locust master (or the local runner) and its workers, each with the
    name of its log in the run's folder; the master first."""
    locust = str(ROOT / ".venv/bin/locust")
    common = [
        "-f",
        ",".join(str(ROOT / path) for path in catalogue.get(profile).locustfiles(env)),
        "--suite-run-dir",
        str(run_dir),
    ]
    master = [locust, *common, "--host", get("LMS_URL", env), "--csv", str(run_dir / "locust")]
    # the exit code is the suite's verdict, not "some request failed"
    master += ["--stop-timeout", str(admission.STOP_TIMEOUT), "--exit-code-on-error", "0"]
    master += ["--loglevel", "WARNING"]
    if ui:
        master += ["--web-host", "127.0.0.1", "--web-port", str(get("LOCUST_PORT", env))]
    else:
        master += ["--headless", "--only-summary"]
    port = None
    if workers:
        port = _free_port()
        master += ["--master", "--master-bind-host", "127.0.0.1", "--master-bind-port", str(port)]
        if not ui:
            master += ["--expect-workers", str(workers)]
    return [(master, "locust.log")] + [
        (
            [locust, *common, "--worker", "--master-host", "127.0.0.1", "--master-port", str(port)],
            f"locust-worker-{i}.log",
        )
        for i in range(workers)
    ]


def _start(command: list, env: dict, log: Path) -> subprocess.Popen:
    """One Locust process, in a session of its own: a signal to the run's process group (Ctrl-C
    in its terminal) reaches the run, which tells each Locust once (_interrupt); hit by the
    group's signal as well, Locust would stop twice and the second would cut its report short."""
    with open(log, "w") as output:
        return subprocess.Popen(
            command,
            env=env,
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def _interrupt(processes: list) -> int:
    """Every Locust process told once to stop (SIGINT, not SIGTERM: a headless Locust with a load
    shape installs its SIGTERM handler only once the shape has ended, and would die on SIGTERM
    without its report); the master's exit code, once it has written the report or was killed."""
    for process in processes:
        process.send_signal(signal.SIGINT)
    if not processes:
        return 1
    try:
        return processes[0].wait(MASTER_STOP_SECONDS)
    except subprocess.TimeoutExpired:
        processes[0].kill()
        processes[0].wait()
        return 1


def _follow(commands: list, env: dict, run_dir: Path, ui: bool, first, stop: Stop) -> int:
    """Locust started, ``first()`` while it starts, then progress until the master ends or
    ``stop`` is asked (then every process stops as on Ctrl-C), then the terminal's summary and
    the run's folder; the master's exit code, 1 without a report."""
    progress = Progress(run_dir / PROGRESS_FILE)
    processes: list[subprocess.Popen] = []
    code = None
    try:
        for command, log in commands:
            if not stop.asked:
                processes.append(_start(command, env, run_dir / log))
        if not stop.asked:
            first()
            code = progress.follow(processes[0], stop)
    finally:  # also when a write fails (HUP: the terminal is gone): no Locust is left running
        if code is None:
            code = _interrupt(processes)
    deadline = time.monotonic() + 30
    for process in processes[1:]:
        try:
            process.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
    progress.show()
    if not (run_dir / "summary.json").exists():
        if (run_dir / "locust.log").exists():
            sys.stderr.write((run_dir / "locust.log").read_text()[-3000:])
        print(f"no report was written; see {run_dir / 'locust.log'}", file=sys.stderr)
        code = code or 1
    elif not ui:
        print("\n".join(terminal.lines(json.loads((run_dir / "summary.json").read_text()))))
        print(f"report: {run_dir / 'report.html'}")
    print(run_dir)
    return code


class Progress:
    """Prints the run's progress lines (step by step) as the suite writes them."""

    def __init__(self, path: Path):
        self.path, self.offset = path, 0

    def show(self) -> None:
        try:
            with open(self.path) as handle:
                handle.seek(self.offset)
                text = handle.read()
        except OSError:
            return
        complete = text[: text.rfind("\n") + 1]
        if complete:
            print(complete, end="", flush=True)
            self.offset += len(complete.encode())

    def follow(self, process: subprocess.Popen, stop: Stop) -> int | None:
        """The process's exit code once it ends; None once ``stop`` is asked first."""
        while (code := process.poll()) is None and not stop.asked:
            self.show()
            time.sleep(0.5)
        return code


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
