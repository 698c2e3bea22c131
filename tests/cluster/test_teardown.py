"""After `scripts/cluster.sh down` (make cluster-test runs this file after it): no namespace,
process, mount, link or listener of the cluster is left."""

import os
import subprocess
from pathlib import Path

from common.environment import get
from tests.cluster.conftest import hosts

CLUSTER_DIR = Path(get("CLUSTER_DIR"))
HOSTS = hosts()
NET = get("CLUSTER_SUBNET").rsplit(".", 1)[0] + "."


def _pids() -> list[str]:
    return [entry for entry in os.listdir("/proc") if entry.isdigit() and entry != str(os.getpid())]


def _read(path: str) -> str:
    try:
        with open(path, "rb") as file:
            return file.read().decode(errors="replace")
    except OSError:
        return ""


def _ns(pid: str, kind: str) -> str:
    try:
        return os.readlink(f"/proc/{pid}/ns/{kind}")
    except OSError:
        return ""


def test_no_namespace_bridge_or_link_is_left():
    namespaces = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout
    assert not {line.split()[0] for line in namespaces.splitlines() if line.strip()} & set(HOSTS)
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True, check=True).stdout
    assert "osbr0" not in links
    assert not [line for line in links.splitlines() if ": os-" in line]


def test_no_process_is_left_in_the_hosts_namespaces():
    ids = set(_read(str(CLUSTER_DIR / "down-netns-ids")).split())
    assert ids, "scripts/cluster.sh down recorded no namespace: did the cluster run?"
    left = [pid for pid in _pids() if _ns(pid, "net") in ids]
    assert not left, [(pid, _read(f"/proc/{pid}/cmdline").replace("\0", " ")) for pid in left]


def test_no_process_is_left_under_any_host_name():
    own = _ns("self", "uts")
    names = {}
    for pid in _pids():
        uts = _ns(pid, "uts")
        if uts and uts != own and uts not in names:
            done = subprocess.run(["nsenter", "-t", pid, "-u", "hostname"], capture_output=True, text=True)
            names[uts] = (pid, done.stdout.strip())
    assert not [entry for entry in names.values() if entry[1] in HOSTS]


def test_no_process_of_the_controller_side_is_left():
    # The hosts' sshd (their configuration is under CLUSTER_DIR), the wheelhouse server,
    # Ansible's SSH masters (their control sockets are under CLUSTER_DIR).
    left = [pid for pid in _pids() if str(CLUSTER_DIR) in _read(f"/proc/{pid}/cmdline")]
    assert not left, [(pid, _read(f"/proc/{pid}/cmdline").replace("\0", " ")) for pid in left]


def test_no_mount_under_the_cluster_folder_is_left_in_any_namespace():
    mounts = {_read(f"/proc/{pid}/mountinfo") for pid in _pids()}
    assert not [line for text in mounts for line in text.splitlines() if f" {CLUSTER_DIR}/" in line]


def test_no_listener_is_left_on_the_cluster_addresses():
    listeners = subprocess.run(["ss", "-Hltn"], capture_output=True, text=True, check=True).stdout
    assert not [line for line in listeners.splitlines() if f" {NET}" in line]
