"""The master's bookkeeping of its workers (run/roles.py): a worker's CPU read by its own clock."""

import time
from types import SimpleNamespace

from locustfiles.suite.run.roles import MasterRun


def test_a_workers_cpu_is_divided_by_its_own_clock_however_far_off_the_masters():
    """A worker on another host reports its CPU with times of its own clock, the start of its
    count included: 30 s ahead of the master's, its first step still reads its true share."""
    run = object.__new__(MasterRun)  # the master's bookkeeping only: no Locust environment
    run.environment = SimpleNamespace(runner=None)
    run.env = {"READINGS_HOST_NAME": "locust-1"}
    master_now = time.time()
    run.begun = master_now - 10
    run.cpu_seconds, run.cpu_before, run.cpu_origin = {}, {}, {}
    run.locust_hosts = {}
    skew = 30.0
    # Its count began when the run's start reached it, 10 s ago by its clock; 2.5 s of CPU since.
    report = {"suite_cpu": ["worker-0", master_now + skew, 2.5, master_now + skew - 10, "locust-2"]}
    run.on_worker_report("client-1", report)
    found = run._locust_cpu()
    assert found["worker-0"] == 25.0  # 2.5 s in 10 s, not 2.5 s in 40 s
    assert run.locust_hosts == {"worker-0": "locust-2"}
    # The next step: its own times at both ends again.
    run.on_worker_report("client-1", {"suite_cpu": ["worker-0", master_now + skew + 5, 3.5, 0.0, "locust-2"]})
    assert run._locust_cpu()["worker-0"] == 20.0
    assert run.host_name == "locust-1"
