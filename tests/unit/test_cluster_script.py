"""scripts/cluster.sh's parts that need no root and make nothing: the hosts it would make, and
the input it refuses before touching anything."""

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "cluster.sh"
ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}


def _run(*args: str, **env: str) -> subprocess.CompletedProcess:
    environment = {**ENV, **env}
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, timeout=60, env=environment)


def test_the_hosts_are_the_m3_pair_and_the_balancer_on_the_default_subnet():
    done = _run("hosts")
    assert done.returncode == 0, done.stderr
    assert dict(line.split() for line in done.stdout.splitlines()) == {
        "db-1": "10.213.1.10",
        "db-2": "10.213.1.11",
        "lms-1": "10.213.1.20",
        "ecommerce-1": "10.213.1.31",
        "ecommerce-2": "10.213.1.32",
        "locust-1": "10.213.1.40",
        "locust-2": "10.213.1.41",
        "lb-1": "10.213.1.50",
    }


def test_the_subnet_moves_every_host():
    done = _run("hosts", CLUSTER_SUBNET="10.99.7.0/24")
    assert done.returncode == 0, done.stderr
    assert all(line.split()[1].startswith("10.99.7.") for line in done.stdout.splitlines())


def test_a_subnet_that_is_not_a_slash_24_is_refused():
    done = _run("hosts", CLUSTER_SUBNET="10.99.0.0/16")
    assert done.returncode != 0
    assert "CLUSTER_SUBNET must be a /24" in done.stderr


def test_an_unknown_command_prints_the_usage():
    done = _run("start")
    assert done.returncode == 2
    assert "usage: scripts/cluster.sh up|deploy" in done.stderr


def _cluster_load(*args: str) -> subprocess.CompletedProcess:
    # The host's python3, as scripts/cluster.sh runs it on locust-1.
    command = ["/usr/bin/python3", str(ROOT / "scripts" / "cluster_load.py"), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, env=ENV)


def test_cluster_load_refuses_a_profile_run_without_a_profile_or_with_a_setting_not_named_as_a_variable():
    # Refused before any master is looked for: nothing runs.
    for args in (["run"], ["run", "capacity", "rpm_start=1200"], ["run", "capacity", "RPM_START"]):
        done = _cluster_load(*args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert "usage: cluster_load.py run PROFILE [NAME=VALUE...]" in done.stderr


def test_cluster_load_refuses_user_counts_that_are_not_numbers():
    done = _cluster_load("40", "eighty")
    assert done.returncode == 2
    assert "usage: cluster_load.py [USERS...] | run PROFILE [NAME=VALUE...]" in done.stderr


def test_cluster_sh_points_a_profile_run_given_to_load_at_run():
    done = _run("load", "run", "capacity")
    assert done.returncode != 0
    assert "scripts/cluster.sh run PROFILE" in done.stderr + done.stdout
