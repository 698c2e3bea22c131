"""`up`: the hosts made, each a network namespace on the bridge with its own address (no route
out), hostname (UTS namespace), /srv, /tmp and /etc/hosts (a mount namespace; the folders are
CLUSTER_DIR/<host>/) and its own sshd, which holds those namespaces: everything Ansible starts
over SSH (supervisord and its programs) inherits them. ansible/README.md, "The cluster: simulated
hosts", lists how these hosts differ from real ones."""

import contextlib
import os
import sys
from pathlib import Path

from stack.cluster.down import down
from stack.cluster.hosts import (
    BRIDGE,
    HOSTS,
    Cluster,
    holder_argv,
    holder_pid,
    host_link,
    hosts_file,
    nonempty,
    owner_file,
    remove_tree,
    require_owner,
    require_root,
    sshd_config,
    text_of,
)
from stack.cluster.machine import Machine
from stack.cluster.prepare import (
    build_wheelhouse,
    ensure_service_users,
    install_packages,
    ssh_keys,
    tls_files,
)
from stack.processes import StackError, StepFailed, say


def bridge_argvs(cluster: Cluster) -> list[list[str]]:
    """The bridge, with this machine's address on it."""
    return [
        ["ip", "link", "add", BRIDGE, "type", "bridge"],
        ["ip", "addr", "add", f"{cluster.gateway}/24", "dev", BRIDGE],
        ["ip", "link", "set", BRIDGE, "up"],
    ]


def link_argvs(name: str, address: str) -> list[list[str]]:
    """The host's network namespace, its veth pair (eth0 inside, the other end on the bridge)."""
    link = host_link(name)
    return [
        ["ip", "netns", "add", name],
        ["ip", "link", "add", link, "type", "veth", "peer", "name", "eth0", "netns", name],
        ["ip", "link", "set", link, "master", BRIDGE, "up"],
        ["ip", "-n", name, "addr", "add", f"{address}/24", "dev", "eth0"],
        ["ip", "-n", name, "link", "set", "lo", "up"],
        ["ip", "-n", name, "link", "set", "eth0", "up"],
    ]


def host_files(cluster: Cluster, machine: Machine, name: str, address: str) -> None:
    """The host's folders, /etc/hosts, host key (its line in known_hosts) and sshd configuration."""
    home = cluster.host_dir(name)
    # A fresh host: nothing of an earlier cluster's deployment (its keys stay).
    remove_tree(f"{home}/srv")
    remove_tree(f"{home}/tmp")
    os.makedirs(f"{home}/srv", exist_ok=True)
    os.makedirs(f"{home}/tmp", exist_ok=True)
    os.chmod(f"{home}/tmp", 0o1777)
    # Every user on the host reads its /etc/hosts (the services resolve the balancer's name as
    # their own users); an earlier run's file keeps its mode when rewritten, so set it.
    Path(f"{home}/hosts").write_text(hosts_file(cluster))
    os.chmod(f"{home}/hosts", 0o644)
    key = f"{home}/ssh_host_ed25519_key"
    if not nonempty(key):
        machine.step(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", key])
    public = text_of(f"{key}.pub").split("\n")[0]
    with open(f"{cluster.ssh_dir}/known_hosts", "a") as known_hosts:
        known_hosts.write(f"{address} {' '.join(public.split(' ')[:2])}\n")
    Path(f"{home}/sshd_config").write_text(sshd_config(cluster, name, address))


def start_host(cluster: Cluster, machine: Machine, name: str, address: str) -> None:
    home = cluster.host_dir(name)
    host_files(cluster, machine, name, address)
    for argv in link_argvs(name, address):
        machine.step(argv)
    # sshd's privilege separation folder (systemd makes it on real hosts).
    os.makedirs(machine.run_dir / "sshd", exist_ok=True)
    machine.start(holder_argv(cluster, name), f"{home}/sshd.log")
    # The namespace's identity, as /proc/<pid>/ns/net names it: `down` finds its processes by it
    # even if the name is gone.
    Path(f"{home}/netns-id").write_text(f"net:[{machine.netns_inode(name)}]\n")
    for _ in range(100):
        if holder_pid(cluster, machine, name) and machine.connects(address, 22):
            return
        machine.sleep(0.1)
    with contextlib.suppress(OSError):
        sys.stderr.write(Path(f"{home}/sshd.log").read_text(errors="replace"))
    raise StackError(f"{name}: sshd did not start on {address}:22")


def start_wheelhouse_server(cluster: Cluster, machine: Machine) -> None:
    argv = [cluster.python, "-m", "http.server", "--bind", cluster.gateway, "--directory", cluster.wheelhouse]
    pid = machine.start([*argv, cluster.wheelhouse_port], f"{cluster.dir}/wheelhouse-server.log")
    Path(cluster.wheelhouse_pidfile).write_text(f"{pid}\n")
    for _ in range(50):
        if machine.connects(cluster.gateway, cluster.wheelhouse_port):
            return
        machine.sleep(0.1)
    raise StackError(f"the wheelhouse server did not start on {cluster.gateway}:{cluster.wheelhouse_port}")


def up(cluster: Cluster, machine: Machine) -> int:
    """Make the hosts; a cluster left from before is torn down first."""
    require_root(machine)
    # Each host has its own /srv and /tmp: the sshd of a host must still read its files there.
    if f"{cluster.dir}/".startswith(("/srv/", "/tmp/")):
        raise StackError(
            f"CLUSTER_DIR ({cluster.dir}) must not be under /srv or /tmp, which each host has of its own"
        )
    started = machine.now()
    require_owner(cluster, machine)
    with machine.quietly():
        clean = down(cluster, machine)
    if not clean and not down(cluster, machine):
        raise StepFailed(1)
    owner_file(machine).write_text(f"{cluster.dir}\n")
    machine.step([f"{cluster.root}/scripts/bootstrap.sh"])
    install_packages(cluster, machine)
    os.makedirs(cluster.dir, exist_ok=True)
    os.makedirs(cluster.control_dir, exist_ok=True)
    build_wheelhouse(cluster, machine)
    ensure_service_users(cluster, machine)
    ssh_keys(cluster, machine)
    tls_files(cluster, machine)
    for argv in bridge_argvs(cluster):
        machine.step(argv)
    for name, address in cluster.hosts():
        start_host(cluster, machine, name, address)
    start_wheelhouse_server(cluster, machine)
    say(f"cluster: {len(HOSTS)} hosts up on {BRIDGE} ({cluster.subnet}) in {machine.now() - started}s")
    return 0
