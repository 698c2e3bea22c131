"""The faults across hosts (locustfiles/suite/chaos/cluster.py): what can be tested without a
cluster (tests/cluster/test_faults.py plays the faults on one)."""

from locustfiles.suite.chaos import cluster
from locustfiles.suite.chaos.event import Event


def test_request_logs_are_read_in_start_order_and_cut_lines_skipped(tmp_path):
    (tmp_path / "requests-1.csv").write_text("12.5,30.000,/b,1,201,1\n11.0,5.000,/a,0,502,0\n13.0,1.0\n")
    (tmp_path / "requests-2.csv").write_text("11.5,7.000,/a,0,0,0\n")
    found = cluster.read_requests(sorted(tmp_path.glob("*.csv")))
    assert [(r.start, r.ok, r.status, r.json) for r in found] == [
        (11.0, False, 502, False),
        (11.5, False, 0, False),
        (12.5, True, 201, True),
    ]


class Recorded(cluster.Hosts):
    """The calls a fault makes, in order."""

    def __init__(self):
        self.calls = []

    def programs(self, host, action, names):
        self.calls.append((host, action, *names))
        return ""

    def supervisord(self, host, running):
        self.calls.append((host, "supervisord", running))
        return ""


def test_the_lms_host_restarts_its_whole_supervisord_held_down_between():
    hosts, event = Recorded(), Event("lms_restarted")
    cluster.CLUSTER_FAULTS["lms_restarted"].inject(hosts, event, 0.05)
    assert hosts.calls == [("lms-1", "supervisord", False), ("lms-1", "supervisord", True)]
    assert event.started + 0.05 <= event.detail["ending"] <= event.ended


def test_the_balancer_restart_is_its_programs_restart():
    hosts, event = Recorded(), Event("balancer_restarted")
    cluster.CLUSTER_FAULTS["balancer_restarted"].inject(hosts, event, 10)
    assert hosts.calls == [("lb-1", "restart", "haproxy")]
    assert event.started <= event.ended and "caused_in_s" in event.detail
