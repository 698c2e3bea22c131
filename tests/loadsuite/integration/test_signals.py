"""`make run` and the load targets stop what they started whatever signal ends them (issue 43):
INT, TERM or HUP to make's process group (Ctrl-C in its terminal; a supervisor, a CI runner or
`timeout`; the terminal gone), or TERM to make alone, which make passes on. TERM to the group
once left MariaDB, both gunicorns and the rollup running: make passed its own TERM on to
scripts/run.sh, whose stop had already dropped its traps, and that second TERM ended it midway.

Each case has a `make run` of its own that starts the whole stack itself, as on a developer's
machine: a MariaDB of its own (a copy of one datadir holding both services' migrated
templates, so that nothing is migrated at its start), both services and the rollup on free
ports, and Locust. Beside it, as from a second terminal, a load target (`make smoke`) runs on
that stack, which it did not start and leaves up (docs/load-runs.md): its Locust master and
worker must be gone once make has exited, and the run must still have written its report.
Then `make run` gets the signal: what it started, found by PID (its pid files, and the gunicorn
masters' workers), must be gone. The four cases run at once: most of a start and a stop is
waiting. What `make run` printed is read too: where the staff password is, never the password,
and axes' start-up banner at most once."""

import os
import shutil
import signal
import subprocess
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import pytest

from common.environment import get
from tests.loadsuite.runs import under_way, wait_for
from tests.support import templates
from tests.support.servers import free_port, migrated_template
from tests.support.stack import ROOT, stack_environment

pytestmark = pytest.mark.slow

# case: (signal, sent to make's whole process group, or to make alone)
SIGNALS = {
    "INT to the group": (signal.SIGINT, True),
    "TERM to the group": (signal.SIGTERM, True),
    "HUP to the group": (signal.SIGHUP, True),
    "TERM to make alone": (signal.SIGTERM, False),
}
# Its MariaDB is its own: the databases have a developer's names, and the accounts their grants.
DATABASES = {"ecommerce": "ecommerce", "lms_stub": "lms"}
MYSQL_SH = str(ROOT / "scripts/mysql.sh")


def case_env(name: str) -> dict:
    """The environment of one `make run`: var/test/signals/<name>/, free ports, a MariaDB of its
    own under it, one worker per service (each still a gunicorn master with a worker)."""
    env = stack_environment(f"signals/{name}", tuple(DATABASES.values()))
    return {
        **env,
        "MYSQL_DIR": str(Path(env["VAR_DIR"]) / "mysql"),
        "MYSQL_PORT": str(free_port()),
        "MYSQL_BUFFER_POOL_SIZE": "32M",
        "ECOMMERCE_WORKERS": "1",
        "LMS_WORKERS": "1",
    }


def remove(env: dict, stop: bool = True) -> None:
    """A case's folder gone, and first, if ``stop``, whatever its pid files name (a crashed
    session's processes, or those a failed test left)."""
    if Path(env["VAR_DIR"]).exists():
        if stop:
            subprocess.run(
                [str(ROOT / "scripts/stack.sh"), "down"], env=env, capture_output=True, timeout=300
            )
        shutil.rmtree(env["VAR_DIR"])


def migrated_datadir(env: dict) -> Path:
    """A stopped MariaDB's datadir holding both services' databases as the tests' templates are
    (migrated, nothing more), dumped from the tests' MariaDB over its root socket."""
    subprocess.run([MYSQL_SH, "up"], env=env, check=True, capture_output=True, timeout=120)
    tests_mysql = {k: v for k, v in os.environ.items() if k != "MYSQL_HOST"}  # as scripts/mysql.sh
    try:
        for service, database in DATABASES.items():
            template = migrated_template(service)
            dump = subprocess.Popen(
                [
                    "mariadb-dump",
                    f"--defaults-file={Path(get('MYSQL_DIR')) / 'my.cnf'}",
                    "--protocol=socket",
                    "--single-transaction",
                    f"--ignore-table={template}.{templates.READY}",
                    template,
                ],
                env=tests_mysql,
                stdout=subprocess.PIPE,
            )
            subprocess.run(
                [MYSQL_SH, "shell", database], env=env, stdin=dump.stdout, check=True, capture_output=True
            )
            dump.stdout.close()
            assert dump.wait(60) == 0
    finally:
        subprocess.run([MYSQL_SH, "down"], env=env, check=True, capture_output=True, timeout=120)
    return Path(env["MYSQL_DIR"]) / "data"


def alive(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def still_running(processes: dict[str, psutil.Process], seconds: float = 10) -> list[str]:
    """Those of ``processes`` still running after up to ``seconds`` (a stopped process's parent
    may take a moment to reap it)."""
    try:
        wait_for(lambda: not any(map(alive, processes.values())), seconds)
    except AssertionError:
        pass
    return [f"{name} (pid {process.pid})" for name, process in processes.items() if alive(process)]


def with_children(name: str, pid: int) -> dict[str, psutil.Process]:
    process = psutil.Process(pid)
    return {name: process, **{f"{name}'s child {c.pid}": c for c in process.children(recursive=True)}}


def command_line(process: psutil.Process) -> str:
    try:
        return " ".join(process.cmdline())
    except psutil.Error:  # ended (a zombie) since it was listed
        return ""


def start_make(target: str, env: dict, log: Path) -> subprocess.Popen:
    """``make TARGET`` as a shell in a terminal starts it, leader of its own process group,
    with every signal at its default. A test run started in the background of a shell without
    job control (a loop, `make fresh-test &`, some CI runners) ignores INT and QUIT, one started
    under nohup ignores HUP, and make and run.sh would inherit that: a signal ignored when bash
    starts cannot be trapped, so the signal to the group stopped nothing and the test waited in
    vain (INT twice, until run.sh's signal masks were printed: SigIgn 0x180000006; HUP once,
    under a loop started with nohup: SigIgn 0x1)."""
    with open(log, "wb") as output:
        return subprocess.Popen(
            ["env", "--default-signal", "make", "--no-print-directory", target],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def send(make: subprocess.Popen, case: str) -> None:
    """The case's signal, to make's process group or to make alone (nothing, once it is gone)."""
    signum, to_group = SIGNALS[case]
    try:
        if to_group:
            os.killpg(make.pid, signum)
        else:
            os.kill(make.pid, signum)
    except ProcessLookupError:
        pass


@dataclass
class MakeRun:
    env: dict
    make: subprocess.Popen
    log: Path
    started: dict[str, psutil.Process] = field(default_factory=dict)

    @property
    def var(self) -> Path:
        return Path(self.env["VAR_DIR"])

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def pid_file(self, name: str) -> Path:
        if name == "mariadb":
            return Path(self.env["MYSQL_DIR"]) / "mysqld.pid"
        return Path(self.env["VAR_DIR"]) / "run" / f"{name}.pid"

    def find_started(self) -> dict[str, psutil.Process]:
        """What it started, by PID: scripts/run.sh (make's child), MariaDB, both gunicorn masters
        and their workers, the rollup and Locust (its pid file has its URL after the pid)."""
        (script,) = psutil.Process(self.make.pid).children()
        found = {"scripts/run.sh": script}
        for name in ("mariadb", "lms_stub", "ecommerce", "rollup", "locust"):
            found.update(with_children(name, int(self.pid_file(name).read_text().split()[0])))
        return found

    def state(self) -> str:
        """What a stop that did not come looked like: make's and run.sh's state, the signals
        each blocks, ignores and catches (/proc's masks), where each sleeps, and make's output."""
        lines = []
        for name, pid in (("make", self.make.pid), ("scripts/run.sh", self.started["scripts/run.sh"].pid)):
            try:
                status = Path(f"/proc/{pid}/status").read_text().splitlines()
                masks = [line for line in status if line.startswith(("State", "SigBlk", "SigIgn", "SigCgt"))]
                wchan = Path(f"/proc/{pid}/wchan").read_text()
                lines.append(f"{name} {pid}: {'; '.join(masks)}; sleeping in {wchan or '-'}")
            except OSError:
                lines.append(f"{name} {pid}: gone")
        return "\n".join([*lines, "output:", self.output()[-3000:]])

    def up(self) -> bool:
        assert self.make.poll() is None, self.output()[-3000:]
        if "Press Ctrl-C to stop." not in self.output() or not self.pid_file("locust").exists():
            return False
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.env['LOCUST_PORT']}/", timeout=2) as page:
                return page.status == 200
        except OSError:
            return False


@pytest.fixture(scope="module")
def make_runs(stack_env):
    """One `make run` per case, all up at once. (The load suite's stack comes first: its start
    collects the static files these share, which four starts at once would all collect.)"""
    envs = {case: case_env(case.replace(" ", "-")) for case in SIGNALS}
    template_env = case_env("template")
    for env in [template_env, *envs.values()]:
        remove(env)
    datadir = migrated_datadir(template_env)
    runs = {}
    try:
        for case, env in envs.items():
            shutil.copytree(datadir, Path(env["MYSQL_DIR"]) / "data", symlinks=True)
            log = Path(env["VAR_DIR"]) / "make-run.log"
            runs[case] = MakeRun(env, start_make("run", env, log), log)
        for run in runs.values():
            wait_for(run.up, 300)
            run.started = run.find_started()
        yield runs
    finally:
        for run in runs.values():
            if run.make.poll() is None:
                os.killpg(run.make.pid, signal.SIGTERM)
                run.make.wait(300)
        remove(template_env, stop=False)  # its MariaDB was stopped once the datadir was made
        for run in runs.values():
            remove(run.env, stop=not run.started or bool(still_running(run.started, 0)))


def said(runs: dict, makes: dict) -> str:
    """What each of ``runs``' load targets printed (its traceback, if any), its exit code, and
    the end of its Locust's log: the evidence a failure needs, its folder being removed."""
    parts = []
    for case, run in runs.items():
        log = (run.var / "make-smoke.log").read_text(errors="replace")[-4000:]
        parts.append(f"--- {case}: make exited {makes[case].returncode}\n{log}")
        for locust_log in sorted((run.var / "runs").glob("*-smoke/locust*.log")):
            parts.append(f"--- {case}: {locust_log.name}\n{locust_log.read_text(errors='replace')[-2000:]}")
    return "\n".join(parts)


def test_make_run_names_the_staff_password_file_and_prints_no_password(make_runs):
    run = make_runs["TERM to make alone"]
    password_file = run.var / "staff-password"
    password = password_file.read_text()
    assert len(password) >= 12 and password not in run.output()
    assert f"user staff, password in {password_file}" in run.output()
    assert password_file.stat().st_mode & 0o777 == 0o600


def test_make_run_prints_the_axes_banner_once_at_most(make_runs):
    # It printed it four times: once for each Django command of the start.
    assert make_runs["TERM to make alone"].output().count("AXES: BEGIN") <= 1


def test_a_load_target_stops_its_locust_and_leaves_the_stack_it_found(make_runs):
    """`make smoke` beside each case's `make run`, as from a second terminal: the stack is make
    run's, and stays up (and its Locust) when the load target stops."""
    env = {"USERS": "1", "STEP_SECONDS": "120", "WORKERS": "1"}
    makes = {
        case: start_make("smoke", {**run.env, **env}, run.var / "make-smoke.log")
        for case, run in make_runs.items()
    }
    try:
        started, folders = {}, {}
        for case, make in makes.items():
            runs = make_runs[case].var / "runs"
            wait_for(lambda runs=runs: any(map(under_way, runs.glob("*-smoke"))))
            (folders[case],) = runs.glob("*-smoke")
            (run,) = psutil.Process(make.pid).children()  # make's shell execs the run
            locusts = [child for child in run.children() if "bin/locust" in command_line(child)]
            assert len(locusts) == 2, run.children()  # Locust's master and its worker
            started[case] = {"the run": run, **{f"locust {p.pid}": p for p in locusts}}
        for case, make in makes.items():
            send(make, case)
        time.sleep(1)  # the stop under way: Locust is writing the report
        for case, make in makes.items():
            send(make, case)  # again: it must not cut the stop short
        for make in makes.values():
            make.wait(180)
        left = {case: still_running(started[case], 60) for case in SIGNALS}
        assert left == {case: [] for case in SIGNALS}, said({c: make_runs[c] for c in left if left[c]}, makes)
        unreported = [case for case in SIGNALS if not (folders[case] / "summary.json").exists()]
        assert unreported == [], said({c: make_runs[c] for c in unreported}, makes)
        stopped = {
            case: [name for name, p in run.started.items() if not alive(p)] for case, run in make_runs.items()
        }
        assert stopped == {case: [] for case in SIGNALS}
    finally:
        for make in makes.values():
            if make.poll() is None:
                os.killpg(make.pid, signal.SIGTERM)
                make.wait(180)


def test_make_run_stops_everything_it_started_whatever_the_signal(make_runs):
    started = {case: run.started for case, run in make_runs.items()}
    for case, processes in started.items():
        workers = [name for name in processes if name.startswith(("lms_stub's child", "ecommerce's child"))]
        assert len(workers) == 2, (case, processes)  # a worker each
    for case, run in make_runs.items():
        send(run.make, case)
    # The same signal again once the stop is under way (a supervisor repeats it, a user presses
    # Ctrl-C twice): it must not cut the stop short.
    for case, run in make_runs.items():
        wait_for(lambda run=run: "run: stopping what this command started" in run.output(), 60, run.state)
        send(run.make, case)
    for run in make_runs.values():
        run.make.wait(180)
    left = {case: still_running(started[case], 120) for case in SIGNALS}
    assert left == {case: [] for case in SIGNALS}
    for case, run in make_runs.items():
        output = run.output()
        for name in ("locust", "rollup", "ecommerce", "lms_stub", "mariadb"):
            assert f"{name}: stopped (pid {started[case][name].pid})" in output, (case, output[-3000:])
