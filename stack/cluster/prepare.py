"""Preparing this machine, the controller, for the hosts: the packages they use (installed here,
whose /usr they share), the wheelhouse their pip reads, the service users (shared /etc/passwd),
the controller's SSH key and the private CA of the balancer's certificate."""

import hashlib
import os
import shutil
from pathlib import Path

from stack.cluster.hosts import (
    BALANCER_NAME,
    HOST_PACKAGES,
    SERVICE_USERS,
    Cluster,
    nonempty,
    remove_tree,
    text_of,
)
from stack.cluster.machine import DEVNULL, Machine
from stack.processes import StackError, StepFailed, say

# The apt packages of every role (their *_apt_packages defaults), read by the virtualenv's Python
# (PyYAML) from the script on its stdin.
ROLE_PACKAGES = """\
import sys
from pathlib import Path

import yaml

names = set()
for defaults in sorted(Path(sys.argv[1]).glob("*/defaults/main.yml")):
    for key, value in (yaml.safe_load(defaults.read_text()) or {}).items():
        if key.endswith("_apt_packages"):
            names.update(value)
print(" ".join(sorted(names)))
"""
# As scripts/bootstrap.sh: the packages' scripts must not start system services (sshd, MariaDB).
POLICY_RC = "#!/bin/sh\nexit 101\n"


def role_packages(cluster: Cluster, machine: Machine) -> list[str]:
    _, listed = machine.output([cluster.python, "-", f"{cluster.root}/ansible/roles"], input=ROLE_PACKAGES)
    return listed.split()


def installed(machine: Machine, package: str) -> bool:
    status, state = machine.output(["dpkg-query", "-W", "-f=${Status}", package], stderr=DEVNULL)
    return status == 0 and "install ok installed" in state


def install_packages(cluster: Cluster, machine: Machine) -> None:
    """No host can reach a Debian mirror: what they use is installed on this machine, whose /usr
    the hosts share."""
    wanted = [*role_packages(cluster, machine), *HOST_PACKAGES]
    missing = [package for package in wanted if not installed(machine, package)]
    if not missing:
        return
    say(f"cluster: installing {' '.join(missing)}")
    os.environ["DEBIAN_FRONTEND"] = "noninteractive"
    own_policy = False
    if not machine.policy_rc.exists():
        machine.policy_rc.write_text(POLICY_RC)
        machine.policy_rc.chmod(0o755)
        own_policy = True
    status = machine.call(["apt-get", "update", "-qq"])
    if status == 0:
        status = machine.call(
            ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing], stdout=DEVNULL
        )
    if own_policy:
        machine.policy_rc.unlink(missing_ok=True)
    if status:
        raise StackError(f"apt-get install {' '.join(missing)} failed")


def build_wheelhouse(cluster: Cluster, machine: Machine) -> None:
    """Wheels of every pinned package the hosts install (requirements.txt with constraints.txt),
    rebuilt when the pins change; the hosts' pip reads them over HTTP (common_pip_extra_args in
    the cluster inventory)."""
    stamp = f"{cluster.wheelhouse}/.built-for"
    pins = (
        Path(f"{cluster.root}/requirements.txt").read_bytes()
        + Path(f"{cluster.root}/constraints.txt").read_bytes()
    )
    want = hashlib.sha256(pins).hexdigest()
    if text_of(stamp) == want:
        return
    say("cluster: building the wheelhouse (pip wheel -r requirements.txt -c constraints.txt)")
    remove_tree(cluster.wheelhouse)
    os.makedirs(cluster.wheelhouse, exist_ok=True)
    argv = [
        cluster.python,
        "-m",
        "pip",
        "wheel",
        "-q",
        "--disable-pip-version-check",
        "-w",
        cluster.wheelhouse,
    ]
    argv += ["-r", f"{cluster.root}/requirements.txt", "-c", f"{cluster.root}/constraints.txt"]
    status = machine.filtered(argv, drop="is ignored")
    if status:
        raise StepFailed(status)
    # Every requirement is a wheel now (mysqlclient built here), so no host builds anything, and
    # the hosts' virtualenvs (python3 -m venv) bring their own pip.
    Path(stamp).write_text(want + "\n")


def ensure_service_users(cluster: Cluster, machine: Machine) -> None:
    """The roles create the service users; the hosts share this machine's /etc/passwd, and
    parallel plays racing to add (or re-home) the same user would fail, so they are made here,
    as the roles make them: each with a group of its own name, its home where the role puts it.
    `down` removes those made here (created-<user> under CLUSTER_DIR)."""
    for user, home in SERVICE_USERS:
        current = machine.home_of(user)
        if current is not None:
            if current != home:
                machine.step(["usermod", "--home", home, user])
            continue
        if not machine.has_group(user):
            machine.step(["groupadd", "--system", user])
        machine.step(
            [
                *("useradd", "--system", "--gid", user, "--home-dir", home),
                *("--no-create-home", "--shell", "/usr/sbin/nologin", user),
            ],
        )
        Path(f"{cluster.dir}/created-{user}").touch()


def tls_files(cluster: Cluster, machine: Machine) -> None:
    """The balancer ends TLS for orders.example.com, as in the m3 inventories: a private CA made
    here signs its certificate; the inventory gives lb-1 the certificate with its key
    (vault_haproxy_tls_pem) and every host the CA (common_http_ca_bundle), as a deployment with
    a private CA would."""
    tls = cluster.tls_dir
    if nonempty(f"{tls}/orders.pem") and nonempty(f"{tls}/ca.pem"):
        return
    os.makedirs(tls, exist_ok=True)
    os.chmod(tls, 0o700)
    machine.step(
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
        stderr=DEVNULL,
    )
    machine.step(
        ["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={BALANCER_NAME}"]
        + ["-keyout", f"{tls}/orders.key", "-out", f"{tls}/orders.csr"],
        stderr=DEVNULL,
    )
    Path(f"{tls}/orders.ext").write_text(f"subjectAltName=DNS:{BALANCER_NAME}\n")
    machine.step(
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
        stderr=DEVNULL,
    )
    certificate = Path(f"{tls}/orders.crt").read_bytes() + Path(f"{tls}/orders.key").read_bytes()
    Path(f"{tls}/orders.pem").write_bytes(certificate)
    for private in [*sorted(str(key) for key in Path(tls).glob("*.key")), f"{tls}/orders.pem"]:
        os.chmod(private, 0o600)


def ssh_keys(cluster: Cluster, machine: Machine) -> None:
    """The controller's key, the only one every host's root accepts; known_hosts starts empty and
    each host's key is added as the host is made."""
    ssh = cluster.ssh_dir
    os.makedirs(ssh, exist_ok=True)
    os.chmod(ssh, 0o700)
    if not nonempty(f"{ssh}/id_ed25519"):
        machine.step(
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
                f"{ssh}/id_ed25519",
            ]
        )
    shutil.copyfile(f"{ssh}/id_ed25519.pub", f"{ssh}/authorized_keys")
    Path(f"{ssh}/known_hosts").write_text("")
