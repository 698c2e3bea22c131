"""The private MariaDB (stack/mysql.py) through scripts/mysql.sh, as `make up` and `make test` use
it: a real server on a datadir and a port of the test's own, its messages and exit statuses."""

import os
import socket
import subprocess
from pathlib import Path

import pytest

from stack import mysql
from tests.support.processes import bystander
from tests.support.servers import free_port

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def private(tmp_path):
    """The environment of a private MariaDB under tmp_path, on a free port; stopped at the end."""
    env = {
        **os.environ,
        "VAR_DIR": str(tmp_path),
        "MYSQL_DIR": str(tmp_path / "mysql"),
        "MYSQL_PORT": str(free_port()),
        "MYSQL_BUFFER_POOL_SIZE": "32M",
    }
    yield env
    subprocess.run([str(ROOT / "scripts/mysql.sh"), "down"], env=env, capture_output=True, timeout=150)


def mysql_sh(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(ROOT / "scripts/mysql.sh"), *args], env=env, capture_output=True, text=True, timeout=150
    )


def test_the_configuration_keeps_the_server_on_its_own_files_and_127_0_0_1(tmp_path):
    server = mysql.Server(tmp_path / "mysql", tmp_path / "log", 28306)
    settings = {name: f"<{name}>" for _, name in mysql.SERVER_SETTINGS}
    text = mysql.config_text(server, settings, as_root=True)
    server_section = text.split("[client]")[0]
    for line in (
        f"datadir={tmp_path}/mysql/data",
        f"socket={tmp_path}/mysql/mysqld.sock",
        f"pid-file={tmp_path}/mysql/mysqld.pid",
        f"log-error={tmp_path}/log/mariadb.log",
        "port=28306",
        "bind-address=127.0.0.1",
        "user=root",
        "innodb_buffer_pool_size=<MYSQL_BUFFER_POOL_SIZE>",
        "performance_schema=<MYSQL_PERFORMANCE_SCHEMA>",
    ):
        assert line in server_section.splitlines()
    assert text.split("[client]")[1].split() == [f"socket={tmp_path}/mysql/mysqld.sock", "user=root"]
    assert "user=root" not in mysql.config_text(server, settings, as_root=False).split("[client]")[0]


def test_the_client_never_takes_mysql_host_over_the_socket(monkeypatch):
    monkeypatch.setenv("MYSQL_HOST", "db.example")
    assert "MYSQL_HOST" not in mysql.client_environment()


def test_a_port_another_program_holds_is_refused_before_a_datadir_is_made(private, tmp_path):
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        done = mysql_sh({**private, "MYSQL_PORT": str(port)}, "up")
    assert done.returncode == 1
    assert done.stderr == f"error: port {port} is taken by another program; set MYSQL_PORT to a free port\n"
    assert not (tmp_path / "mysql/data").exists()


def test_a_pid_file_naming_another_process_is_no_running_server(private, tmp_path):
    (tmp_path / "mysql").mkdir()
    with bystander() as other:
        (tmp_path / "mysql/mysqld.pid").write_text(f"{other.pid}\n")
        done = mysql_sh(private, "status")
        assert (done.returncode, done.stderr) == (3, "mariadb: stopped\n")
        done = mysql_sh(private, "down")
        assert (done.returncode, done.stderr) == (0, "mariadb: not running\n")
        assert not (tmp_path / "mysql/mysqld.pid").exists()
        assert other.poll() is None


def test_an_unknown_command_is_refused_with_the_usage(private):
    done = mysql_sh(private, "start")
    assert (done.returncode, done.stderr) == (
        1,
        "error: usage: scripts/mysql.sh up|down|status|shell|reset\n",
    )


@pytest.mark.slow
def test_up_status_shell_and_down_on_a_datadir_of_its_own(private, tmp_path):
    port = private["MYSQL_PORT"]
    done = mysql_sh(private, "up")
    assert done.returncode == 0, done.stderr
    pid = (tmp_path / "mysql/mysqld.pid").read_text().strip()
    assert done.stderr.splitlines() == [
        f"mariadb: initialising {tmp_path}/mysql/data",
        f"mariadb: running on 127.0.0.1:{port} (pid {pid})",
    ]
    assert oct((tmp_path / "mysql").stat().st_mode & 0o777) == "0o700"
    # Its own session: a signal to the caller's group never reaches it.
    assert os.getsid(int(pid)) == int(pid)
    again = mysql_sh(private, "up")
    assert again.stderr == f"mariadb: already running on 127.0.0.1:{port} (pid {pid})\n"
    status = mysql_sh(private, "status")
    assert (status.returncode, status.stderr) == (0, f"mariadb: running on 127.0.0.1:{port} (pid {pid})\n")
    users = mysql_sh(
        {**private, "MYSQL_HOST": "192.0.2.1"}, "shell", "-N", "-e", "SELECT DISTINCT user FROM mysql.user"
    )
    assert users.returncode == 0, users.stderr
    assert {"orders", "ecommerce_app", "lms_app", "monitor", "root"} <= set(users.stdout.split())
    wrong = mysql_sh(private, "shell", "-e", "SELECT nonsense FROM nowhere")
    assert wrong.returncode == 1  # the client's own status
    down = mysql_sh(private, "down")
    assert (down.returncode, down.stderr) == (0, f"mariadb: stopped (pid {pid})\n")
    status = mysql_sh(private, "status")
    assert (status.returncode, status.stderr) == (3, "mariadb: stopped\n")
