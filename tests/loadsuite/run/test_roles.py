"""The master's bookkeeping of its workers (run/roles.py, run/watch.py's LocustCpu): a worker's
CPU read by its own clock."""

import time
from types import SimpleNamespace

from locustfiles.suite.run.roles import MasterRun
from locustfiles.suite.run.watch import LocustCpu


def test_a_workers_cpu_is_divided_by_its_own_clock_however_far_off_the_masters():
    """A worker on another host reports its CPU with times of its own clock, the start of its
    count included: 30 s ahead of the master's, its first step still reads its true share."""
    run = object.__new__(MasterRun)  # the master's bookkeeping only: no Locust environment
    run.environment = SimpleNamespace(runner=None)
    run.env = {"READINGS_HOST_NAME": "locust-1"}
    master_now = time.time()
    run.cpu = LocustCpu("master", run.host_name, master_now - 10, 0.0)
    skew = 30.0
    # Its count began when the run's start reached it, 10 s ago by its clock; 2.5 s of CPU since.
    report = {"suite_cpu": ["worker-0", master_now + skew, 2.5, master_now + skew - 10, "locust-2"]}
    run.on_worker_report("client-1", report)
    found = run.cpu.since_last()
    assert found["worker-0"] == 25.0  # 2.5 s in 10 s, not 2.5 s in 40 s
    assert run.cpu.hosts == {"master": "locust-1", "worker-0": "locust-2"}
    # The next step: its own times at both ends again.
    run.on_worker_report("client-1", {"suite_cpu": ["worker-0", master_now + skew + 5, 3.5, 0.0, "locust-2"]})
    assert run.cpu.since_last()["worker-0"] == 20.0
    assert run.host_name == "locust-1"


def test_a_process_that_has_not_reported_since_the_last_reading_is_left_out():
    cpu = LocustCpu("local", "h", 100.0, 0.0)
    cpu.report("local", 110.0, 5.0, None, None)
    assert cpu.since_last() == {"local": 50.0}
    assert cpu.since_last() == {}  # no new count: no share made up
