"""The project's private MariaDB: a datadir under MYSQL_DIR (var/mysql), listening on
127.0.0.1:MYSQL_PORT and on a socket beside it. No system service and nothing from /etc/mysql is
used.

    python3 -P -m stack.mysql up       initialise if needed, start if stopped, create the databases
                                       and the accounts (docs/configuration.md, "Database accounts")
    python3 -P -m stack.mysql down     stop it
    python3 -P -m stack.mysql status   say whether it runs (exit 3 when it does not)
    python3 -P -m stack.mysql shell    a root client on the socket (extra arguments go to the client)
    python3 -P -m stack.mysql reset    stop it and delete the datadir (every database is lost)

scripts/mysql.sh runs it, after scripts/lib.sh has made sure there is a python3.
"""

import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from common.environment import get, raw
from stack import accounts
from stack.processes import (
    StackError,
    StepFailed,
    pid_alive,
    pid_of,
    port_in_use,
    say,
    script,
    start_detached,
    stop_pid,
    tail,
)

USAGE = "usage: scripts/mysql.sh up|down|status|shell|reset"
STOP_SECONDS = 120
# What the configuration file sets from the environment, by the option it sets.
SERVER_SETTINGS = (
    ("innodb_buffer_pool_size", "MYSQL_BUFFER_POOL_SIZE"),
    ("innodb_flush_log_at_trx_commit", "MYSQL_FLUSH_LOG_AT_TRX_COMMIT"),
    ("innodb_lock_wait_timeout", "MYSQL_LOCK_WAIT_TIMEOUT"),
    ("max_connections", "MYSQL_MAX_CONNECTIONS"),
    ("performance_schema", "MYSQL_PERFORMANCE_SCHEMA"),
)


@dataclass(frozen=True)
class Server:
    """Where one private MariaDB keeps its files, and its port."""

    folder: Path
    log_dir: Path
    port: int

    @classmethod
    def from_environment(cls) -> "Server":
        return cls(Path(get("MYSQL_DIR")), Path(get("VAR_DIR")) / "log", get("MYSQL_PORT"))

    @property
    def datadir(self) -> Path:
        return self.folder / "data"

    @property
    def pidfile(self) -> Path:
        return self.folder / "mysqld.pid"

    @property
    def socket(self) -> Path:
        return self.folder / "mysqld.sock"

    @property
    def config(self) -> Path:
        return self.folder / "my.cnf"

    @property
    def log(self) -> Path:
        return self.log_dir / "mariadb.log"

    def pid(self) -> str:
        return pid_of(self.pidfile) or ""

    def alive(self) -> bool:
        return pid_alive(self.pidfile, "mariadbd")


def config_text(server: Server, settings: dict[str, str], as_root: bool) -> str:
    """my.cnf: the server's files, its port on 127.0.0.1 only, the tuning variables of the
    environment, and a client section for root on the socket."""
    tuning = "".join(f"{option}={settings[name]}\n" for option, name in SERVER_SETTINGS)
    return f"""# Written by stack/mysql.py on every start, from the MYSQL_* variables: set those.
[mariadbd]
datadir={server.datadir}
socket={server.socket}
pid-file={server.pidfile}
log-error={server.log}
port={server.port}
bind-address=127.0.0.1
{"user=root" if as_root else ""}
skip-name-resolve
character-set-server=utf8mb4
collation-server=utf8mb4_unicode_ci
{tuning}
[client]
socket={server.socket}
user=root
"""


def write_config(server: Server) -> None:
    server.folder.mkdir(parents=True, exist_ok=True)
    server.log_dir.mkdir(parents=True, exist_ok=True)
    server.folder.chmod(0o700)
    settings = {name: raw(name) or "" for _, name in SERVER_SETTINGS}
    server.config.write_text(config_text(server, settings, os.geteuid() == 0))


def client_environment() -> dict[str, str]:
    """libmariadb lets a MYSQL_HOST in the environment override the socket: it is dropped."""
    return {name: value for name, value in os.environ.items() if name != "MYSQL_HOST"}


def client_argv(server: Server, *args: str) -> list[str]:
    return ["mariadb", f"--defaults-file={server.config}", "--protocol=socket", *args]


def answers(server: Server) -> bool:
    done = subprocess.run(
        [
            "mariadb-admin",
            f"--defaults-file={server.config}",
            "--protocol=socket",
            "--connect-timeout=1",
            "ping",
        ],
        env=client_environment(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return done.returncode == 0


def is_up(server: Server) -> bool:
    return server.alive() and answers(server)


def wait_for_ping(server: Server, seconds: float) -> bool:
    """Until the server answers; False after ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if answers(server):
            return True
        time.sleep(0.1)
    return False


def initialise(server: Server) -> None:
    if (server.datadir / "mysql").is_dir():
        return
    say(f"mariadb: initialising {server.datadir}")
    server.datadir.mkdir(parents=True, exist_ok=True)
    install_log = server.log_dir / "mariadb-install.log"
    as_root = ["--user=root"] if os.geteuid() == 0 else []
    with open(install_log, "wb") as output:
        done = subprocess.run(
            [
                "mariadb-install-db",
                "--no-defaults",
                f"--datadir={server.datadir}",
                *as_root,
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
            ],
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    if done.returncode != 0:
        raise StackError(f"mariadb-install-db failed; see {install_log}")


def start(server: Server) -> None:
    write_config(server)
    if server.alive():
        # Running but perhaps still recovering: wait for it, never start a second server on its datadir.
        if not wait_for_ping(server, 120):
            raise StackError(f"mariadb (pid {server.pid()}) runs but does not answer; see {server.log}")
        say(f"mariadb: already running on 127.0.0.1:{server.port} (pid {server.pid()})")
        return
    if port_in_use(server.port):
        raise StackError(f"port {server.port} is taken by another program; set MYSQL_PORT to a free port")
    if not shutil.which("mariadbd"):
        raise StackError("mariadbd not found; run scripts/bootstrap.sh (as root) first")
    initialise(server)
    server.pidfile.unlink(missing_ok=True)
    start_detached(["mariadbd", f"--defaults-file={server.config}"], server.log)
    if wait_for_ping(server, 60):
        say(f"mariadb: running on 127.0.0.1:{server.port} (pid {server.pid()})")
        return
    for line in tail(server.log, 20):
        say(line)
    raise StackError(f"mariadb did not start within 60 s; see {server.log}")


def provision(server: Server) -> None:
    """Both databases and the accounts by job (stack/accounts.py), through root's socket."""
    try:
        sql = accounts.provision_sql(accounts.Names.from_environment())
    except accounts.BadName as exc:
        raise StackError(str(exc)) from None
    done = subprocess.run(client_argv(server), input=sql, text=True, env=client_environment())
    if done.returncode != 0:
        raise StepFailed(done.returncode)


def up(server: Server) -> None:
    start(server)
    provision(server)


def down(server: Server) -> None:
    stop_pid(server.pidfile, "mariadb", "mariadbd", STOP_SECONDS)


def status(server: Server) -> int:
    if is_up(server):
        say(f"mariadb: running on 127.0.0.1:{server.port} (pid {server.pid()})")
        return 0
    say("mariadb: stopped")
    return 3


def shell(server: Server, args: list[str]) -> None:
    """Root's client in place of this process: its terminal, its exit status."""
    write_config(server)
    try:
        os.execvpe("mariadb", client_argv(server, *args), client_environment())
    except FileNotFoundError:
        raise StackError("mariadb not found; run scripts/bootstrap.sh (as root) first") from None


def reset(server: Server) -> None:
    down(server)
    shutil.rmtree(server.datadir, ignore_errors=True)
    say("mariadb: datadir removed")


def run(argv: list[str]) -> int:
    command, args = (argv[0] if argv else ""), argv[1:]
    server = Server.from_environment()
    if command == "up":
        up(server)
    elif command == "down":
        down(server)
    elif command == "status":
        return status(server)
    elif command == "shell":
        shell(server, args)
    elif command == "reset":
        reset(server)
    else:
        raise StackError(USAGE)
    return 0


if __name__ == "__main__":
    script(run)
