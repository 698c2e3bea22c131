"""common/hostreadings.py, a host's readings agent: what it reads from /proc (parsed by hand:
psutil is no part of it), how it names a supervisord program's group, and its HTTP answers,
over real HTTP on 127.0.0.1 about real processes: a real supervisord's programs, and pid files."""

import json
import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import psutil
import pytest

from common import hostreadings
from common.hostreadings import ReadingsServer, Sources, classify

ROOT = Path(__file__).resolve().parents[2]
SYSTEM_PYTHON = "/usr/bin/python3"


def get(url: str, method: str = "GET") -> tuple[int, dict]:
    request = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        assert exc.headers["Content-Type"] == "application/json"
        return exc.code, json.loads(exc.read())


@pytest.fixture
def serve():
    """Start an agent in this process on a free 127.0.0.1 port; stopped after the test."""
    started = []

    def start(sources: Sources, allow: str = "127.0.0.1", name: str = "test-host") -> str:
        server = ReadingsServer(("127.0.0.1", 0), name, sources, hostreadings.parse_allowed(allow.split(",")))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        started.append(server)
        return f"http://127.0.0.1:{server.server_port}"

    yield start
    for server in started:
        server.shutdown()
        server.server_close()


# --- /proc ----------------------------------------------------------------------------------


def test_a_stat_line_is_read_after_the_last_parenthesis_of_the_command_name():
    fields = ["S", "41"] + ["0"] * 9 + ["250", "150"] + ["0"] * 8 + ["300"]
    line = "1234 (a (b) c) " + " ".join(fields)
    parent, seconds, pages = hostreadings.parse_stat(line)
    assert parent == 41 and pages == 300
    assert seconds == pytest.approx(400 / os.sysconf("SC_CLK_TCK"))
    with pytest.raises(ValueError):
        hostreadings.parse_stat("1234 (short) S 1 2")


def test_the_machines_busy_time_leaves_out_idle_and_iowait():
    text = "cpu  10 1 5 1000 50 2 3 4 7 0\ncpu0 5 0 2 500 25 1 1 2 3 0\nintr 1 2\n"
    assert hostreadings.busy_ticks(text) == 10 + 1 + 5 + 2 + 3 + 4  # guest is inside user
    with pytest.raises(ValueError):
        hostreadings.busy_ticks("intr 1 2 3\n")
    assert hostreadings.machine_busy_seconds("/nonexistent/stat") is None


def test_a_process_cpu_and_memory_match_what_psutil_reads():
    table = hostreadings.process_table()
    own = table[os.getpid()]
    times = psutil.Process().cpu_times()
    assert own.parent == os.getppid()
    assert own.cpu_seconds == pytest.approx(times.user + times.system, abs=0.05)
    assert own.rss_bytes == pytest.approx(psutil.Process().memory_info().rss, rel=0.05)


def test_a_process_counts_with_its_descendants_and_not_its_parent():
    child = subprocess.Popen([sys.executable, "-c", "import subprocess; subprocess.run(['sleep', '30'])"])
    try:
        deadline = time.monotonic() + 10
        while not psutil.Process(child.pid).children() and time.monotonic() < deadline:
            time.sleep(0.05)
        grandchild = psutil.Process(child.pid).children()[0].pid
        found = hostreadings.descendants(child.pid, hostreadings.process_table())
        assert sorted(found) == sorted([child.pid, grandchild])
        assert os.getpid() not in found
    finally:
        for process in psutil.Process(child.pid).children(recursive=True):
            process.kill()
        child.kill()
        child.wait()


# --- which group a program is ---------------------------------------------------------------

# The commands the deployment's supervisor programs run (ansible/roles/*/templates), as
# /proc/<pid>/cmdline shows them: an interpreter runs a script with its path in argv[1].
DEPLOYED = {
    "ecommerce": [
        "/srv/orderservice/venv/bin/python3",
        "/srv/orderservice/venv/bin/gunicorn",
        "-c",
        "/srv/orderservice/etc/ecommerce.gunicorn.conf.py",
    ],
    "lms_stub": [
        "/srv/orderservice/venv/bin/python3",
        "/srv/orderservice/venv/bin/gunicorn",
        "-c",
        "/srv/orderservice/etc/lms_stub.gunicorn.conf.py",
    ],
    "rollup": [
        "/srv/orderservice/venv/bin/python",
        "manage.py",
        "rollup_counters",
        "--loop",
        "--interval",
        "1",
    ],
    "mariadb": ["/usr/sbin/mariadbd", "--defaults-file=/srv/orderservice/var/mysql/my.cnf"],
    "haproxy": ["/usr/sbin/haproxy", "-Ws", "-f", "/srv/orderservice/etc/haproxy.cfg"],
    "locust": [
        "/srv/orderservice/venv/bin/python3",
        "/srv/orderservice/venv/bin/locust",
        "-f",
        "x.py",
        "--worker",
    ],
    "readings": ["/usr/bin/python3", "/srv/orderservice/bin/hostreadings.py", "--name", "db-1"],
    "other": ["/usr/bin/cron", "-f"],
}


@pytest.mark.parametrize("group", DEPLOYED)
def test_a_deployed_program_is_named_by_its_command_line(group):
    assert classify(DEPLOYED[group]) == group


def test_a_service_under_new_relic_keeps_its_group():
    # newrelic-admin run-program execs gunicorn with the same arguments
    assert (
        classify(
            ["/srv/venv/bin/python3", "/srv/venv/bin/newrelic-admin", "run-program", *DEPLOYED["ecommerce"]]
        )
        == "ecommerce"
    )


# --- the HTTP answers -----------------------------------------------------------------------


def test_a_reading_holds_the_host_its_kernel_and_its_groups_from_pid_files(serve, tmp_path):
    busy = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import pathlib, sys, time\nend = time.process_time() + 0.6\n"
            "while time.process_time() < end: pass\npathlib.Path(sys.argv[1]).touch()\ntime.sleep(30)",
            str(tmp_path / "burnt"),
        ]
    )
    try:
        (tmp_path / "busy.pid").write_text(f"{busy.pid}\n")
        url = serve(
            Sources(
                pidfiles={
                    "ecommerce": (tmp_path / "busy.pid", True),
                    "mariadb": (tmp_path / "gone.pid", False),
                }
            )
        )
        deadline = time.monotonic() + 30
        while not (tmp_path / "burnt").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        status, body = get(url + "/readings")
    finally:
        busy.kill()
        busy.wait()
    assert status == 200
    assert body["host"] == "test-host" and body["version"] == hostreadings.VERSION
    assert body["boot_id"] == Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    assert body["cores"] == os.cpu_count() and body["machine_busy_seconds"] > 0
    ecommerce = body["groups"]["ecommerce"]
    assert list(ecommerce["cpu"]) == [str(busy.pid)]
    assert ecommerce["cpu"][str(busy.pid)] >= 0.59  # it burnt 0.6 s (ticks: 0.01 s)
    assert ecommerce["rss_bytes"] > 1_000_000
    # A group whose process is not there is empty, and the answer says why.
    assert body["groups"]["mariadb"] == {"cpu": {}, "rss_bytes": 0}
    assert any("mariadb is not running" in note for note in body["notes"])


def test_the_agent_is_read_only_and_answers_only_its_path(serve, tmp_path):
    url = serve(Sources(pidfiles={"ecommerce": (tmp_path / "none.pid", True)}))
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        status, body = get(url + "/readings", method)
        assert (status, body["error"]) == (405, "method_not_allowed")
    status, body = get(url + "/")
    assert (status, body["error"]) == (404, "not_found")


def test_an_address_not_allowed_is_refused_with_nothing_read(serve, tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(hostreadings, "reading", lambda *a: calls.append(a) or {})
    url = serve(Sources(pidfiles={}), allow="10.213.1.40,10.213.2.0/24")
    for method in ("GET", "POST"):
        status, body = get(url + "/readings", method)
        assert (status, body["error"]) == (403, "forbidden")
    assert calls == []
    assert hostreadings.allowed("10.213.2.7", hostreadings.parse_allowed(["10.213.2.0/24"]))
    assert hostreadings.allowed("::ffff:10.213.1.40", hostreadings.parse_allowed(["10.213.1.40"]))
    assert not hostreadings.allowed("10.213.1.41", hostreadings.parse_allowed(["10.213.1.40"]))


SUPERVISORD_CONF = """\
[unix_http_server]
file={dir}/supervisor.sock
[supervisord]
logfile={dir}/supervisord.log
pidfile={dir}/supervisord.pid
childlogdir={dir}
nodaemon=false
[rpcinterface:supervisor]
supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface
[supervisorctl]
serverurl=unix://{dir}/supervisor.sock
[program:ecommerce]
command={dir}/bin/gunicorn -c "{workers}" -c {dir}/etc/ecommerce.gunicorn.conf.py
[program:mariadb]
command={dir}/bin/mariadbd 60
[program:locust-worker]
command={dir}/bin/locust 60
process_name=%(program_name)s-%(process_num)d
numprocs=2
[program:hostreadings]
command={python} -I {root}/common/hostreadings.py --name ecommerce-1 --port 0 --supervised
stdout_logfile={dir}/hostreadings.log
"""
# The "gunicorn" master: two workers, then it waits.
WORKERS = "import subprocess, time; w = [subprocess.Popen(['sleep', '60']) for _ in range(2)]; time.sleep(60)"


@pytest.fixture
def supervisord(tmp_path):
    """A real supervisord running programs whose command lines look like the deployment's (the
    names are symlinks to sleep and python3); stopped, with its programs, at the end."""
    (tmp_path / "bin").mkdir()
    (tmp_path / "etc").mkdir()
    for name, target in (("gunicorn", SYSTEM_PYTHON), ("mariadbd", "/bin/sleep"), ("locust", "/bin/sleep")):
        (tmp_path / "bin" / name).symlink_to(target)
    conf = tmp_path / "supervisord.conf"
    conf.write_text(SUPERVISORD_CONF.format(dir=tmp_path, python=SYSTEM_PYTHON, root=ROOT, workers=WORKERS))
    subprocess.run(["supervisord", "-c", str(conf)], check=True, timeout=30)
    pid = None
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if (tmp_path / "supervisord.pid").exists():
                pid = int((tmp_path / "supervisord.pid").read_text())
                # every program started: its own 5, ecommerce's workers 2
                # and the agent says where it listens (it may be started before it is bound)
                log = tmp_path / "hostreadings.log"
                started = len(psutil.Process(pid).children(recursive=True)) >= 7
                if started and log.exists() and " on " in log.read_text():
                    break
            time.sleep(0.2)
        yield tmp_path, pid
    finally:
        if pid:
            os.kill(pid, 15)
            psutil.Process(pid).wait(30)


def test_a_supervisord_hosts_programs_are_its_groups(supervisord):
    """The agent as the deployment runs it: a program of the host's supervisord (--supervised)."""
    folder, pid = supervisord
    line = (folder / "hostreadings.log").read_text().splitlines()[0]
    status, body = get(line.split(" on ", 1)[1].strip())
    assert status == 200 and body["host"] == "ecommerce-1" and body["notes"] == []
    groups = body["groups"]
    assert set(groups) == {"ecommerce", "mariadb", "locust", "readings"}
    assert len(groups["ecommerce"]["cpu"]) == 3  # the master and its two workers
    assert len(groups["locust"]["cpu"]) == 2  # numprocs=2
    assert len(groups["mariadb"]["cpu"]) == 1 and len(groups["readings"]["cpu"]) == 1
    every = {int(p) for g in groups.values() for p in g["cpu"]}
    assert every == {p.pid for p in psutil.Process(pid).children(recursive=True)}


def test_the_same_from_the_supervisords_pid_file(supervisord, serve):
    folder, pid = supervisord
    url = serve(Sources(supervisord_pidfile=folder / "supervisord.pid"))
    groups = get(url + "/readings")[1]["groups"]
    assert (
        set(groups) == {"ecommerce", "mariadb", "locust", "readings"} and len(groups["ecommerce"]["cpu"]) == 3
    )


def test_a_supervised_agent_must_be_run_by_a_supervisord():
    done = subprocess.run(
        [SYSTEM_PYTHON, str(ROOT / "common/hostreadings.py"), "--name", "x", "--port", "0", "--supervised"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2 and "is not a supervisord" in done.stderr


def test_the_agent_runs_with_the_system_python_and_says_when_supervisord_is_gone(tmp_path):
    """The database and balancer hosts have no virtualenv: the file runs on the standard library."""
    agent = subprocess.Popen(
        [
            SYSTEM_PYTHON,
            "-I",
            str(ROOT / "common/hostreadings.py"),
            "--name",
            "db-1",
            "--port",
            "0",
            "--supervisord-pidfile",
            str(tmp_path / "supervisord.pid"),
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    try:
        line = agent.stdout.readline()  # "hostreadings: db-1 on http://127.0.0.1:PORT/readings"
        url = line.split(" on ", 1)[1].strip()
        status, body = get(url)
        assert status == 200 and body["host"] == "db-1" and body["groups"] == {}
        assert body["notes"] == [f"supervisord is not running ({tmp_path / 'supervisord.pid'})"]
        assert body["machine_busy_seconds"] > 0
    finally:
        agent.terminate()
        agent.wait(10)


def test_the_agent_refuses_to_start_without_a_place_to_find_processes():
    done = subprocess.run(
        [SYSTEM_PYTHON, str(ROOT / "common/hostreadings.py"), "--name", "x", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2 and "--supervisord-pidfile" in done.stderr
