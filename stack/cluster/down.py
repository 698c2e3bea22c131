"""`down`: everything the cluster made taken down, and then checked: no namespace, process,
mount, link or listener of it is left (``leftovers``), or `down` says what is and fails.

The hosts' processes are found by network namespace: by the host's name (`ip netns pids`) and by
the namespace's identity recorded when it was made (netns-id), which still finds them once the
name is gone. The controller's own are the wheelhouse server and Ansible's SSH masters."""

import re
import signal
from pathlib import Path

from stack.cluster.hosts import (
    BRIDGE,
    SERVICE_USERS,
    Cluster,
    host_link,
    owner_file,
    remove_tree,
    require_owner,
    require_root,
    text_of,
)
from stack.cluster.machine import DEVNULL, Machine
from stack.processes import StackError, pid_of, say

NAMESPACE_ID = re.compile(r"[0-9]+")


def ns_pids(machine: Machine, netns_id: str) -> list[str]:
    """Every process whose network namespace is ``netns_id`` (net:[inode]); never this
    machine's own namespace."""
    inode = netns_id.removeprefix("net:[").removesuffix("]")
    if not NAMESPACE_ID.fullmatch(inode):
        raise StackError(f"not a namespace id: '{netns_id}'")
    if netns_id == machine.own_netns():
        raise StackError("refusing to list the machine's own network namespace")
    return machine.netns_pids(int(inode))


def recorded_pids(cluster: Cluster, machine: Machine, name: str) -> list[str]:
    """The processes in the namespace recorded for ``name`` (none if none is recorded); a
    record that is refused is said, and lists nothing."""
    netns_id = text_of(f"{cluster.host_dir(name)}/netns-id")
    if not netns_id:
        return []
    try:
        return ns_pids(machine, netns_id)
    except StackError as refusal:
        say(f"error: {refusal}")
        return []


def host_pids(cluster: Cluster, machine: Machine, name: str) -> list[str]:
    """Every process of the host: in its named namespace, or in its recorded one."""
    _, listed = machine.output(["ip", "netns", "pids", name], stderr=DEVNULL)
    pids = {pid for pid in listed.split() if pid.isdigit()} | set(recorded_pids(cluster, machine, name))
    return sorted(pids, key=int)


def controller_pids(cluster: Cluster, machine: Machine) -> list[str]:
    """The controller's own cluster processes: the wheelhouse server, Ansible's SSH masters."""
    found = []
    pid = pid_of(Path(cluster.wheelhouse_pidfile))
    if pid and machine.pid_matches(pid, "http.server"):
        found.append(pid)
    found += [pid for pid in machine.ssh_pids() if machine.pid_matches(pid, f"{cluster.control_dir}/")]
    return found


def every_pid(cluster: Cluster, machine: Machine) -> list[str]:
    pids = [pid for name, _ in cluster.hosts() for pid in host_pids(cluster, machine, name)]
    return pids + controller_pids(cluster, machine)


def namespace_listed(machine: Machine, name: str) -> bool:
    """True when `ip netns list` names ``name``."""
    status, listed = machine.output(["ip", "netns", "list"], stderr=DEVNULL)
    pattern = re.compile(rf"{re.escape(name)}( |$)")
    return status == 0 and any(pattern.match(line) for line in listed.splitlines())


def leftovers(cluster: Cluster, machine: Machine) -> list[str]:
    """What a cluster could leave behind, one line each (none when clean)."""
    left = [f"bridge {BRIDGE}"] if machine.succeeds(["ip", "link", "show", BRIDGE]) else []
    for name, _ in cluster.hosts():
        if namespace_listed(machine, name):
            left.append(f"namespace {name}")
        if machine.succeeds(["ip", "link", "show", host_link(name)]):
            left.append(f"link {host_link(name)}")
        # Processes still in the host's network namespace, even when its name is gone.
        left += [
            f"process {pid} on {name}: {machine.cmdline(pid)}"
            for pid in recorded_pids(cluster, machine, name)
        ]
    left += [f"process {pid}: {machine.cmdline(pid)}" for pid in controller_pids(cluster, machine)]
    left += [f"mount {line}" for line in machine.mountinfo().splitlines() if f" {cluster.dir}/" in line]
    _, listening = machine.output(["ss", "-Hltn"], stderr=DEVNULL)
    for fields in (line.split() for line in listening.splitlines()):
        if len(fields) > 3 and fields[3].startswith(f"{cluster.net}."):
            left.append(f"listener {fields[3]}")
    return left


def record_namespaces(cluster: Cluster) -> None:
    """The namespaces taken down, for tests/cluster/test_teardown.py to look for their processes."""
    if not Path(cluster.dir).is_dir():
        return
    with open(f"{cluster.dir}/down-netns-ids", "wb") as record:
        for name, _ in cluster.hosts():
            try:
                record.write(Path(f"{cluster.host_dir(name)}/netns-id").read_bytes())
            except OSError:
                continue


def stop_processes(cluster: Cluster, machine: Machine) -> None:
    """TERM first (supervisord stops its programs, MariaDB shuts down cleanly), then KILL
    whatever is left, and whatever started meanwhile, until nothing runs."""
    pids = every_pid(cluster, machine)
    if pids:
        for pid in pids:
            machine.signal(pid, signal.SIGTERM)
        for _ in range(150):
            if not any(machine.running(pid) for pid in pids):
                break
            machine.sleep(0.1)
    for _ in range(20):
        pids = every_pid(cluster, machine)
        if not pids:
            break
        say(f"cluster: killing {' '.join(pids)}")
        for pid in pids:
            machine.signal(pid, signal.SIGKILL)
        machine.sleep(0.2)


def remove_network(cluster: Cluster, machine: Machine) -> None:
    """The hosts' namespaces and links, then the bridge. A step that fails is passed over: the
    check after it says what is left."""
    for name, _ in cluster.hosts():
        if namespace_listed(machine, name):
            machine.call(["ip", "netns", "del", name])
        # The bridge-side link goes with the namespace; one a half-made host left goes here.
        machine.call(["ip", "link", "del", host_link(name)], stderr=DEVNULL)
        Path(f"{cluster.host_dir(name)}/sshd.pid").unlink(missing_ok=True)
        Path(f"{cluster.host_dir(name)}/netns-id").unlink(missing_ok=True)
    if machine.succeeds(["ip", "link", "show", BRIDGE]):
        machine.call(["ip", "link", "del", BRIDGE])


def remove_users(cluster: Cluster, machine: Machine) -> None:
    """The service users `up` created (and their groups)."""
    for user, _ in SERVICE_USERS:
        created = Path(f"{cluster.dir}/created-{user}")
        if not created.exists():
            continue
        machine.call(["userdel", user], stderr=DEVNULL)
        if machine.has_group(user):
            machine.call(["groupdel", user], stderr=DEVNULL)
        created.unlink(missing_ok=True)


def down(cluster: Cluster, machine: Machine) -> bool:
    """Tear everything down (idempotent); True when nothing is left."""
    require_root(machine)
    require_owner(cluster, machine)
    record_namespaces(cluster)
    stop_processes(cluster, machine)
    remove_network(cluster, machine)
    Path(cluster.wheelhouse_pidfile).unlink(missing_ok=True)
    remove_tree(cluster.control_dir)
    remove_users(cluster, machine)
    machine.reap()
    left = leftovers(cluster, machine)
    if left:
        say("cluster: left behind after down:")
        say("\n".join(left))
        return False
    owner_file(machine).unlink(missing_ok=True)
    say("cluster: down (no namespace, process, mount, link or listener left)")
    return True
