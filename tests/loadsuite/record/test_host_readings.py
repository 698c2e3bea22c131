"""The suite's readings across hosts without the agents: READINGS_HOSTS's parsing, the load
balancer in CPU per purchase, each host in the report. A worker's CPU by its own clock: run/test_roles.py.
With the agents running: integration/test_host_readings.py."""

import pytest

from locustfiles.suite import report
from locustfiles.suite.figures import cpu
from locustfiles.suite.record.hosts import by_host, parse_hosts
from tests.loadsuite import synthetic


def test_readings_hosts_are_name_equals_url():
    assert parse_hosts([]) == {}
    assert parse_hosts(["db-1=http://10.213.1.10:18190", " lb-1 = http://10.213.1.50:18190/readings "]) == {
        "db-1": "http://10.213.1.10:18190/readings",
        "lb-1": "http://10.213.1.50:18190/readings",
    }
    for bad in (["db-1"], ["db-1=10.213.1.10:18190"], ["=http://x:1"], ["a=http://x:1", "a=http://y:1"]):
        with pytest.raises(ValueError, match="READINGS_HOSTS"):
            parse_hosts(bad)


def test_cpu_per_purchase_counts_the_load_balancer_with_the_services():
    readings = {
        "cpu_percent": {"ecommerce": 60.0, "lms_stub": 40.0, "mariadb": 20.0, "rollup": 1.0, "haproxy": 4.0},
        "locust_cpu": {"worker-0": 30.0, "master": 5.0},
        "machine_cpu_percent": 200.0,
        "reading_seconds": 10.0,
    }
    row = {"seconds": 10, "endpoints": {}, **readings}
    cpu.account(row)
    assert row["cpu_ms"]["haproxy"] == 400.0
    assert row["cpu_ms"]["services"] == (60 + 40 + 20 + 1 + 4) * 100
    assert row["cpu_ms"]["other"] == (200 - 125 - 35) * 100


def test_the_report_shows_each_host_and_the_load_balancer_column(tmp_path):
    p, recorder, _, log = synthetic.recorded()
    planted = synthetic.summary_for(p, recorder, log=log, machine_cpu=150.0)
    for row in planted["steps"]:
        row["hosts"] = {
            "ecommerce-1": {
                "answered": True,
                "cpu_percent": {"ecommerce": 31.5, "readings": 0.2},
                "rss_mb": {"ecommerce": 210.0, "readings": 12.0},
                "machine_cpu_percent": 150.0,
            },
            "lb-1": {"answered": False, "error": "timed out"},
        }
        row["kernels"] = 1
        row["locust_cpu_by_host"] = {"ecommerce-1": None}
        row["cpu_ms"]["haproxy"] = 12.0
    report.write(planted, tmp_path)
    text = (tmp_path / "report.md").read_text()
    resources = text.split("## Server resources per step")[1].split("\n## ")[0]
    assert "Per host" in resources
    assert (
        "| step | host | CPU % machine | CPU % Locust | CPU % ecommerce | CPU % readings | "
        "peak RSS MB ecommerce | peak RSS MB readings |" in resources
    )
    first = planted["steps"][0]["label"]
    assert f"| {first} | ecommerce-1 | 150 | – | 31.5 | 0.2 | 210 | 12 |" in resources
    assert f"| {first} | lb-1 (no reading: timed out) |" in resources
    assert "ran on 1 kernel" in resources
    per_purchase = text.split("## CPU per purchase (ms of CPU)")[1].split("\n## ")[0]
    assert "| rollup | haproxy | services |" in per_purchase


def test_each_hosts_locust_processes_are_summed_and_an_unknown_one_says_so():
    hosts = {"master": "locust-1", "worker-1": "locust-1", "worker-2": "locust-2"}
    found = by_host({"master": 3.0, "worker-1": 40.25, "worker-2": 38.0, "worker-9": 1.0}, hosts)
    assert found == {"locust-1": 43.2, "locust-2": 38.0, "?": 1.0}
