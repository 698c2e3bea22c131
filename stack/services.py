"""lms_stub and ecommerce under gunicorn and the purchase-counter rollup: the databases made ready
for them (migrated, seeded, the staff login), each started in a session of its own with a pid
file under VAR_DIR/run, awaited until healthy, and stopped in the order the orders need.
"""

import os
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from common.environment import ROOT, get, given, raw
from stack import mysql, staff
from stack.processes import (
    StackError,
    pid_alive,
    pid_of,
    port_in_use,
    run_step,
    say,
    start_detached,
    stop_pid,
    stop_pids,
    tail,
)

HEALTHY_SECONDS = 60


@dataclass(frozen=True)
class Service:
    """One of the two services: its gunicorn configuration and the variable of its port."""

    name: str
    config: str
    port_variable: str

    def port(self) -> int:
        return get(self.port_variable)


LMS = Service("lms_stub", "lms_stub/gunicorn.conf.py", "LMS_PORT")
ECOMMERCE = Service("ecommerce", "ecommerce/gunicorn.conf.py", "ECOMMERCE_PORT")


def run_dir() -> Path:
    return Path(get("VAR_DIR")) / "run"


def log_dir() -> Path:
    return Path(get("VAR_DIR")) / "log"


def pidfile(name: str) -> Path:
    return run_dir() / f"{name}.pid"


def manage_argv(*args: str) -> list[str]:
    return [get("PYTHON"), str(ROOT / "manage.py"), *args]


def as_owner(env: dict[str, str] | None = None, **extra: str) -> dict[str, str]:
    """A management command that makes or fills tables connects as the owner account; the
    services and the rollup keep their own (docs/configuration.md, "Database accounts")."""
    return {**(os.environ if env is None else env), **extra, "DB_ACCOUNT": "owner"}


def collect_static() -> None:
    """collectstatic compresses every file each time (about 13 s); the files come only from the
    installed packages, so they are collected again only when the virtualenv's requirements
    changed."""
    stamp = Path(get("STATIC_DIR")) / ".collected-for"
    try:
        wanted = (ROOT / ".venv/.requirements.sha").read_text()
    except OSError:
        wanted = ""
    if wanted and stamp.is_file() and stamp.read_text() == wanted:
        return
    run_step(manage_argv("collectstatic", "--noinput", "-v0"))
    if wanted:
        stamp.write_text(wanted)


def prepare() -> None:
    """Bootstrap, MariaDB, then both databases migrated (side by side: separate databases,
    separate processes), the catalogue seeded, static files collected, the staff login made."""
    run_step([str(ROOT / "scripts/bootstrap.sh")])
    mysql.up(mysql.Server.from_environment())
    run_dir().mkdir(parents=True, exist_ok=True)
    log_dir().mkdir(parents=True, exist_ok=True)
    for path in [log_dir(), *log_dir().rglob("*")]:  # logs an older checkout made world-readable
        path.chmod(path.stat().st_mode & ~0o007)
    say("stack: migrating")
    lms_migrate = subprocess.Popen(
        manage_argv("migrate", "--noinput", "-v0"), env=as_owner(DJANGO_SETTINGS_MODULE="settings.lms_stub")
    )
    try:
        run_step(manage_argv("migrate", "--noinput", "-v0"), env=as_owner())
        courses, domain = raw("CATALOG_COURSES") or "", f"127.0.0.1:{raw('ECOMMERCE_PORT')}"
        run_step(manage_argv("seed_catalog", "--courses", courses, "--site-domain", domain), env=as_owner())
        collect_static()
        password = staff.STAFF_PASSWORD.value()
        run_step(
            manage_argv("ensure_staff", "--username", raw("ECOMMERCE_STAFF_USER") or ""),
            env=as_owner(ECOMMERCE_STAFF_PASSWORD=password),
        )
    finally:
        migrated = lms_migrate.wait() == 0
    if not migrated:
        raise StackError("lms_stub: migrate failed")


def gunicorn_argv(service: Service) -> tuple[list[str], dict[str, str]]:
    """The command that starts ``service`` and its environment. ECOMMERCE_CPUS (a taskset list
    such as 0 or 0-3) pins ecommerce to those cores. The key that signs staff tokens reaches
    ecommerce alone (its environment, not its argv). With a New Relic license key (or config
    file) the agent wraps gunicorn; each service reports as its own application,
    "<NEW_RELIC_APP_NAME>-<service>", with the product's settings (settings/newrelic.ini, as
    deployed) unless NEW_RELIC_CONFIG_FILE names a file of one's own; settings/effective.py says
    the same."""
    cpus = given("ECOMMERCE_CPUS") if service is ECOMMERCE else None
    pin = ["taskset", "-c", cpus] if cpus else []
    agent, agent_config = [], given("NEW_RELIC_CONFIG_FILE") or ""
    app_name = f"{raw('NEW_RELIC_APP_NAME')}-{service.name}"
    if given("NEW_RELIC_LICENSE_KEY") or agent_config:
        agent = [str(Path(get("VENV")) / "bin/newrelic-admin"), "run-program"]
        agent_config = agent_config or str(ROOT / "settings/newrelic.ini")
        say(f'{service.name}: under the New Relic agent as "{app_name}" ({agent_config})')
    env = {
        **os.environ,
        "STAFF_JWT_SECRET_KEY": staff.STAFF_JWT_SECRET.value() if service is ECOMMERCE else "",
        "NEW_RELIC_CONFIG_FILE": agent_config,
        "NEW_RELIC_APP_NAME": app_name,
    }
    return [*pin, *agent, get("PYTHON"), "-m", "gunicorn", "-c", service.config], env


def launch(service: Service) -> None:
    """Start gunicorn unless it already runs; ``await_healthy`` waits until it answers. Both
    services are launched before either is awaited, so that their workers' start-up (mostly
    importing Django and Oscar) overlaps."""
    path = pidfile(service.name)
    if pid_alive(path):
        say(f"{service.name}: already running (pid {pid_of(path)})")
        return
    if port_in_use(service.port()):
        raise StackError(
            f"{service.name}: port {service.port()} is taken by another program; "
            f"set {service.port_variable} to a free port"
        )
    path.unlink(missing_ok=True)
    argv, env = gunicorn_argv(service)
    start_detached(argv, log_dir() / f"{service.name}.out", cwd=ROOT, env=env)


def answers_200(url: str, seconds: float) -> bool:
    """Until ``url`` answers 200; False after ``seconds``. Never through a proxy: it is local."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with opener.open(url, timeout=2) as response:
                if response.status == 200:
                    return True
        except Exception:  # refused, reset, an error status: not up yet
            pass
        time.sleep(0.2)
    return False


def await_healthy(service: Service) -> None:
    port = service.port()
    if not answers_200(f"http://127.0.0.1:{port}/health/", HEALTHY_SECONDS):
        for path in (log_dir() / f"{service.name}.log", log_dir() / f"{service.name}.out"):
            if path.is_file():
                say(f"==> {path} <==")
                for line in tail(path, 30):
                    say(line)
        raise StackError(
            f"{service.name} did not become healthy on port {port} within {HEALTHY_SECONDS} s; "
            f"see {log_dir() / service.name}.log"
        )
    say(f"{service.name}: running on http://127.0.0.1:{port} (pid {pid_of(pidfile(service.name))})")


def start_rollup() -> None:
    """The loop that folds purchase events into Oscar's product records."""
    path = pidfile("rollup")
    if pid_alive(path, "rollup_counters"):
        say(f"rollup: already running (pid {pid_of(path)})")
        return
    interval = raw("ROLLUP_INTERVAL") or ""
    argv = [get("PYTHON"), "manage.py", "rollup_counters", "--loop", "--interval", interval]
    process = start_detached(argv, log_dir() / "rollup.log", cwd=ROOT)
    path.write_text(f"{process.pid}\n")
    say(f"rollup: folding purchase counts every {interval} s (pid {process.pid})")


def settings_argv() -> list[str]:
    """NAME=value of every setting that reaches the services, as they resolve it (their own
    defaults applied). The load suite restarts the services when these differ from the ones
    recorded at their start (VAR_DIR/run/stack.env)."""
    return [get("PYTHON"), "-m", "settings.effective"]


def record_settings() -> None:
    with open(run_dir() / "stack.env", "w") as output:
        run_step(settings_argv(), cwd=ROOT, stdout=output)


def start_all() -> None:
    """Prepare, start both services and the rollup, record their settings."""
    prepare()
    launch(LMS)
    launch(ECOMMERCE)
    await_healthy(LMS)
    await_healthy(ECOMMERCE)
    start_rollup()
    record_settings()


def stop_services() -> None:
    """The rollup and ecommerce at once (neither waits on the other), then the LMS, so that the
    orders ecommerce finishes while it stops can still make their enrollment calls."""
    stop_pids(
        [(pidfile("rollup"), "rollup", "rollup_counters"), (pidfile("ecommerce"), "ecommerce", "ecommerce")]
    )
    stop_pid(pidfile("lms_stub"), "lms_stub", "lms_stub")


def all_running() -> bool:
    return (
        mysql.is_up(mysql.Server.from_environment())
        and pid_alive(pidfile("lms_stub"), "lms_stub")
        and pid_alive(pidfile("ecommerce"), "ecommerce")
        and pid_alive(pidfile("rollup"), "rollup_counters")
    )
