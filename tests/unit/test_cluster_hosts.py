"""The cluster's table (stack/cluster/hosts.py): the hosts and their addresses on CLUSTER_SUBNET,
the text each host is made with, the commands that hold a host and enter it, and the checks made
before anything is touched."""

import pytest

from stack.cluster import hosts
from stack.cluster.hosts import Cluster
from stack.processes import StackError
from tests.support.cluster import FakeMachine, cluster_in


def test_the_subnet_must_be_a_slash_24_written_with_its_zero():
    assert hosts.network("10.213.1.0/24") == "10.213.1"
    for subnet in ("10.213.0.0/16", "10.213.1.5/24", "10.213.1.0/24\n", "10.213.1/24", "a.b.c.0/24", ""):
        with pytest.raises(StackError) as refused:
            hosts.network(subnet)
        assert str(refused.value) == f"CLUSTER_SUBNET must be a /24 written a.b.c.0/24 (got '{subnet}')"


def test_the_environment_places_the_cluster(monkeypatch, tmp_path):
    monkeypatch.setenv("CLUSTER_SUBNET", "10.99.7.0/24")
    monkeypatch.setenv("CLUSTER_DIR", str(tmp_path))
    monkeypatch.setenv("CLUSTER_FORKS", "2")
    monkeypatch.setenv("ROOT", "/checkout")
    cluster = Cluster.from_environment()
    assert (cluster.net, cluster.gateway, cluster.dir, cluster.root, cluster.forks) == (
        "10.99.7",
        "10.99.7.1",
        str(tmp_path),
        "/checkout",
        "2",
    )
    assert (cluster.ssh_dir, cluster.control_dir, cluster.wheelhouse, cluster.wheelhouse_pidfile) == (
        f"{tmp_path}/ssh",
        f"{tmp_path}/cp",
        f"{tmp_path}/wheelhouse",
        f"{tmp_path}/wheelhouse-server.pid",
    )
    assert cluster.host_dir("lb-1") == f"{tmp_path}/lb-1"


def test_every_host_has_its_octet_on_the_subnet(tmp_path):
    assert dict(cluster_in(tmp_path, net="10.99.7").hosts()) == {
        "db-1": "10.99.7.10",
        "db-2": "10.99.7.11",
        "lms-1": "10.99.7.20",
        "ecommerce-1": "10.99.7.31",
        "ecommerce-2": "10.99.7.32",
        "locust-1": "10.99.7.40",
        "locust-2": "10.99.7.41",
        "lb-1": "10.99.7.50",
    }


def test_every_hosts_etc_hosts_names_the_hosts_and_the_balancer_on_lb_1(tmp_path):
    assert hosts.hosts_file(cluster_in(tmp_path)) == (
        "127.0.0.1 localhost\n"
        "::1 localhost ip6-localhost ip6-loopback\n"
        "10.213.1.10 db-1\n"
        "10.213.1.11 db-2\n"
        "10.213.1.20 lms-1\n"
        "10.213.1.31 ecommerce-1\n"
        "10.213.1.32 ecommerce-2\n"
        "10.213.1.40 locust-1\n"
        "10.213.1.41 locust-2\n"
        "10.213.1.50 lb-1 orders.example.com\n"
    )


def test_a_hosts_sshd_takes_root_with_the_clusters_key_on_the_hosts_address_only(tmp_path):
    cluster = cluster_in(tmp_path)
    home = cluster.host_dir("db-2")
    assert hosts.sshd_config(cluster, "db-2", "10.213.1.11").splitlines() == [
        "# db-2's sshd (scripts/cluster.sh): root with the cluster's key only, on the host's address.",
        "ListenAddress 10.213.1.11:22",
        f"HostKey {home}/ssh_host_ed25519_key",
        f"AuthorizedKeysFile {cluster.ssh_dir}/authorized_keys",
        "PermitRootLogin prohibit-password",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "UsePAM no",
        "PrintMotd no",
        f"PidFile {home}/sshd.pid",
        "MaxStartups 50:30:100",
        "MaxSessions 50",
        "Subsystem sftp /usr/lib/openssh/sftp-server",
    ]


def test_the_holder_binds_the_hosts_folders_and_becomes_its_sshd(tmp_path):
    cluster = cluster_in(tmp_path)
    argv = hosts.holder_argv(cluster, "lms-1")
    assert argv[:13] == [
        *("setsid", "ip", "netns", "exec", "lms-1"),
        *("unshare", "--uts", "--mount", "--propagation", "private", "--", "/bin/bash", "-c"),
    ]
    assert argv[14:] == ["holder", "lms-1", cluster.host_dir("lms-1")]
    assert argv[13] == (
        "\n    set -e\n"
        '    hostname "$1"\n'
        '    mount --bind "$2/srv" /srv\n'
        '    mount --bind "$2/tmp" /tmp\n'
        '    mount --bind "$2/hosts" /etc/hosts\n'
        '    exec /usr/sbin/sshd -D -e -f "$2/sshd_config"\n'
        "  "
    )


def test_a_command_on_a_host_enters_its_holders_namespaces_with_roots_login_environment():
    assert hosts.exec_argv("4242", ["supervisorctl", "status"]) == [
        *("nsenter", "--target", "4242", "--net", "--mount", "--uts", "--", "env", "-i"),
        "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "HOME=/root",
        "LANG=C.UTF-8",
        *("supervisorctl", "status"),
    ]


def test_an_unknown_host_is_refused_naming_the_hosts():
    hosts.known_host("locust-2")
    with pytest.raises(StackError) as refused:
        hosts.known_host("db-3")
    assert str(refused.value) == (
        "unknown host 'db-3'; the hosts: db-1 db-2 lms-1 ecommerce-1 ecommerce-2 locust-1 locust-2 lb-1 "
    )


def test_a_host_is_up_while_its_pid_file_names_its_own_sshd(tmp_path):
    cluster, machine = cluster_in(tmp_path), FakeMachine(tmp_path)
    home = tmp_path / "cluster" / "db-1"
    home.mkdir(parents=True)
    config = f"{cluster.host_dir('db-1')}/sshd_config"
    assert hosts.holder_pid(cluster, machine, "db-1") == ""
    (home / "sshd.pid").write_text("77\n")
    machine.live["77"] = "sleep 60 "  # a number reused by some other process
    assert hosts.holder_pid(cluster, machine, "db-1") == ""
    machine.live["77"] = f"/usr/sbin/sshd -D -e -f {config} "
    assert hosts.holder_pid(cluster, machine, "db-1") == "77"


def test_the_cluster_needs_root(tmp_path):
    machine = FakeMachine(tmp_path)
    machine.root = False
    needs_root = r"^the cluster needs root \(network and mount namespaces, a bridge\)$"
    with pytest.raises(StackError, match=needs_root):
        hosts.require_root(machine)


def test_another_checkouts_cluster_is_refused_while_its_bridge_is_up(tmp_path):
    cluster, machine = cluster_in(tmp_path), FakeMachine(tmp_path)
    hosts.require_owner(cluster, machine)  # no cluster at all
    (machine.run_dir / "orderservice-cluster.owner").write_text(f"{cluster.dir}\n")
    machine.answers[("ip", "link", "show", "osbr0")] = (0, "")
    hosts.require_owner(cluster, machine)  # this checkout's
    (machine.run_dir / "orderservice-cluster.owner").write_text("/elsewhere/var/cluster\n")
    with pytest.raises(StackError) as refused:
        hosts.require_owner(cluster, machine)
    assert str(refused.value) == (
        "the cluster on this machine was made from /elsewhere/var/cluster: run scripts/cluster.sh down there "
        "first (if that checkout is gone: CLUSTER_DIR=/elsewhere/var/cluster scripts/cluster.sh down)"
    )
    del machine.answers[("ip", "link", "show", "osbr0")]
    hosts.require_owner(cluster, machine)  # its bridge is gone: a stale file


def test_files_are_read_as_the_shell_read_them(tmp_path):
    (tmp_path / "two").write_text("net:[1]\n\n")
    (tmp_path / "empty").write_text("")
    assert hosts.text_of(tmp_path / "two") == "net:[1]"
    assert hosts.text_of(tmp_path / "missing") == ""
    assert (hosts.nonempty(str(tmp_path / "two")), hosts.nonempty(str(tmp_path / "empty"))) == (True, False)
    (tmp_path / "tree" / "deep").mkdir(parents=True)
    hosts.remove_tree(str(tmp_path / "tree"))
    hosts.remove_tree(str(tmp_path / "tree"))
    assert not (tmp_path / "tree").exists()
