"""The simulated hosts: their names and addresses on CLUSTER_SUBNET, the folders under
CLUSTER_DIR that hold them, the text of what each is made with (its /etc/hosts, its sshd's
configuration, the holder's script), and the checks every command makes before it acts."""

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from common.environment import ROOT, raw
from stack.cluster.machine import Machine
from stack.processes import StackError, pid_of

BRIDGE = "osbr0"
# The hosts and the last octet of each address (shared by the issue-17 slices; the inventory's
# addresses are checked against this table by tests/unit/test_cluster_inventory.py).
HOSTS = (
    ("db-1", 10),
    ("db-2", 11),
    ("lms-1", 20),
    ("ecommerce-1", 31),
    ("ecommerce-2", 32),
    ("locust-1", 40),
    ("locust-2", 41),
    ("lb-1", 50),
)
# Packages the hosts use that the roles do not install: the sshd that holds each host, and sudo
# (the plays `become` root, as on real hosts).
HOST_PACKAGES = ("openssh-server", "sudo")
# The deployment's users (the roles' defaults) and each one's home: the code's owner, and each
# service's own (ecommerce, lms_stub, Locust, the readings agent).
SERVICE_USERS = (
    ("orderservice", "/srv/orderservice/var"),
    ("orderservice-ecommerce", "/nonexistent"),
    ("orderservice-lms", "/nonexistent"),
    ("orderservice-locust", "/nonexistent"),
    ("orderservice-readings", "/nonexistent"),
)
# Every host's /etc/hosts names the m3 inventories' load balancer on lb-1, as a real
# deployment's DNS would.
BALANCER_NAME = "orders.example.com"
SUBNET = re.compile(r"([0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3})\.0/24")
# One cluster per machine (the bridge and the host names are fixed): the checkout whose
# CLUSTER_DIR made it owns it (this file, under the machine's /run), and another checkout's up
# or down refuses to touch it.
OWNER_FILE = "orderservice-cluster.owner"

# The holder of a host: a UTS and a private mount namespace inside the network namespace, the
# host's own folders bound on /srv, /tmp and /etc/hosts, then sshd in the foreground (exec: the
# holder's pid is sshd's). Nothing mounted in there is seen outside, and it all goes with the host.
HOLDER_SCRIPT = """
    set -e
    hostname "$1"
    mount --bind "$2/srv" /srv
    mount --bind "$2/tmp" /tmp
    mount --bind "$2/hosts" /etc/hosts
    exec /usr/sbin/sshd -D -e -f "$2/sshd_config"
  """
# What `exec` runs a command with on a host: the host's root login environment.
EXEC_ENVIRONMENT = (
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "HOME=/root",
    "LANG=C.UTF-8",
)


def network(subnet: str) -> str:
    """The first three octets of CLUSTER_SUBNET, which must be a /24 written a.b.c.0/24."""
    match = SUBNET.fullmatch(subnet)
    if match is None:
        raise StackError(f"CLUSTER_SUBNET must be a /24 written a.b.c.0/24 (got '{subnet}')")
    return match.group(1)


@dataclass(frozen=True)
class Cluster:
    """Where the cluster is, as the environment sets it: its addresses and its folders. Paths are
    kept as the environment writes them, the text every command and file is given."""

    subnet: str
    net: str
    dir: str
    root: str
    python: str
    venv: str
    forks: str
    wheelhouse_port: str

    @classmethod
    def from_environment(cls) -> "Cluster":
        subnet = raw("CLUSTER_SUBNET") or ""
        return cls(
            subnet=subnet,
            net=network(subnet),
            dir=raw("CLUSTER_DIR") or "",
            # scripts/lib.sh's ROOT, the checkout as the caller reached it.
            root=os.environ.get("ROOT") or str(ROOT),
            python=raw("PYTHON") or "",
            venv=raw("VENV") or "",
            forks=raw("CLUSTER_FORKS") or "",
            wheelhouse_port=raw("CLUSTER_WHEELHOUSE_PORT") or "",
        )

    @property
    def gateway(self) -> str:
        """This machine's address on the bridge."""
        return f"{self.net}.1"

    @property
    def ssh_dir(self) -> str:
        return f"{self.dir}/ssh"

    @property
    def control_dir(self) -> str:
        """ansible-playbook's SSH connections (ControlPersist): `down` ends those that remain."""
        return f"{self.dir}/cp"

    @property
    def wheelhouse(self) -> str:
        return f"{self.dir}/wheelhouse"

    @property
    def wheelhouse_pidfile(self) -> str:
        return f"{self.dir}/wheelhouse-server.pid"

    @property
    def tls_dir(self) -> str:
        return f"{self.dir}/tls"

    def hosts(self) -> list[tuple[str, str]]:
        """Every host's name and address, in the table's order."""
        return [(name, f"{self.net}.{octet}") for name, octet in HOSTS]

    def host_dir(self, name: str) -> str:
        return f"{self.dir}/{name}"


def host_link(name: str) -> str:
    """The bridge-side end of a host's veth pair (interface names are at most 15 characters)."""
    return f"os-{name}"


def hosts_file(cluster: Cluster) -> str:
    """Every host's /etc/hosts: the hosts by name, and the balancer's name on lb-1."""
    lines = ["127.0.0.1 localhost", "::1 localhost ip6-localhost ip6-loopback"]
    for name, address in cluster.hosts():
        lines.append(f"{address} {name}" + (f" {BALANCER_NAME}" if name == "lb-1" else ""))
    return "\n".join(lines) + "\n"


def sshd_config(cluster: Cluster, name: str, address: str) -> str:
    home = cluster.host_dir(name)
    return f"""\
# {name}'s sshd (scripts/cluster.sh): root with the cluster's key only, on the host's address.
ListenAddress {address}:22
HostKey {home}/ssh_host_ed25519_key
AuthorizedKeysFile {cluster.ssh_dir}/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PrintMotd no
PidFile {home}/sshd.pid
MaxStartups 50:30:100
MaxSessions 50
Subsystem sftp /usr/lib/openssh/sftp-server
"""


def holder_argv(cluster: Cluster, name: str) -> list[str]:
    """The host's holder, started in its network namespace (its sshd, in the end)."""
    return [
        *("setsid", "ip", "netns", "exec", name),
        *("unshare", "--uts", "--mount", "--propagation", "private", "--"),
        *("/bin/bash", "-c", HOLDER_SCRIPT, "holder", name, cluster.host_dir(name)),
    ]


def exec_argv(pid: str, command: list[str]) -> list[str]:
    """``command`` in the network, mount and UTS namespaces of the process ``pid`` holds (what
    runs there sees what the host's programs see), with the host's root login environment."""
    return [
        "nsenter",
        "--target",
        pid,
        "--net",
        "--mount",
        "--uts",
        "--",
        "env",
        "-i",
        *EXEC_ENVIRONMENT,
        *command,
    ]


def text_of(path: str | Path) -> str:
    """A file's text without its trailing newlines (as the shell's $(cat FILE)), "" if unreadable."""
    try:
        return Path(path).read_text(errors="replace").rstrip("\n")
    except OSError:
        return ""


def holder_pid(cluster: Cluster, machine: Machine, name: str) -> str:
    """The host's sshd, the process that holds its namespaces ("" if none runs)."""
    home = cluster.host_dir(name)
    pid = pid_of(Path(f"{home}/sshd.pid"))
    return pid if pid and machine.pid_matches(pid, f"{home}/sshd_config") else ""


def known_host(name: str) -> None:
    names = [host for host, _ in HOSTS]
    if name not in names:
        raise StackError(f"unknown host '{name}'; the hosts: {' '.join(names)} ")


def require_root(machine: Machine) -> None:
    if not machine.is_root():
        raise StackError("the cluster needs root (network and mount namespaces, a bridge)")


def owner_file(machine: Machine) -> Path:
    return machine.run_dir / OWNER_FILE


def require_owner(cluster: Cluster, machine: Machine) -> None:
    """The cluster on this machine, if any, is this checkout's (CLUSTER_DIR)."""
    owner = text_of(owner_file(machine))
    if owner and owner != cluster.dir and machine.succeeds(["ip", "link", "show", BRIDGE]):
        raise StackError(
            f"the cluster on this machine was made from {owner}: run scripts/cluster.sh down there "
            f"first (if that checkout is gone: CLUSTER_DIR={owner} scripts/cluster.sh down)"
        )


def nonempty(path: str) -> bool:
    """The shell's `[ -s PATH ]`."""
    try:
        return os.stat(path).st_size > 0
    except OSError:
        return False


def remove_tree(path: str) -> None:
    """`rm -rf PATH`."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        Path(path).unlink(missing_ok=True)
