"""The steady load of the cluster's fault tests, and what they do around it: learners buy free
seats at lms-1 at RPM purchases a minute from one headless Locust process on locust-1 (the
suite's rpm profile with REQUEST_LOG), the hosts reached from this machine, a new release for
the rolling deploy, the environment for the suite's audit of a database host, and the
operator's retry_fulfillment."""

import os
import signal
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

import yaml

from common.environment import get
from locustfiles.suite.chaos import cluster as faults
from locustfiles.suite.core.names import ORDER_ENDPOINT
from locustfiles.suite.verdict import audit
from tests.cluster.conftest import CLUSTER_SH, LMS_PORT, PREFIX, ROOT, cluster, hosts, on_host

ADDRESSES = hosts()
CLUSTER_DIR = Path(get("CLUSTER_DIR"))
OUT = CLUSTER_DIR / "faults"
SUPERVISOR_CONF = f"{PREFIX}/etc/supervisord.conf"
SUPERVISOR_PIDFILE = f"{PREFIX}/supervisor/supervisord.pid"
# How long a supervisord may take to stop its programs (gunicorn's graceful timeout and more),
# or to have them all RUNNING again (their startsecs and more).
SUPERVISORD_SECONDS = 60
RPM = 450  # purchases a minute: 7.5 a second, well within what the 2 shared cores sustain
SECRETS = yaml.safe_load((ROOT / "ansible/inventories/cluster/group_vars/all/test-secrets.yml").read_text())


class ClusterHosts(faults.Hosts):
    """The hosts of scripts/cluster.sh, reached from this machine (root)."""

    def run(self, host: str, *command: str, timeout: float = 120) -> str:
        done = cluster("exec", host, *command, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"{host}: {' '.join(command)}: {(done.stdout + done.stderr)[-500:]}")
        return done.stdout

    def set_link(self, host: str, up: bool) -> None:
        # The bridge side of the host's veth pair (stack/cluster/hosts.py, host_link): its eth0 loses
        # its carrier, as a host whose cable is pulled.
        subprocess.run(["ip", "link", "set", f"os-{host}", "up" if up else "down"], check=True, timeout=10)

    def kill_programs(self, host: str) -> list[str]:
        """SIGKILL to the deployment's processes on ``host`` alone (its supervisord first, so
        nothing restarts, then what it ran), as a host whose power is cut; the host's sshd
        stays. The hosts share this machine's process table (no PID namespace): a pkill run on
        the host would reach every host's processes, so they are found by the host's network
        namespace."""
        listed = subprocess.run(["ip", "netns", "pids", host], capture_output=True, text=True, check=True)
        found = {}
        for pid in listed.stdout.split():
            try:
                found[int(pid)] = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue  # ended since
        ordered = sorted(found, key=lambda pid: "supervisord" not in found[pid])
        killed = []
        for pid in ordered:
            if PREFIX not in found[pid] or "sshd" in found[pid]:
                continue  # not the deployment's (mariadbd, supervisord, the agent all name it)
            try:
                os.kill(pid, signal.SIGKILL)
                killed.append(found[pid])
            except ProcessLookupError:
                pass
        return killed

    def programs(self, host: str, action: str, names: list[str]) -> str:
        return self.run(host, "supervisorctl", "-c", SUPERVISOR_CONF, action, *names)

    def supervisord(self, host: str, running: bool) -> str:
        # As roles/common runs it (its umask, and its @reboot job), and only if it is not running
        # (its pid file's process is alive); `supervisorctl status` answers 0 once every program
        # is started (STARTING counts: lms_stub's startsecs are not waited for).
        ctl = f"supervisorctl -c {SUPERVISOR_CONF}"
        alive = f'pid=$(cat {SUPERVISOR_PIDFILE} 2>/dev/null) && kill -0 "$pid" 2>/dev/null'
        if running:
            script = (
                f"{alive} || (umask 027 && supervisord -c {SUPERVISOR_CONF}) && "
                f"until {ctl} status >/dev/null; do sleep 0.2; done"
            )
        else:
            gone = 'while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done'
            script = f"{alive} || exit 0; {ctl} shutdown && {gone}"
        return self.run(host, "timeout", str(SUPERVISORD_SECONDS), "/bin/sh", "-c", script)

    def rolling_deploy(self) -> tuple[int, str]:
        source = new_release()
        done = cluster("deploy", "ecommerce.yml", "-e", f"common_source_dir={source}", timeout=900)
        (OUT / "rolling-deploy.log").write_text(done.stdout + done.stderr)
        return done.returncode, done.stdout + done.stderr


def new_release() -> Path:
    """A checkout of this one's files (uncommitted edits included) plus one file: another git
    tree, so another release for the common role to ship."""
    clone = OUT / "next-release"
    subprocess.run(["rm", "-rf", str(clone)], check=True)
    git = ["git", "-c", "user.name=cluster-test", "-c", "user.email=cluster-test@localhost"]
    stash = subprocess.run(
        ["git", "-C", str(ROOT), "stash", "create"], capture_output=True, text=True, check=True
    )
    revision = stash.stdout.strip() or "HEAD"
    revision = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", revision], capture_output=True, text=True, check=True
    ).stdout.strip()
    # --shared: the clone reads this repository's objects, the stash's commit among them.
    subprocess.run([*git, "clone", "-q", "--shared", "--no-checkout", str(ROOT), str(clone)], check=True)
    subprocess.run([*git, "-C", str(clone), "checkout", "-q", "--detach", revision], check=True)
    (clone / "RELEASE-NOTE").write_text(f"A new release for the rolling deploy, made at {time.ctime()}.\n")
    subprocess.run([*git, "-C", str(clone), "add", "RELEASE-NOTE"], check=True)
    subprocess.run([*git, "-C", str(clone), "commit", "-q", "-m", "A new release"], check=True)
    return clone


@contextmanager
def database_environment(host: str):
    """This process's environment pointed at a database host with the services' and the
    monitor's accounts, for the suite's audit (its watermarks and the services' management
    commands)."""
    values = {
        "MYSQL_HOST": ADDRESSES[host],
        "MYSQL_PORT": "3306",
        "MYSQL_MONITOR_USER": "monitor",
        "MYSQL_MONITOR_PASSWORD": SECRETS["vault_mysql_monitor_password"],
        "ECOMMERCE_DB_USER": "ecommerce_app",
        "ECOMMERCE_DB_PASSWORD": SECRETS["vault_ecommerce_db_password"],
        "LMS_DB_USER": "lms_app",
        "LMS_DB_PASSWORD": SECRETS["vault_lms_db_password"],
        "ECOMMERCE_DB_NAME": "ecommerce",
        "LMS_DB_NAME": "lms",
        "DB_ACCOUNT": "app",
        "DJANGO_SETTINGS_MODULE": "settings.local",
    }
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


class Load:
    """The steady load: the suite's rpm profile in one headless Locust process on locust-1, as
    the service user, with the deployed Locust master's environment."""

    def __init__(self, seconds: int):
        # Locust's own user and folder (roles/locust: locust_user, locust_var_dir).
        self.run_dir = f"{PREFIX}/var/locust/runs/cluster-faults-{time.strftime('%Y%m%d-%H%M%S')}"
        self.local_dir = CLUSTER_DIR / "locust-1" / "srv" / self.run_dir.removeprefix("/srv/")
        master = on_host("locust-1", "supervisorctl", "-c", SUPERVISOR_CONF, "pid", "locust-master").strip()
        environ = on_host("locust-1", "cat", f"/proc/{master}/environ").split("\0")
        env = dict(entry.split("=", 1) for entry in environ if "=" in entry)
        env.update(
            PROFILE="rpm",
            RPM=str(RPM),
            DURATION=str(seconds),
            WARMUP_SECONDS="0",
            PAY_WEIGHT="0",
            READ_WEIGHT="0",
            REQUEST_LOG="1",
        )
        command = (
            f"mkdir -p {self.run_dir} && echo $$ > {self.run_dir}/locust.pid && cd {PREFIX}/current && "
            f"exec {PREFIX}/venv/bin/locust -f locustfiles/rpm.py --headless --only-summary "
            f"--host http://{ADDRESSES['lms-1']}:{LMS_PORT} --suite-run-dir {self.run_dir} "
            "--stop-timeout 30 --exit-code-on-error 0 --loglevel WARNING"
        )
        OUT.mkdir(parents=True, exist_ok=True)
        self.log = open(OUT / "locust.log", "w")  # noqa: SIM115
        self.process = subprocess.Popen(
            [
                str(CLUSTER_SH),
                "exec",
                "locust-1",
                "runuser",
                "-u",
                "orderservice-locust",
                "--",
                # SIGINT stops the run (stop()); a caller started in the background passes it on
                # ignored, which Locust would keep.
                "env",
                "--default-signal=INT",
                *(f"{k}={v}" for k, v in env.items()),
                "/bin/sh",
                "-c",
                command,
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self.pid = self._wait_for_pid()

    def _wait_for_pid(self) -> int:
        path = self.local_dir / "locust.pid"
        for _ in range(100):
            if path.exists() and path.read_text().strip():
                return int(path.read_text())
            if self.process.poll() is not None:
                break
            time.sleep(0.2)
        raise AssertionError(f"the load did not start: {(OUT / 'locust.log').read_text()[-2000:]}")

    def stop(self) -> None:
        """SIGINT, as run/cli.py stops a run: Locust ends the test and writes its folder."""
        try:
            os.kill(self.pid, signal.SIGINT)
        except ProcessLookupError:
            pass
        try:
            self.process.wait(120)
        except subprocess.TimeoutExpired:
            os.kill(self.pid, signal.SIGKILL)
            self.process.wait(10)
        self.log.close()

    def requests(self) -> list[faults.Request]:
        return faults.read_requests(sorted(self.local_dir.glob("requests-*.csv")))


def purchases(requests: list[faults.Request]) -> list[faults.Request]:
    """The learners' free purchases among the load's requests (the order endpoint's)."""
    return [r for r in requests if r.name == ORDER_ENDPOINT]


def audit_purchases(load: Load, marks: dict, bought: list[faults.Request]) -> dict:
    """The suite's audit of the load's orders in the database database_environment points at,
    expecting one order for every purchase answered."""
    return audit.audit(load.local_dir, marks, sum(1 for r in bought if r.ok))


def retry_fulfillment() -> str:
    """retry_fulfillment --all on ecommerce-1, as an operator runs it after an incident: every
    order left in Fulfillment Error, and every Open one (the load is over: none is under way)."""
    return on_host(
        "ecommerce-1",
        "env",
        "STALE_OPEN_ORDER_SECONDS=0",
        f"{PREFIX}/bin/ecommerce-manage",
        "retry_fulfillment",
        "--all",
        timeout=600,
    )
