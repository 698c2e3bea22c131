"""A machine for stack/cluster's unit tests (``FakeMachine``): it records every program the
cluster would run, in order, and answers for this machine as told (by default: nothing of a
cluster exists, every package is installed, every service user exists with its home); its
/run and policy-rc.d are under a temporary folder, and its processes are a table."""

import os
import signal
from pathlib import Path

from common.environment import ROOT
from stack.cluster.hosts import SERVICE_USERS, Cluster
from stack.cluster.machine import Machine
from stack.cluster.up import up

OWN_NETNS = "net:[4026531840]"


def cluster_in(folder: Path, **changes: str) -> Cluster:
    """The default cluster (10.213.1.0/24), its CLUSTER_DIR under ``folder``, named by a link
    from the checkout's var/ (`up` refuses a CLUSTER_DIR under /tmp, where pytest's folders are)."""
    (folder / "cluster").mkdir(exist_ok=True)
    link = ROOT / "var" / "unit-cluster" / f"{os.getpid()}-{abs(hash(str(folder)))}"
    link.parent.mkdir(parents=True, exist_ok=True)
    if not link.is_symlink():
        link.symlink_to(folder / "cluster")
    values = {
        "subnet": "10.213.1.0/24",
        "net": "10.213.1",
        "dir": str(link),
        "root": str(ROOT),
        "python": "/venv/bin/python",
        "venv": "/venv",
        "forks": "4",
        "wheelhouse_port": "18765",
        **changes,
    }
    return Cluster(**values)


class FakeMachine(Machine):
    """``ran``: every argv (a background start's too), in order. ``answers``: argv (a tuple) →
    (status, stdout) where the default will not do. ``links`` and ``netns``: the
    machine's links and named network namespaces, which `ip` reports and changes. ``live``: pid →
    command line of the processes that run; a signal ends one unless its pid is in ``stubborn``
    (then only SIGKILL does). ``namespaces``: inode → the pids in that network namespace."""

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.run_dir = folder / "run"
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.policy_rc = folder / "policy-rc.d"
        self.policy_rc.write_text("#!/bin/sh\nexit 101\n")
        self.root = True
        self.reachable = True
        self.ran: list[list[str]] = []
        self.options: list[dict] = []
        self.answers: dict[tuple[str, ...], tuple[int, str]] = {}
        self.live: dict[str, str] = {}
        self.stubborn: set[str] = set()
        self.signalled: list[tuple[str, int]] = []
        self.namespaces: dict[int, list[str]] = {}
        self.mounts = ""
        self.listeners = ""
        self.links: set[str] = set()
        self.netns: list[str] = []
        self.users = dict(SERVICE_USERS)
        self.groups = {user for user, _ in SERVICE_USERS}
        self.slept = 0.0
        self.clock = 0
        self.next_pid = 1000

    def answer(self, argv: list[str]) -> tuple[int, str]:
        """The explicit answer, else what a machine with ``links`` and ``netns`` would say."""
        if tuple(argv) in self.answers:
            return self.answers[tuple(argv)]
        if argv[0] == "ip":
            return self.ip(argv[1:])
        if argv[0] == "dpkg-query":
            return 0, "install ok installed"
        if argv[0] == "ss":
            return 0, self.listeners
        return 0, ""

    def ip(self, args: list[str]) -> tuple[int, str]:
        if args[:2] == ["link", "show"]:
            return (0, "") if args[2] in self.links else (1, "")
        if args[:2] == ["link", "add"]:
            self.links.add(args[2])
        if args[:2] == ["link", "del"]:
            if args[2] not in self.links:
                return 1, ""
            self.links.discard(args[2])
        if args[:2] == ["netns", "list"]:
            return 0, "".join(f"{name} (id: {index})\n" for index, name in enumerate(self.netns))
        if args[:2] == ["netns", "add"]:
            self.netns.append(args[2])
        if args[:2] == ["netns", "del"]:
            self.netns.remove(args[2])
            self.links.discard(f"os-{args[2]}")  # the veth pair goes with its namespace
        if args[:2] == ["netns", "pids"]:
            if args[2] not in self.netns:
                return 1, ""
            return 0, "".join(f"{pid}\n" for pid in self.namespaces.get(int(self.netns_inode(args[2])), []))
        return 0, ""

    def record(self, argv: list[str], options: dict) -> tuple[int, str]:
        self.ran.append(list(argv))
        self.options.append(options)
        self.make_files(argv)
        return self.answer(argv)

    def make_files(self, argv: list[str]) -> None:
        """What ssh-keygen and openssl would write."""
        if argv[0] == "ssh-keygen":
            key = argv[argv.index("-f") + 1]
            Path(key).write_text("private\n")
            Path(f"{key}.pub").write_text(f"ssh-ed25519 AAAA{len(key)} {argv[argv.index('-C') + 1]}\n")
        if argv[0] == "openssl":
            for flag in ("-keyout", "-out"):
                if flag in argv:
                    Path(argv[argv.index(flag) + 1]).write_text(f"{flag}\n")

    def call(self, argv: list[str], **options) -> int:
        status = self.record(argv, options)[0]
        self.check_signals()
        return status

    def output(self, argv: list[str], **options) -> tuple[int, str]:
        return self.record(argv, options)

    def filtered(self, argv: list[str], drop: str) -> int:
        return self.record(argv, {"drop": drop})[0]

    def teed(self, argv: list[str], log: str, **options) -> int:
        self.record(["tee", log], {})
        return self.call(argv, **options)

    def start(self, argv: list[str], log: str) -> int:
        self.record(argv, {"log": log})
        self.next_pid += 1
        pid = str(self.next_pid)
        if argv[0] == "setsid":  # a host's holder: its sshd writes its pid file
            home = argv[-1]
            Path(f"{home}/sshd.pid").write_text(f"{pid}\n")
            self.live[pid] = f"/usr/sbin/sshd -D -e -f {home}/sshd_config "
            self.namespaces.setdefault(int(self.netns_inode(argv[4])), []).append(pid)
        else:
            self.live[pid] = " ".join(argv) + " "
        return int(pid)

    def connects(self, address: str, port: str | int) -> bool:
        return self.reachable

    def sleep(self, seconds: float) -> None:
        self.slept = round(self.slept + seconds, 6)
        self.check_signals()

    def now(self) -> int:
        self.clock += 1
        return self.clock

    def is_root(self) -> bool:
        return self.root

    def signal(self, pid: str, signum: int) -> None:
        self.signalled.append((pid, signum))
        if pid not in self.stubborn or signum == signal.SIGKILL:
            self.live.pop(pid, None)
            for pids in self.namespaces.values():
                if pid in pids:
                    pids.remove(pid)

    def running(self, pid: str) -> bool:
        return pid in self.live

    def pid_matches(self, pid: str | None, pattern: str) -> bool:
        return pid in self.live and pattern in self.live[pid]

    def cmdline(self, pid: str) -> str:
        return self.live.get(pid, "")

    def netns_pids(self, inode: int) -> list[str]:
        return list(self.namespaces.get(inode, []))

    def own_netns(self) -> str:
        return OWN_NETNS

    def netns_inode(self, name: str) -> str:
        return str(4026532000 + sum(map(ord, name)))

    def ssh_pids(self) -> list[str]:
        return [pid for pid, line in self.live.items() if line.startswith("ssh ")]

    def mountinfo(self) -> str:
        return self.mounts

    def home_of(self, user: str) -> str | None:
        return self.users.get(user)

    def has_group(self, name: str) -> bool:
        return name in self.groups


def made(folder: Path) -> tuple[Cluster, FakeMachine]:
    """A cluster as `up` leaves it on a fake machine, its record of what ran cleared."""
    cluster, machine = cluster_in(folder), FakeMachine(folder)
    up(cluster, machine)
    machine.ran.clear()
    machine.options.clear()
    return cluster, machine
