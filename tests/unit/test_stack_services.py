"""The stack's services, Locust processes and secrets (stack/services.py, locusts.py, staff.py,
commands.py) without starting the services: what each is started with, where its secrets come
from, how it is awaited, and what `make status` and `make down` say of load runs. Starting the
whole stack is `make up`'s, and the load and browser suites' (tests/support/stack.py)."""

import http.server
import os
import socket
import subprocess
import sys
import threading

import pytest

from stack import commands, locusts, services, staff
from stack.processes import StackError
from tests.support.processes import bystander


@pytest.fixture
def var_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("VAR_DIR", str(tmp_path))
    for name in (
        "ECOMMERCE_STAFF_PASSWORD",
        "STAFF_JWT_SECRET_KEY",
        "NEW_RELIC_LICENSE_KEY",
        "ECOMMERCE_CPUS",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("NEW_RELIC_CONFIG_FILE", raising=False)
    return tmp_path


def test_a_secret_is_generated_once_for_the_owner_alone(var_dir):
    first = staff.STAFF_PASSWORD.value()
    assert len(first) == 20 and staff.STAFF_PASSWORD.value() == first
    assert oct((var_dir / "staff-password").stat().st_mode & 0o777) == "0o600"
    assert staff.STAFF_PASSWORD.source() == str(var_dir / "staff-password")
    assert len(staff.STAFF_JWT_SECRET.value()) == 64


def test_a_secret_the_environment_sets_is_used_and_never_written(var_dir, monkeypatch):
    monkeypatch.setenv("ECOMMERCE_STAFF_PASSWORD", "chosen")
    assert staff.STAFF_PASSWORD.value() == "chosen"
    assert staff.STAFF_PASSWORD.source() == "ECOMMERCE_STAFF_PASSWORD"
    assert not (var_dir / "staff-password").exists()


def test_only_ecommerce_is_given_the_key_that_signs_staff_tokens(var_dir, monkeypatch):
    monkeypatch.setenv("STAFF_JWT_SECRET_KEY", "the-staff-key")
    ecommerce_argv, ecommerce_env = services.gunicorn_argv(services.ECOMMERCE)
    lms_argv, lms_env = services.gunicorn_argv(services.LMS)
    assert ecommerce_env["STAFF_JWT_SECRET_KEY"] == "the-staff-key"
    assert lms_env["STAFF_JWT_SECRET_KEY"] == ""
    assert "the-staff-key" not in ecommerce_argv
    assert lms_argv[-4:] == ["-m", "gunicorn", "-c", "lms_stub/gunicorn.conf.py"]
    assert (lms_env["NEW_RELIC_APP_NAME"], lms_env["NEW_RELIC_CONFIG_FILE"]) == ("orderservice-lms_stub", "")


def test_ecommerce_alone_is_pinned_to_the_cpus_named(var_dir, monkeypatch):
    monkeypatch.setenv("ECOMMERCE_CPUS", "0-1")
    assert services.gunicorn_argv(services.ECOMMERCE)[0][:3] == ["taskset", "-c", "0-1"]
    assert services.gunicorn_argv(services.LMS)[0][0] != "taskset"


def test_a_new_relic_key_wraps_each_service_in_the_agent_with_the_products_settings(
    var_dir, monkeypatch, capsys
):
    monkeypatch.setenv("NEW_RELIC_LICENSE_KEY", "x" * 40)
    argv, env = services.gunicorn_argv(services.ECOMMERCE)
    assert argv[0].endswith("/bin/newrelic-admin") and argv[1] == "run-program"
    config = str(services.ROOT / "settings/newrelic.ini")
    assert (env["NEW_RELIC_APP_NAME"], env["NEW_RELIC_CONFIG_FILE"]) == ("orderservice-ecommerce", config)
    assert (
        capsys.readouterr().err
        == f'ecommerce: under the New Relic agent as "orderservice-ecommerce" ({config})\n'
    )


def test_a_service_whose_port_is_taken_is_refused_naming_the_variable_to_change(var_dir, monkeypatch):
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        monkeypatch.setenv("LMS_PORT", str(port))
        with pytest.raises(
            StackError, match=f"^lms_stub: port {port} is taken by another program; set LMS_PORT"
        ):
            services.launch(services.LMS)


def test_static_files_are_collected_again_only_for_other_requirements(var_dir, monkeypatch):
    ran = []
    monkeypatch.setattr(services, "run_step", lambda argv, **_: ran.append(argv[2:]))
    monkeypatch.setenv("STATIC_DIR", str(var_dir))
    wanted = (services.ROOT / ".venv/.requirements.sha").read_text()
    (var_dir / ".collected-for").write_text("older requirements")
    services.collect_static()
    assert ran == [["collectstatic", "--noinput", "-v0"]]
    assert (var_dir / ".collected-for").read_text() == wanted
    services.collect_static()
    assert len(ran) == 1


class Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200 if self.path == "/health/" else 404)
        self.end_headers()

    def log_message(self, *args):
        pass


def test_a_service_is_healthy_once_it_answers_200():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Health)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        assert services.answers_200(f"{base}/health/", 5)
        assert not services.answers_200(f"{base}/missing/", 0.5)
    finally:
        server.shutdown()
        server.server_close()


def test_the_urls_are_three_columns_naming_where_the_password_is_not_the_password(var_dir, monkeypatch):
    monkeypatch.setenv("ECOMMERCE_PORT", "28130")
    monkeypatch.delenv("ECOMMERCE_URL", raising=False)  # make test's shell has it, from 18130
    lines = commands.url_lines()
    assert [line[:22] for line in lines] == [
        "  LMS (lms_stub)      ",
        "  ecommerce           ",
        "  Oscar dashboard     ",
        "  MariaDB             ",
    ]
    assert lines[2] == (
        f"  {'Oscar dashboard':<19} {'http://127.0.0.1:28130/dashboard/':<38} "
        f"user staff, password in {var_dir / 'staff-password'}"
    )
    assert not (var_dir / "staff-password").exists()


def test_a_load_runs_children_are_named_by_their_role():
    ps = (
        "  101 /x/.venv/bin/python /x/.venv/bin/locust -f a.py --master --headless\n"
        "  102 /x/.venv/bin/python /x/.venv/bin/locust -f a.py --worker\n"
        "  103 /x/.venv/bin/python /x/.venv/bin/locust -f a.py\n"
        "  104 py-spy record --pid 1\n"
    )
    assert locusts.child_lines(ps) == [
        "  locust master: pid 101",
        "  locust worker: pid 102",
        "  locust: pid 103",
    ]


# A load run as status and down find it: its command line names the suite's module, and it has
# a Locust worker as its child. SIGTERM ends it as Ctrl-C would.
LOAD_RUN = """
import signal, subprocess, sys, time
signal.signal(signal.SIGTERM, lambda *_: sys.exit(3))
worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "bin/locust", "--worker"])
print(worker.pid, flush=True)
try:
    time.sleep(60)
finally:
    worker.kill()
"""


def test_status_lists_each_load_run_with_its_locusts_and_down_stops_it(var_dir, capsys):
    run_dir = var_dir / "run"
    run_dir.mkdir()
    run = subprocess.Popen([sys.executable, "-c", LOAD_RUN, "locustfiles.suite.run"], stdout=subprocess.PIPE)
    worker = int(run.stdout.readline())
    with bystander() as stale:  # a live process, but no load run
        try:
            (run_dir / f"suite-{run.pid}.pid").write_text(f"{run.pid}\nsmoke, headless\n")
            (run_dir / "suite-1.pid").write_text(f"{stale.pid}\nstale\n")
            locusts.status(run_dir)
            assert capsys.readouterr().err.splitlines() == [
                "locust (make run): not running",
                f"load run: smoke, headless (pid {run.pid})",
                f"  locust worker: pid {worker}",
            ]
            assert not (run_dir / "suite-1.pid").exists()
            locusts.stop(run_dir)
            assert run.wait(timeout=5) == 3
            assert capsys.readouterr().err.splitlines() == [
                f"load run: stopping smoke, headless (pid {run.pid})",
                f"load run: stopped (pid {run.pid})",
            ]
        finally:
            for pid in (run.pid, worker):
                try:
                    os.kill(pid, 9)
                except ProcessLookupError:
                    pass
            run.wait()


def test_status_says_what_is_stopped(var_dir, monkeypatch, capsys):
    monkeypatch.setenv("MYSQL_DIR", str(var_dir / "mysql"))
    commands.status()
    assert capsys.readouterr().err.splitlines() == [
        "lms_stub: stopped",
        "ecommerce: stopped",
        "rollup: stopped",
        "mariadb: stopped",
        "locust (make run): not running",
    ]
