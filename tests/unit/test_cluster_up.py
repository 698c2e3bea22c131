"""`scripts/cluster.sh up` (stack/cluster/up.py, prepare.py) against a machine that records what
it runs (tests/support/cluster.py): every program and its arguments, in order, as the bash script
ran them, the files each host is made with, and what it refuses before touching anything."""

import os
import stat

import pytest

from common.environment import ROOT
from stack.cluster import prepare, up
from stack.cluster.hosts import HOLDER_SCRIPT
from stack.processes import StackError, StepFailed
from tests.support.cluster import FakeMachine, cluster_in

HOSTS = [
    ("db-1", "10.213.1.10"),
    ("db-2", "10.213.1.11"),
    ("lms-1", "10.213.1.20"),
    ("ecommerce-1", "10.213.1.31"),
    ("ecommerce-2", "10.213.1.32"),
    ("locust-1", "10.213.1.40"),
    ("locust-2", "10.213.1.41"),
    ("lb-1", "10.213.1.50"),
]
NAMES = [name for name, _ in HOSTS]


def down_with_nothing_up() -> list[list[str]]:
    """What `down` runs when no cluster is up: it looks for each host's processes (before the
    TERM and before the KILL), takes down what could be left, then checks."""
    ran = [["ip", "netns", "pids", name] for name in NAMES] * 2
    for name in NAMES:
        ran += [["ip", "netns", "list"], ["ip", "link", "del", f"os-{name}"]]
    ran += [["ip", "link", "show", "osbr0"], ["ip", "link", "show", "osbr0"]]
    for name in NAMES:
        ran += [["ip", "netns", "list"], ["ip", "link", "show", f"os-{name}"]]
    return ran + [["ss", "-Hltn"]]


def host_commands(folder: str, name: str, address: str) -> list[list[str]]:
    home = f"{folder}/{name}"
    return [
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", f"{home}/ssh_host_ed25519_key"],
        ["ip", "netns", "add", name],
        ["ip", "link", "add", f"os-{name}", "type", "veth", "peer", "name", "eth0", "netns", name],
        ["ip", "link", "set", f"os-{name}", "master", "osbr0", "up"],
        ["ip", "-n", name, "addr", "add", f"{address}/24", "dev", "eth0"],
        ["ip", "-n", name, "link", "set", "lo", "up"],
        ["ip", "-n", name, "link", "set", "eth0", "up"],
        [
            "setsid",
            "ip",
            "netns",
            "exec",
            name,
            "unshare",
            "--uts",
            "--mount",
            "--propagation",
            "private",
            "--",
        ]
        + ["/bin/bash", "-c", HOLDER_SCRIPT, "holder", name, home],
    ]


def test_up_runs_what_the_script_ran_in_its_order(tmp_path, capsys):
    cluster, machine = cluster_in(tmp_path), FakeMachine(tmp_path)
    folder, tls = cluster.dir, f"{cluster.dir}/tls"
    assert up.up(cluster, machine) == 0
    expected = down_with_nothing_up() + [
        [f"{ROOT}/scripts/bootstrap.sh"],
        ["/venv/bin/python", "-", f"{ROOT}/ansible/roles"],
        ["dpkg-query", "-W", "-f=${Status}", "openssh-server"],
        ["dpkg-query", "-W", "-f=${Status}", "sudo"],
        [
            "/venv/bin/python",
            "-m",
            "pip",
            "wheel",
            "-q",
            "--disable-pip-version-check",
            "-w",
            f"{folder}/wheelhouse",
        ]
        + ["-r", f"{ROOT}/requirements.txt", "-c", f"{ROOT}/constraints.txt"],
        [
            "ssh-keygen",
            "-q",
            "-t",
            "ed25519",
            "-N",
            "",
            "-C",
            "cluster-controller",
            "-f",
            f"{folder}/ssh/id_ed25519",
        ],
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "30",
            "-subj",
            "/CN=cluster test CA",
        ]
        + ["-keyout", f"{tls}/ca.key", "-out", f"{tls}/ca.pem"],
        ["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=orders.example.com"]
        + ["-keyout", f"{tls}/orders.key", "-out", f"{tls}/orders.csr"],
        [
            "openssl",
            "x509",
            "-req",
            "-in",
            f"{tls}/orders.csr",
            "-CA",
            f"{tls}/ca.pem",
            "-CAkey",
            f"{tls}/ca.key",
        ]
        + ["-CAcreateserial", "-days", "30", "-extfile", f"{tls}/orders.ext", "-out", f"{tls}/orders.crt"],
        ["ip", "link", "add", "osbr0", "type", "bridge"],
        ["ip", "addr", "add", "10.213.1.1/24", "dev", "osbr0"],
        ["ip", "link", "set", "osbr0", "up"],
    ]
    for name, address in HOSTS:
        expected += host_commands(folder, name, address)
    expected.append(
        [
            "/venv/bin/python",
            "-m",
            "http.server",
            "--bind",
            "10.213.1.1",
            "--directory",
            f"{folder}/wheelhouse",
            "18765",
        ]
    )
    assert machine.ran == expected
    # The quiet down said nothing; up says how long it took (the fake clock ticks once a reading).
    assert capsys.readouterr().err == (
        "cluster: building the wheelhouse (pip wheel -r requirements.txt -c constraints.txt)\n"
        "cluster: 8 hosts up on osbr0 (10.213.1.0/24) in 1s\n"
    )
    assert (machine.run_dir / "orderservice-cluster.owner").read_text() == f"{folder}\n"


def test_up_makes_each_hosts_files_and_keeps_its_keys_the_next_time(tmp_path):
    cluster, machine = cluster_in(tmp_path), FakeMachine(tmp_path)
    up.up(cluster, machine)
    home = tmp_path / "cluster" / "ecommerce-2"
    assert stat.S_IMODE((home / "tmp").stat().st_mode) == 0o1777
    assert stat.S_IMODE((home / "hosts").stat().st_mode) == 0o644
    assert (home / "srv").is_dir() and (home / "hosts").read_text().endswith(
        "10.213.1.50 lb-1 orders.example.com\n"
    )
    assert (home / "sshd_config").read_text().startswith("# ecommerce-2's sshd (scripts/cluster.sh)")
    inode = machine.netns_inode("ecommerce-2")
    assert (home / "netns-id").read_text() == f"net:[{inode}]\n"
    known = (tmp_path / "cluster" / "ssh" / "known_hosts").read_text().splitlines()
    assert [line.split()[0] for line in known] == [address for _, address in HOSTS]
    assert (
        known[0] == f"10.213.1.10 ssh-ed25519 AAAA{len(cluster.host_dir('db-1') + '/ssh_host_ed25519_key')}"
    )
    assert (tmp_path / "cluster" / "wheelhouse-server.pid").read_text() == "1009\n"
    assert oct(stat.S_IMODE((tmp_path / "cluster" / "tls").stat().st_mode)) == "0o700"
    assert oct(stat.S_IMODE((tmp_path / "cluster" / "tls" / "orders.pem").stat().st_mode)) == "0o600"
    assert (tmp_path / "cluster" / "tls" / "orders.pem").read_text() == "-out\n-keyout\n"
    (home / "srv" / "left-from-a-deploy").write_text("")

    machine.ran.clear()
    up.up(cluster, machine)
    assert not (home / "srv" / "left-from-a-deploy").exists()
    assert not [argv for argv in machine.ran if argv[0] in ("ssh-keygen", "openssl") or "pip" in argv]
    assert len(known) == len((tmp_path / "cluster" / "ssh" / "known_hosts").read_text().splitlines())


def test_up_refuses_without_root_or_with_its_folder_where_each_host_has_its_own(tmp_path):
    machine = FakeMachine(tmp_path)
    for folder in ("/srv/cluster", "/tmp", "/tmp/x/cluster"):
        with pytest.raises(StackError) as refused:
            up.up(cluster_in(tmp_path, dir=folder), machine)
        assert str(refused.value) == (
            f"CLUSTER_DIR ({folder}) must not be under /srv or /tmp, which each host has of its own"
        )
    machine.root = False
    with pytest.raises(StackError, match="needs root"):
        up.up(cluster_in(tmp_path), machine)
    assert machine.ran == []


def test_up_fails_when_a_second_down_still_leaves_something(tmp_path, capsys):
    cluster, machine = cluster_in(tmp_path), FakeMachine(tmp_path)
    machine.answers[("ip", "link", "show", "osbr0")] = (0, "")  # a bridge nothing removes
    machine.answers[("ip", "link", "del", "osbr0")] = (2, "")
    with pytest.raises(StepFailed) as failed:
        up.up(cluster, machine)
    assert failed.value.returncode == 1
    assert capsys.readouterr().err == "cluster: left behind after down:\nbridge osbr0\n"  # said once
    assert machine.ran.count(["ip", "link", "del", "osbr0"]) == 2
    assert f"{ROOT}/scripts/bootstrap.sh" not in [argv[0] for argv in machine.ran]


def test_a_host_whose_sshd_does_not_answer_fails_up_with_its_log(tmp_path, capsys):
    cluster, machine = cluster_in(tmp_path), FakeMachine(tmp_path)
    machine.reachable = False
    os.makedirs(f"{cluster.dir}/db-1")
    (tmp_path / "cluster" / "db-1" / "sshd.log").write_text("sshd: no hostkeys available\n")
    machine.start = lambda argv, log: 4242  # never writes its pid file
    with pytest.raises(StackError, match=r"^db-1: sshd did not start on 10.213.1.10:22$"):
        up.up(cluster, machine)
    assert machine.slept == 10.0
    assert capsys.readouterr().err.endswith("sshd: no hostkeys available\n")


def test_missing_packages_are_installed_with_no_service_started(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("DEBIAN_FRONTEND", raising=False)
    cluster, machine = cluster_in(tmp_path), FakeMachine(tmp_path)
    machine.policy_rc.unlink()
    machine.answers[("/venv/bin/python", "-", f"{ROOT}/ansible/roles")] = (0, "haproxy mariadb-server\n")
    machine.answers[("dpkg-query", "-W", "-f=${Status}", "haproxy")] = (0, "deinstall ok config-files")
    machine.answers[("dpkg-query", "-W", "-f=${Status}", "sudo")] = (1, "")
    policy = []
    record = machine.record

    def record_with_the_policy(argv, options):
        if argv[0] == "apt-get":
            policy.append(machine.policy_rc.read_text())
        return record(argv, options)

    machine.record = record_with_the_policy
    prepare.install_packages(cluster, machine)
    assert machine.ran[-2:] == [
        ["apt-get", "update", "-qq"],
        ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "haproxy", "sudo"],
    ]
    assert policy == ["#!/bin/sh\nexit 101\n"] * 2 and not machine.policy_rc.exists()
    assert os.environ["DEBIAN_FRONTEND"] == "noninteractive"
    assert capsys.readouterr().err == "cluster: installing haproxy sudo\n"

    machine.answers[("apt-get", "update", "-qq")] = (100, "")
    machine.policy_rc.write_text("the machine's own\n")
    with pytest.raises(StackError, match=r"^apt-get install haproxy sudo failed$"):
        prepare.install_packages(cluster, machine)
    assert machine.policy_rc.read_text() == "the machine's own\n"
    assert machine.ran[-1] == ["apt-get", "update", "-qq"]


def test_the_service_users_are_made_as_the_roles_make_them_and_marked_for_down(tmp_path):
    cluster, machine = cluster_in(tmp_path), FakeMachine(tmp_path)
    os.makedirs(cluster.dir, exist_ok=True)
    machine.users["orderservice"] = "/home/orderservice"
    del machine.users["orderservice-lms"], machine.users["orderservice-locust"]
    machine.groups.discard("orderservice-lms")
    prepare.ensure_service_users(cluster, machine)
    assert machine.ran == [
        ["usermod", "--home", "/srv/orderservice/var", "orderservice"],
        ["groupadd", "--system", "orderservice-lms"],
        ["useradd", "--system", "--gid", "orderservice-lms", "--home-dir", "/nonexistent", "--no-create-home"]
        + ["--shell", "/usr/sbin/nologin", "orderservice-lms"],
        [
            "useradd",
            "--system",
            "--gid",
            "orderservice-locust",
            "--home-dir",
            "/nonexistent",
            "--no-create-home",
        ]
        + ["--shell", "/usr/sbin/nologin", "orderservice-locust"],
    ]
    assert sorted(path.name for path in (tmp_path / "cluster").glob("created-*")) == [
        "created-orderservice-lms",
        "created-orderservice-locust",
    ]


def test_the_wheelhouse_is_built_again_only_when_the_pins_change(tmp_path):
    cluster, machine = cluster_in(tmp_path), FakeMachine(tmp_path)
    prepare.build_wheelhouse(cluster, machine)
    assert machine.options[-1] == {"drop": "is ignored"}
    (tmp_path / "cluster" / "wheelhouse" / "some.whl").write_text("")
    prepare.build_wheelhouse(cluster, machine)
    assert len(machine.ran) == 1 and (tmp_path / "cluster" / "wheelhouse" / "some.whl").exists()
    (tmp_path / "cluster" / "wheelhouse" / ".built-for").write_text("other pins\n")
    prepare.build_wheelhouse(cluster, machine)
    assert len(machine.ran) == 2 and not (tmp_path / "cluster" / "wheelhouse" / "some.whl").exists()
    machine.answers[tuple(machine.ran[-1])] = (1, "")
    (tmp_path / "cluster" / "wheelhouse" / ".built-for").unlink()
    with pytest.raises(StepFailed):
        prepare.build_wheelhouse(cluster, machine)
    assert not (tmp_path / "cluster" / "wheelhouse" / ".built-for").exists()
