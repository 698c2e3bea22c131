"""The commands of scripts/cluster.sh (`make cluster-*`; docs/deploy.md, "The cluster"):

    up                  make the hosts (a stale cluster is torn down first)
    deploy [PLAYBOOK.yml] [ARGS]   ansible-playbook site.yml (or PLAYBOOK) -i ansible/inventories/cluster
    down                tear everything down, check nothing is left (idempotent)
    status              say what runs on each host
    exec HOST CMD...    run CMD on HOST (its namespaces), as root
    hosts               print "name address" for every host
    load [USERS...]     a load run through the cluster (STEP_SECONDS per user count)
    run PROFILE [NAME=VALUE...]   a suite profile's headless run from locust-1
    test [ARGS]         `make cluster-test`: up, deploy, tests/cluster, down (always)

Their messages, output streams and exit statuses are the script's as it was in bash.
"""

import os
import signal
import sys
from collections.abc import Callable, MutableMapping

from stack.cluster.down import down, host_pids
from stack.cluster.hosts import BRIDGE, Cluster, exec_argv, holder_pid, known_host, require_root
from stack.cluster.machine import Interrupted, Machine
from stack.cluster.up import up
from stack.processes import StackError, StepFailed, exit_status, say

USAGE = (
    "usage: scripts/cluster.sh up|deploy [PLAYBOOK.yml] [ansible-playbook args]|down|status|exec HOST CMD..."
    "|hosts|load [USERS...]|run PROFILE [NAME=VALUE...]|test [pytest args]"
)
# What `status` runs on each host that is up: its supervisord's programs, if it has one.
SUPERVISOR_STATUS = (
    "c=/srv/orderservice/etc/supervisord.conf; "
    '[ -e $c ] && supervisorctl -c $c status | sed "s/^/    /" || true'
)
# The plugins the cluster's tests do without: they test hosts, not the services' code.
PLUGINS_OFF = ["-p", "no:django", "-p", "no:schemathesis", "-p", "no:anyio"]


def deploy(cluster: Cluster, machine: Machine, args: list[str], log: str | None = None) -> int:
    """site.yml, or one tier's playbook (ecommerce.yml: a rolling deploy of the pair, one host
    drained at a time), with ansible-playbook's arguments; its output also to ``log``."""
    require_root(machine)
    if not holder_pid(cluster, machine, "db-1"):
        raise StackError("the cluster is not up (scripts/cluster.sh up)")
    playbook = "site.yml"
    if args and args[0].endswith(".yml"):
        playbook, args = args[0], args[1:]
    ansible = f"{cluster.root}/ansible"
    if not os.path.isfile(os.path.join(ansible, playbook)):
        raise StackError(f"no playbook ansible/{playbook}")
    # profile_tasks: the slowest tasks at the end (the hosts share this machine's cores).
    env = {
        **os.environ,
        "PATH": f"{cluster.venv}/bin:{os.environ.get('PATH', '')}",
        "ANSIBLE_SSH_CONTROL_PATH_DIR": cluster.control_dir,
        "ANSIBLE_FORCE_COLOR": "0",
        "ANSIBLE_CALLBACKS_ENABLED": "ansible.posix.profile_tasks",
        "PROFILE_TASKS_TASK_OUTPUT_LIMIT": "15",
    }
    argv = ["ansible-playbook", "-i", "inventories/cluster", playbook, "--forks", cluster.forks, *args]
    if log is None:
        return machine.call(argv, cwd=ansible, env=env)
    return machine.teed(argv, log, cwd=ansible, env=env)


def exec_on(cluster: Cluster, machine: Machine, args: list[str]) -> int:
    """CMD in HOST's network, mount and UTS namespaces, with the host's root login environment."""
    if len(args) < 2:
        raise StackError("usage: scripts/cluster.sh exec HOST CMD...")
    known_host(args[0])
    pid = holder_pid(cluster, machine, args[0])
    if not pid:
        raise StackError(f"{args[0]} is not up (scripts/cluster.sh up)")
    return machine.call(exec_argv(pid, args[1:]))


def show_status(cluster: Cluster, machine: Machine, args: list[str]) -> int:
    if not machine.succeeds(["ip", "link", "show", BRIDGE]):
        say("cluster: down")
        return 0
    for name, address in cluster.hosts():
        pid = holder_pid(cluster, machine, name)
        if not pid:
            say(f"{name:<12} {address:<14} no sshd", sys.stdout)
            continue
        count = len(host_pids(cluster, machine, name))
        say(f"{name:<12} {address:<14} sshd {pid}, {count} processes", sys.stdout)
        done = exec_on(cluster, machine, [name, "/bin/sh", "-c", SUPERVISOR_STATUS])
        if done:
            raise StepFailed(done)
    return 0


def hosts(cluster: Cluster, machine: Machine, args: list[str]) -> int:
    for name, address in cluster.hosts():
        say(f"{name} {address}", sys.stdout)
    return 0


def load(cluster: Cluster, machine: Machine, args: list[str]) -> int:
    """A load run through the cluster by the deployed Locust master on locust-1 and the workers
    of both Locust hosts, each user count for STEP_SECONDS (scripts/cluster_load.py)."""
    require_root(machine)
    if args[:1] == ["run"]:
        raise StackError(
            "usage: scripts/cluster.sh load [USERS...] (a profile's run: scripts/cluster.sh run PROFILE)"
        )
    if not holder_pid(cluster, machine, "locust-1"):
        raise StackError("the cluster is not up (scripts/cluster.sh up, deploy)")
    steps = f"STEP_SECONDS={os.environ.get('STEP_SECONDS') or '30'}"
    command = ["env", steps, "/usr/bin/python3", f"{cluster.root}/scripts/cluster_load.py", *args]
    return exec_on(cluster, machine, ["locust-1", *command])


def run_profile(cluster: Cluster, machine: Machine, args: list[str]) -> int:
    """A suite profile's headless run from locust-1 (one Locust process, as the deployed master
    runs Locust: its user, release, environment and target), its sizes as NAME=VALUE; the
    open-model profiles (capacity, rpm) the deployed master's web UI does not run."""
    require_root(machine)
    if not args:
        raise StackError(
            "usage: scripts/cluster.sh run PROFILE [NAME=VALUE...], e.g. run capacity RPM_START=1200"
        )
    if not holder_pid(cluster, machine, "locust-1"):
        raise StackError("the cluster is not up (scripts/cluster.sh up, deploy)")
    command = ["/usr/bin/python3", f"{cluster.root}/scripts/cluster_load.py", "run", *args]
    return exec_on(cluster, machine, ["locust-1", *command])


def pytest(cluster: Cluster, machine: Machine, args: list[str]) -> int:
    """The virtualenv's pytest on ``args`` from the checkout, the checkout its PYTHONPATH."""
    env = {**os.environ, "PYTHONPATH": cluster.root}
    return machine.call([cluster.python, "-m", "pytest", *args], cwd=cluster.root, env=env)


def deployed_and_tested(cluster: Cluster, machine: Machine, args: list[str]) -> tuple[int, int, int]:
    """Up, deploy and tests/cluster (but the teardown's): when up and deploy ended, and the
    tests' status."""
    up(cluster, machine)
    deploying = machine.now()
    os.makedirs(f"{cluster.dir}/logs", exist_ok=True)
    deployed = deploy(cluster, machine, [], log=f"{cluster.dir}/logs/deploy.log")
    if deployed:
        raise StepFailed(deployed)
    tests = [*PLUGINS_OFF, "--ignore", "tests/cluster/test_teardown.py", *args]
    return deploying, machine.now(), pytest(cluster, machine, ["tests/cluster", *tests])


def test(cluster: Cluster, machine: Machine, args: list[str]) -> int:
    """`make cluster-test`: down always, even after a failure or an interrupt (SIGINT or SIGTERM
    end it with 130 once the program running has ended, SIGHUP with 129 at once; the teardown
    first)."""
    require_root(machine)
    started = machine.now()
    with machine.deferring_signals():
        try:
            deploying, testing, passed = deployed_and_tested(cluster, machine, args)
        except BaseException as failure:
            if isinstance(failure, StackError):
                say(f"error: {failure}")  # before the teardown's messages, as the script said it
            down(cluster, machine)
            if isinstance(failure, StackError):
                raise StepFailed(1) from failure
            raise
        stopping = machine.now()
        status = passed if down(cluster, machine) else 1
        ended = machine.now()
        if pytest(cluster, machine, ["tests/cluster/test_teardown.py", *PLUGINS_OFF, *args]):
            status = 1
    say(
        f"cluster-test: up {deploying - started}s, deploy {testing - deploying}s, "
        f"tests {stopping - testing}s, down {ended - stopping}s, total {machine.now() - started}s"
    )
    say("cluster-test: passed" if status == 0 else "cluster-test: FAILED")
    return status


def _up(cluster: Cluster, machine: Machine, args: list[str]) -> int:
    return up(cluster, machine)


def _deploy(cluster: Cluster, machine: Machine, args: list[str]) -> int:
    return deploy(cluster, machine, args)


def _down(cluster: Cluster, machine: Machine, args: list[str]) -> int:
    return 0 if down(cluster, machine) else 1


COMMANDS: dict[str, Callable[[Cluster, Machine, list[str]], int]] = {
    "up": _up,
    "deploy": _deploy,
    "down": _down,
    "status": show_status,
    "exec": exec_on,
    "hosts": hosts,
    "load": load,
    "run": run_profile,
    "test": test,
}


def run(argv: list[str], machine: Machine | None = None) -> int:
    """The command ``argv`` names, on the cluster the environment describes (a CLUSTER_SUBNET
    that is not a /24 is refused before anything, whatever the command)."""
    cluster = Cluster.from_environment()
    command = COMMANDS.get(argv[0] if argv else "")
    if command is None:
        say(USAGE)
        return 2
    try:
        return command(cluster, machine or Machine(), argv[1:])
    except Interrupted as interrupt:
        return interrupt.status


def callers_pythonpath(environ: MutableMapping[str, str], root: str) -> None:
    """PYTHONPATH as the caller of scripts/cluster.sh had it, for every program the cluster
    runs: the script put the checkout before it for this process alone."""
    value = environ.get("PYTHONPATH", "")
    if not root:
        return
    if value == root:
        del environ["PYTHONPATH"]
    elif value.startswith(f"{root}:"):
        environ["PYTHONPATH"] = value[len(root) + 1 :]


def main() -> None:
    """As scripts/cluster.sh: what it makes on the hosts is readable by their services' users
    (umask 022: 027 would leave /srv closed to them; what the deployment writes carries the
    roles' own modes), and Ctrl-C ends it without a traceback (`test` defers it)."""
    callers_pythonpath(os.environ, os.environ.get("ROOT", ""))
    os.umask(0o022)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(exit_status(run, sys.argv[1:]))
