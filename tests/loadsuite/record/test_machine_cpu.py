"""The machine's busy time as /proc/stat gives it (common/hostreadings.py), and a reading's
machine CPU and seconds (record/sampler.py)."""

import os
import time

import pytest

from common import hostreadings
from locustfiles.suite.figures import cpu
from locustfiles.suite.record.sampler import COUNTERS, GAUGES, ServerSampler


def test_proc_stat_busy_time_leaves_out_idle_iowait_and_the_guests_counted_twice():
    text = "cpu  10 1 5 100 7 2 3 4 9 9\ncpu0 5 0 2 50 3 1 1 2 4 4\nintr 1 2 3\n"
    assert hostreadings.busy_ticks(text) == 10 + 1 + 5 + 2 + 3 + 4
    with pytest.raises(ValueError):
        hostreadings.busy_ticks("intr 1 2 3\n")
    assert hostreadings.machine_busy_seconds("/nonexistent/stat") is None


def test_the_machines_busy_time_read_from_proc_stat_counts_this_process():
    with open(cpu.PROC_STAT) as handle:
        ticks = hostreadings.busy_ticks(handle.read())
    uptime = float(open("/proc/uptime").read().split()[0])
    assert 0 < ticks / os.sysconf("SC_CLK_TCK") <= uptime * os.cpu_count() * 1.01

    before, own = hostreadings.machine_busy_seconds(), time.process_time()
    while time.process_time() - own < 0.5:  # half a second of this process's CPU
        pass
    burned = time.process_time() - own
    assert hostreadings.machine_busy_seconds() - before >= 0.8 * burned  # a tick's rounding or two


def test_a_reading_gives_the_machines_cpu_and_its_seconds(tmp_path):
    status = {name: 0 for name in (*COUNTERS, *GAUGES)}
    before = {"time": 100.0, "cpu": {"ecommerce": {1: 1.0}}, "machine": 5000.0, "rss": {}, "status": status}
    after = {"time": 110.0, "cpu": {"ecommerce": {1: 4.0}}, "machine": 5016.5, "rss": {}, "status": status}
    reading = ServerSampler(tmp_path, ("x",)).reading(before, after)
    assert reading["cpu_percent"] == {"ecommerce": 30.0}
    assert (reading["machine_cpu_percent"], reading["reading_seconds"]) == (165.0, 10.0)
    after["machine"] = None  # no /proc/stat
    assert ServerSampler(tmp_path, ("x",)).reading(before, after)["machine_cpu_percent"] is None


def test_a_reading_gives_each_workers_cpu_busiest_first(tmp_path):
    """Issue 29, item 2: how evenly a service's workers took the step's load. The master (pid
    1) is not a worker; a worker that started or ended within the step is left out."""
    status = {name: 0 for name in (*COUNTERS, *GAUGES)}
    before = {
        "time": 100.0,
        "cpu": {"ecommerce": {1: 0.5, 2: 1.0, 3: 2.0, 4: 1.0}, "mariadb": {9: 1.0}},
        "machine": 5000.0,
        "rss": {},
        "workers": {"ecommerce": [2, 3, 4]},
        "status": status,
    }
    after = {
        "time": 110.0,
        "cpu": {"ecommerce": {1: 0.6, 2: 2.0, 3: 8.0, 5: 1.0}, "mariadb": {9: 2.0}},
        "machine": 5016.5,
        "rss": {},
        "workers": {"ecommerce": [2, 3, 5]},
        "status": status,
    }
    reading = ServerSampler(tmp_path, ("x",)).reading(before, after)
    assert reading["worker_cpu_percent"] == {"ecommerce": [60.0, 10.0]}
    assert "worker_requests" not in reading  # no counts read
    # Each worker's requests in the step, in the CPU's order; a count read at one end only: None.
    before["requests"] = {"ecommerce": {2: 100, 3: 200, 4: 50}}
    after["requests"] = {"ecommerce": {2: None, 3: 1400, 5: 3}}
    reading = ServerSampler(tmp_path, ("x",)).reading(before, after)
    assert reading["worker_requests"] == {"ecommerce": [1200, None]}
    del before["workers"], after["workers"]  # hosts read through their agents: not known
    assert "worker_cpu_percent" not in ServerSampler(tmp_path, ("x",)).reading(before, after)
