"""`scripts/cluster.sh down` (stack/cluster/down.py) against a machine that records what it runs
(tests/support/cluster.py): how it finds the hosts' and the controller's processes, what it
stops and how, what it takes down, and what it checks is left before it says the cluster is down.
The lookups by network namespace are tried on a /proc of the test's own making (stack/cluster/
machine.py reads the real one)."""

import os
import signal

import pytest

from stack.cluster import down, up
from stack.cluster.machine import Machine
from stack.processes import StackError
from tests.support.cluster import OWN_NETNS, FakeMachine, cluster_in

NAMES = ["db-1", "db-2", "lms-1", "ecommerce-1", "ecommerce-2", "locust-1", "locust-2", "lb-1"]


@pytest.fixture
def cluster_up(tmp_path):
    """A cluster as `up` leaves it on the fake machine, with an Ansible SSH master (and another
    ssh that is not the cluster's), two service users `up` made, and the owner file."""
    cluster, machine = cluster_in(tmp_path), FakeMachine(tmp_path)
    del machine.users["orderservice-lms"], machine.users["orderservice-readings"]
    machine.groups.discard("orderservice-readings")
    up.up(cluster, machine)
    machine.live["2001"] = f"ssh -o ControlPath={cluster.control_dir}/abc root@10.213.1.10 "
    machine.live["2002"] = "ssh somewhere.example "
    machine.groups.add("orderservice-readings")  # useradd made it
    machine.ran.clear()
    return cluster, machine


def test_down_stops_every_process_then_takes_the_network_and_the_users_down(cluster_up, capsys):
    cluster, machine = cluster_up
    assert down.down(cluster, machine) is True
    holders = [str(pid) for pid in range(1001, 1009)]
    assert machine.signalled == [(pid, signal.SIGTERM) for pid in [*holders, "1009", "2001"]]
    assert machine.slept == 0  # everything ended on TERM: no wait, no KILL
    expected = [["ip", "netns", "pids", name] for name in NAMES] * 2
    for name in NAMES:
        expected += [
            ["ip", "netns", "list"],
            ["ip", "netns", "del", name],
            ["ip", "link", "del", f"os-{name}"],
        ]
    expected += [["ip", "link", "show", "osbr0"], ["ip", "link", "del", "osbr0"]]
    expected += [["userdel", "orderservice-lms"], ["groupdel", "orderservice-lms"]]
    expected += [["userdel", "orderservice-readings"], ["groupdel", "orderservice-readings"]]
    expected.append(["ip", "link", "show", "osbr0"])
    for name in NAMES:
        expected += [["ip", "netns", "list"], ["ip", "link", "show", f"os-{name}"]]
    expected.append(["ss", "-Hltn"])
    assert machine.ran == expected
    assert capsys.readouterr().err == "cluster: down (no namespace, process, mount, link or listener left)\n"
    assert not (machine.run_dir / "orderservice-cluster.owner").exists()
    assert not list(machine.run_dir.parent.glob("cluster/created-*"))
    assert not os.path.exists(cluster.control_dir) and not os.path.exists(cluster.wheelhouse_pidfile)
    assert not [name for name in NAMES if os.path.exists(f"{cluster.host_dir(name)}/netns-id")]


def test_down_records_the_namespaces_it_takes_down_for_the_teardown_test(cluster_up):
    cluster, machine = cluster_up
    recorded = [open(f"{cluster.host_dir(name)}/netns-id").read() for name in NAMES]
    down.down(cluster, machine)
    assert open(f"{cluster.dir}/down-netns-ids").read() == "".join(recorded)


def test_what_outlives_its_term_is_killed_after_15_seconds(cluster_up, capsys):
    cluster, machine = cluster_up
    machine.stubborn = {"1003", "2001"}
    assert down.down(cluster, machine) is True
    assert machine.slept == pytest.approx(15.0 + 0.2)
    assert machine.signalled[-2:] == [("1003", signal.SIGKILL), ("2001", signal.SIGKILL)]
    assert capsys.readouterr().err.startswith("cluster: killing 1003 2001\n")


def test_a_process_in_a_hosts_namespace_is_found_after_its_name_is_gone(cluster_up):
    cluster, machine = cluster_up
    machine.netns.remove("lms-1")  # `ip netns pids lms-1` finds nothing now
    machine.live["3000"] = "supervisord "
    machine.namespaces[int(machine.netns_inode("lms-1"))].append("3000")
    assert "3000" in down.host_pids(cluster, machine, "lms-1")
    down.down(cluster, machine)
    assert ("3000", signal.SIGTERM) in machine.signalled


def test_down_says_what_is_left_and_fails(cluster_up, capsys):
    cluster, machine = cluster_up
    machine.answers[("ip", "link", "del", "osbr0")] = (2, "")
    machine.answers[("ip", "netns", "del", "db-2")] = (1, "")
    machine.answers[("ip", "link", "show", "os-db-2")] = (0, "")
    machine.signal = lambda pid, signum: machine.signalled.append((pid, signum))  # nothing dies
    machine.mounts = f"36 25 0:32 / {cluster.dir}/db-2/srv rw - ext4 /dev/sda1 rw\n40 1 0:1 / /proc rw\n"
    machine.listeners = "LISTEN 0 128 10.213.1.11:22 0.0.0.0:*\nLISTEN 0 128 127.0.0.1:631 0.0.0.0:*\n"
    assert down.down(cluster, machine) is False
    killing, left = capsys.readouterr().err.split("cluster: left behind after down:\n")
    assert killing == "cluster: killing 1001 1002 1003 1004 1005 1006 1007 1008 1009 2001\n" * 20
    assert machine.slept == pytest.approx(15.0 + 20 * 0.2)
    # The namespaces' records and the wheelhouse's pid file are gone by then, as in the script:
    # a process is named by its network namespace's name, or as an SSH master.
    assert left.splitlines() == [
        "bridge osbr0",
        "namespace db-2",
        "link os-db-2",
        f"process 2001: ssh -o ControlPath={cluster.control_dir}/abc root@10.213.1.10 ",
        f"mount 36 25 0:32 / {cluster.dir}/db-2/srv rw - ext4 /dev/sda1 rw",
        "listener 10.213.1.11:22",
    ]
    assert (machine.run_dir / "orderservice-cluster.owner").exists()  # still this checkout's


def test_what_is_left_names_each_hosts_processes_while_its_record_is_there(cluster_up):
    cluster, machine = cluster_up
    assert down.leftovers(cluster, machine)[:4] == [
        "bridge osbr0",
        "namespace db-1",
        "link os-db-1",
        f"process 1001 on db-1: /usr/sbin/sshd -D -e -f {cluster.host_dir('db-1')}/sshd_config ",
    ]
    assert f"process 1009: {machine.live['1009']}" in down.leftovers(cluster, machine)


def test_down_of_another_checkouts_cluster_is_refused_before_anything(cluster_up):
    cluster, machine = cluster_up
    (machine.run_dir / "orderservice-cluster.owner").write_text("/elsewhere/cluster\n")
    with pytest.raises(StackError, match="was made from /elsewhere/cluster"):
        down.down(cluster, machine)
    assert machine.ran == [["ip", "link", "show", "osbr0"]] and machine.signalled == []


def test_a_namespace_record_must_be_a_namespace_and_never_the_machines_own(tmp_path):
    machine = FakeMachine(tmp_path)
    for record in ("net:[x1]", "net:[]", "net:[12] ", "4026532000]x"):
        with pytest.raises(StackError, match=r"^not a namespace id: '"):
            down.ns_pids(machine, record)
    with pytest.raises(StackError, match="^refusing to list the machine's own network namespace$"):
        down.ns_pids(machine, OWN_NETNS)
    machine.namespaces[4026532999] = ["12", "14"]
    assert down.ns_pids(machine, "net:[4026532999]") == ["12", "14"]


def test_a_refused_namespace_record_is_said_and_lists_nothing(cluster_up, capsys):
    cluster, machine = cluster_up
    with open(f"{cluster.host_dir('lb-1')}/netns-id", "w") as record:
        record.write(f"{OWN_NETNS}\n")
    machine.netns.remove("lb-1")
    assert down.host_pids(cluster, machine, "lb-1") == []
    assert capsys.readouterr().err == "error: refusing to list the machine's own network namespace\n"


def fake_proc(tmp_path):
    """A /proc: process 12 and 30 in one network namespace (a file's inode), 14 in another,
    20 gone between the listing and the look; 30 is named ssh."""
    proc = tmp_path / "proc"
    (tmp_path / "ns-a").write_text("")
    (tmp_path / "ns-b").write_text("")
    for pid, namespace in (("12", "ns-a"), ("14", "ns-b"), ("30", "ns-a"), ("20", None)):
        (proc / pid / "ns").mkdir(parents=True)
        if namespace:
            (proc / pid / "ns" / "net").symlink_to(tmp_path / namespace)
        (proc / pid / "comm").write_text("ssh\n" if pid == "30" else "sshd\n")
        (proc / pid / "cmdline").write_bytes(b"/usr/sbin/sshd\0-D\0" if pid != "30" else b"ssh\0-N\0")
    (proc / "self" / "ns").mkdir(parents=True)
    (proc / "self" / "ns" / "net").symlink_to("net:[4026531840]")
    (proc / "self" / "mountinfo").write_text("22 1 8:1 / / rw\n")
    machine = Machine()
    machine.proc = proc
    return machine, os.stat(tmp_path / "ns-a").st_ino


def test_the_machine_finds_processes_by_network_namespace_name_and_command_line(tmp_path):
    machine, inode = fake_proc(tmp_path)
    assert machine.netns_pids(inode) == ["12", "30"]
    assert machine.own_netns() == "net:[4026531840]"
    assert machine.ssh_pids() == ["30"]
    assert machine.cmdline("12") == "/usr/sbin/sshd -D "
    assert machine.cmdline("99") == ""
    assert machine.mountinfo() == "22 1 8:1 / / rw\n"
