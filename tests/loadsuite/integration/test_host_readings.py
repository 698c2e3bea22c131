"""The suite's readings across hosts (READINGS_HOSTS): the setting's parsing, the server
sampler asking each host's readings agent (real agents, real HTTP on 127.0.0.1, standing in for
hosts), each group summed over its hosts and each kernel counted once, a host that stops
answering, what CPU per purchase and the report make of it; then a real run with Locust's
master and two workers as separate processes, the agents standing in for db-1, lms-1 and an
ecommerce host."""

import os
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from locustfiles.suite.figures import cpu
from locustfiles.suite.record.hosts import parse_hosts
from locustfiles.suite.record.sampler import COUNTERS, GAUGES, ServerSampler
from tests.loadsuite.runs import assert_nothing_lost, run
from tests.support.servers import free_port

ROOT = Path(__file__).resolve().parents[3]
SYSTEM_PYTHON = "/usr/bin/python3"
NO_STATUS = {name: 0 for name in (*COUNTERS, *GAUGES)}


class Agents:
    """Readings agents started as the deployment runs them (the system python, the file alone),
    each on a free 127.0.0.1 port, stopped by their pids."""

    def __init__(self):
        self.processes: dict[str, subprocess.Popen] = {}
        self.urls: dict[str, str] = {}

    def start(self, name: str, **groups: Path) -> str:
        port = free_port()
        args = [
            SYSTEM_PYTHON,
            "-I",
            str(ROOT / "common/hostreadings.py"),
            "--name",
            name,
            "--port",
            str(port),
        ]
        for group, pidfile in groups.items():
            args += ["--group", f"{group}={pidfile}"]
        self.processes[name] = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
        assert "hostreadings:" in self.processes[name].stdout.readline()  # listening
        self.urls[name] = f"http://127.0.0.1:{port}"
        return self.urls[name]

    def stop(self, name: str) -> None:
        process = self.processes.pop(name)
        process.terminate()
        process.wait(10)

    def setting(self) -> str:
        return ",".join(f"{name}={url}" for name, url in self.urls.items())

    def stop_all(self) -> None:
        for name in list(self.processes):
            self.stop(name)


@pytest.fixture
def agents():
    started = Agents()
    yield started
    started.stop_all()


def burner(seconds: float, go: Path | None = None) -> subprocess.Popen:
    """A process with a sleeping child that, once the file ``go`` exists, burns ``seconds`` of
    CPU, then sleeps."""
    code = (
        "import os, subprocess, sys, time\nchild = subprocess.Popen(['sleep', '60'])\n"
        "while not os.path.exists(sys.argv[1]): time.sleep(0.02)\n"
        f"end = time.process_time() + {seconds}\nwhile time.process_time() < end: pass\ntime.sleep(60)"
    )
    return subprocess.Popen([sys.executable, "-c", code, str(go or "/")])


def cpu_seconds(process: subprocess.Popen) -> float:
    times = psutil.Process(process.pid).cpu_times()
    return times.user + times.system


def test_a_bad_readings_hosts_is_refused_before_anything_starts():
    env = {**os.environ, "READINGS_HOSTS": "db-1:18190", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "locustfiles.suite.run", "smoke"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "error: READINGS_HOSTS takes name=http://address:port entries, not 'db-1:18190'" in done.stderr


def test_the_sampler_sums_each_group_over_its_hosts_and_keeps_each_hosts_own(agents, tmp_path, monkeypatch):
    go = tmp_path / "go"
    busy, idle, other = burner(0.8, go), burner(0.0), burner(0.3, go)
    try:
        for name, process in (("busy", busy), ("idle", idle), ("other", other)):
            (tmp_path / f"{name}.pid").write_text(str(process.pid))
        agents.start("ecommerce-1", ecommerce=tmp_path / "busy.pid")
        agents.start("ecommerce-2", ecommerce=tmp_path / "idle.pid", locust=tmp_path / "other.pid")
        agents.start("db-1", mariadb=tmp_path / "idle.pid")
        hosts = parse_hosts([*agents.setting().split(","), f"lb-1=http://127.0.0.1:{free_port()}"])  # down
        sampler = ServerSampler(tmp_path, ("x",), hosts)
        monkeypatch.setattr(sampler, "status", lambda: NO_STATUS)  # no MariaDB in this test
        before_cpu = {process.pid: cpu_seconds(process) for process in (busy, other)}

        before = sampler.snapshot()
        go.touch()
        for process, seconds in ((busy, 0.8), (other, 0.3)):  # each burns its share, however slow
            deadline, start = time.monotonic() + 30, before_cpu[process.pid]
            while cpu_seconds(process) < start + seconds - 0.02 and time.monotonic() < deadline:
                time.sleep(0.05)
        after = sampler.snapshot()
        reading = sampler.reading(before, after)
    finally:
        for process in (busy, idle, other):
            for child in psutil.Process(process.pid).children():
                child.kill()
            process.kill()
            process.wait()

    # Each group over its hosts: ecommerce is both ecommerce hosts' processes (2 each with the
    # child); Locust's processes are not among them (they report their own CPU).
    assert set(reading["cpu_percent"]) == {"ecommerce", "mariadb"}
    assert len(after["cpu"]["ecommerce"]) == 4 and all(
        pid.startswith("ecommerce-") for pid in after["cpu"]["ecommerce"]
    )
    seconds = reading["reading_seconds"]
    assert 0.7 * 0.8 / seconds * 100 <= reading["cpu_percent"]["ecommerce"] <= 1.1 * 100 * 0.8 / seconds + 5

    own = reading["hosts"]
    assert reading["rss_mb"]["ecommerce"] == pytest.approx(
        own["ecommerce-1"]["rss_mb"]["ecommerce"] + own["ecommerce-2"]["rss_mb"]["ecommerce"], abs=0.2
    )
    # Each host's figures are over the seconds its own clock counted (the CPU burnt there).
    first, second = own["ecommerce-1"], own["ecommerce-2"]
    assert first["answered"] and second["answered"]
    assert first["cpu_percent"]["ecommerce"] == pytest.approx(80 / first["reading_seconds"], rel=0.25, abs=2)
    assert second["cpu_percent"]["ecommerce"] < 3
    assert second["cpu_percent"]["locust"] == pytest.approx(30 / second["reading_seconds"], rel=0.25, abs=2)
    assert own["db-1"]["rss_mb"]["mariadb"] > 0 and own["db-1"]["machine_cpu_percent"] > 0
    assert (
        own["lb-1"] == {"answered": False, "error": own["lb-1"]["error"]}
        and "refused" in own["lb-1"]["error"]
    )
    # Three agents on one kernel: its busy time is counted once, not three times.
    assert reading["kernels"] == 1 and reading["machine_cores"] == os.cpu_count()
    for name in ("ecommerce-1", "ecommerce-2", "db-1"):
        assert reading["machine_cpu_percent"] == pytest.approx(own[name]["machine_cpu_percent"], abs=25)


def test_a_host_that_stops_answering_counts_until_its_last_reading(agents, tmp_path, monkeypatch):
    busy = burner(0.0)
    try:
        (tmp_path / "busy.pid").write_text(str(busy.pid))
        agents.start("ecommerce-1", ecommerce=tmp_path / "busy.pid")
        agents.start("db-1", mariadb=tmp_path / "busy.pid")
        sampler = ServerSampler(tmp_path, ("x",), parse_hosts(agents.setting().split(",")))
        monkeypatch.setattr(sampler, "status", lambda: NO_STATUS)
        before = sampler.snapshot()
        agents.stop("ecommerce-1")  # the host is lost
        after = sampler.snapshot()
        reading = sampler.reading(before, after)
    finally:
        busy.kill()
        busy.wait()
    assert reading["hosts"]["ecommerce-1"]["answered"] is False
    assert reading["hosts"]["db-1"]["answered"] is True
    assert "ecommerce" not in reading["cpu_percent"] and "mariadb" in reading["cpu_percent"]
    # The kernel is still read through db-1.
    assert reading["kernels"] == 1 and reading["machine_cpu_percent"] is not None
    row = {"seconds": 1, "endpoints": {}, **reading}
    cpu.account(row)
    assert row["cpu_ms"]["services"] is None  # not every service was read: no total


@pytest.mark.slow
def test_a_run_with_workers_reads_each_hosts_agent(stack_env, agents):
    """Locust's master and two workers, separate processes; three agents stand in for the
    database host, the LMS host and an ecommerce host (the stack's pid files)."""
    var = Path(stack_env["VAR_DIR"])
    agents.start("db-1", mariadb=Path(stack_env["MYSQL_DIR"]) / "mysqld.pid")
    agents.start("lms-1", lms_stub=var / "run/lms_stub.pid")
    agents.start("ecommerce-1", ecommerce=var / "run/ecommerce.pid", rollup=var / "run/rollup.pid")
    code, folder, summary = run(
        stack_env,
        "rpm",
        RPM=300,
        DURATION=6,
        WARMUP_SECONDS=2,
        WORKERS=2,
        READINGS_HOSTS=agents.setting(),
        READINGS_HOST_NAME="locust-1",
        THRESHOLDS="errors<0.01",
    )
    assert code == 0, summary["verdict"]
    assert_nothing_lost(summary)
    step = summary["steps"][0]
    assert set(step["hosts"]) == {"db-1", "lms-1", "ecommerce-1"}
    for name, group in (("db-1", "mariadb"), ("lms-1", "lms_stub"), ("ecommerce-1", "ecommerce")):
        host = step["hosts"][name]
        assert host["answered"] and host["cpu_percent"][group] > 0 and host["rss_mb"][group] > 10, (
            name,
            host,
        )
        assert host["machine_cpu_percent"] > 0
    # The groups over the hosts, and CPU per purchase from them (each kernel counted once).
    assert set(step["cpu_percent"]) == set(cpu.SERVICES) and step["kernels"] == 1
    for group in cpu.SERVICES:
        assert step["cpu_percent"][group] == pytest.approx(
            sum(h["cpu_percent"].get(group, 0) for h in step["hosts"].values()), abs=3
        )
    figures = summary["cpu_ms_per_purchase"]
    assert figures["services"] > 0 and figures["machine"] > figures["services"]
    # The workers' own CPU, counted from their start by their own clocks, and their hosts.
    workers = {name: value for name, value in step["locust_cpu"].items() if name.startswith("worker-")}
    assert len(workers) == 2 and all(0 < value < 12 for value in workers.values()), workers
    assert summary["load"]["locust_hosts"] == dict.fromkeys(["master", *sorted(workers)], "locust-1")
    assert summary["load"]["locust_workers"] == 2
    assert set(step["locust_cpu_by_host"]) == {"locust-1"}
    assert sum(step["locust_cpu_by_host"].values()) == pytest.approx(
        sum(step["locust_cpu"].values()), abs=0.3
    )
    html = (folder / "report.html").read_text()
    assert "Per host" in html and "ecommerce-1" in html
