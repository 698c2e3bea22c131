"""Load runs from a host with a deployed Locust master (scripts/cluster.sh load / run, on locust-1;
molecule's single host is driven the same way from this machine):

  cluster_load.py [USERS...]
      the deployed master (its web API, found from its command line; the suite's hooks,
      READINGS_HOSTS and BALANCER_STATS_URL as the locust role sets them) with the workers of
      both Locust hosts, set to each user count in turn for STEP_SECONDS (each change is a step
      of the suite's manual profile), then stopped.
  cluster_load.py run PROFILE [NAME=VALUE...]
      one headless Locust process running a suite profile (locustfiles/PROFILE.py: capacity,
      rpm, ramp, ...) as the master runs (its user, code, virtualenv, environment and target),
      the sizes given as NAME=VALUE (RPM_START=1200 STEP_SECONDS=30 ...): the open-model
      profiles, which the deployed master's web UI does not offer, run here. Ctrl-C stops it
      with its report.

Either way the run's folder (summary.json, report.html) is written under the master's VAR_DIR's
runs/ (<prefix>/var/locust/runs/). Prints one line per step, the balancer's requests per server,
each host's CPU and the capacity where the profile finds one, then the folder's path on the last
line.

Standard library only: it runs with the host's /usr/bin/python3.
"""

import json
import os
import pwd
import re
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

# A headless run's options, as the suite's command line starts Locust (locustfiles/suite/run/cli.py).
STOP_TIMEOUT = 30
SETTING = re.compile(r"^[A-Z][A-Z0-9_]*=")


@dataclass(frozen=True)
class Master:
    """The deployed Locust master running on this host, as its supervisord started it."""

    pid: int
    words: list[str]
    environ: dict[str, str]

    @property
    def web(self) -> str:
        """Its web API: --web-host and --web-port."""
        words = self.words
        host = words[words.index("--web-host") + 1] if "--web-host" in words else "127.0.0.1"
        return f"http://{host}:{words[words.index('--web-port') + 1]}"

    @property
    def runs(self) -> Path:
        """The folder of its run folders: its environment's VAR_DIR (the locust role's) + runs/."""
        var_dir = self.environ.get("VAR_DIR")
        if not var_dir:
            raise SystemExit(f"the Locust master (pid {self.pid}) has no VAR_DIR")
        return Path(var_dir) / "runs"

    @property
    def locust(self) -> str:
        """Its locust executable (the deployment's virtualenv)."""
        return next(w for w in self.words[:2] if w.endswith("locust"))

    @property
    def target(self) -> str:
        """Its --host: the LMS the learners buy through (locust_target_url)."""
        if "--host" not in self.words:
            raise SystemExit(f"the Locust master (pid {self.pid}) has no --host")
        return self.words[self.words.index("--host") + 1]

    @property
    def code_dir(self) -> Path:
        """The release it runs (its working directory, the locust role's common_code_dir)."""
        return Path(os.readlink(f"/proc/{self.pid}/cwd"))

    @property
    def user(self) -> pwd.struct_passwd:
        return pwd.getpwuid(os.stat(f"/proc/{self.pid}").st_uid)

    @property
    def umask(self) -> int:
        """Its umask (supervisord's umask= for it, the common role's common_umask)."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
        return 0o027


def deployed_master() -> Master:
    """The Locust master with a web UI running here; SystemExit when there is none. The simulated
    hosts share one process table, so "here" is this process's network namespace: another
    host's master (or molecule's, on the machine) is not this host's."""
    here = os.readlink("/proc/self/ns/net")
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if os.readlink(cmdline.parent / "ns" / "net") != here:
                continue
            words = cmdline.read_bytes().decode(errors="replace").split("\0")
            if (
                "--master" not in words
                or "--web-port" not in words
                or not any(w.endswith("locust") for w in words[:2])
            ):
                continue
            environ = (cmdline.parent / "environ").read_bytes().decode(errors="replace").split("\0")
        except OSError:  # a process that ended while it was read
            continue
        values = dict(e.partition("=")[::2] for e in environ if "=" in e)
        return Master(int(cmdline.parent.name), words, values)
    raise SystemExit("no Locust master with a web UI runs on this host")


# The web API's one user when the master asks for a login (the locust role's --web-login).
WEB_OPERATOR = "operator"
_OPENERS: dict[int, urllib.request.OpenerDirector] = {}


def call(master: Master, path: str, form: dict | None = None) -> dict:
    data = urllib.parse.urlencode(form).encode() if form is not None else None
    opener = _OPENERS.get(master.pid) or _OPENERS.setdefault(master.pid, logged_in(master))
    with opener.open(master.web + path, data=data, timeout=30) as answer:
        return json.load(answer)


def logged_in(master: Master) -> urllib.request.OpenerDirector:
    """An opener of the master's web API that keeps its session: logged in, when the master asks
    for a login, with the password in its WEB_LOGIN_PASSWORD_FILE (read here as root, never shown)."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    if "--web-login" not in master.words:
        return opener
    secret = master.environ.get("WEB_LOGIN_PASSWORD_FILE")
    if not secret:
        raise SystemExit(
            f"the Locust master (pid {master.pid}) asks for a login and has no WEB_LOGIN_PASSWORD_FILE"
        )
    form = {"username": WEB_OPERATOR, "password": Path(secret).read_text().strip()}
    with opener.open(
        master.web + "/suite/login", data=urllib.parse.urlencode(form).encode(), timeout=30
    ) as answer:
        if urllib.parse.urlsplit(answer.url).path.endswith("/login"):  # sent back to the login page
            raise SystemExit(f"the Locust master (pid {master.pid}) refused the password in {secret}")
    return opener


def manual_steps(users: list[int], step_seconds: int) -> int:
    """Each user count for ``step_seconds`` through the deployed master, then its run folder."""
    master = deployed_master()
    runs = master.runs
    before = set(runs.glob("*")) if runs.exists() else set()
    workers = len(call(master, "/stats/requests").get("workers", []))
    print(f"cluster load: {workers} Locust workers, steps of {step_seconds} s: {users} users", flush=True)
    for count in users:
        # No host: the master's own --host (the LMS, locust_target_url).
        answer = call(master, "/swarm", {"user_count": count, "spawn_rate": count})
        if not answer.get("success"):
            print(f"the master refused {count} users: {answer}", file=sys.stderr)
            return 1
        time.sleep(step_seconds)
    call(master, "/stop", {})
    for _ in range(240):  # the audit attempt, the report and its plots
        new = sorted(set(runs.glob("*")) - before)
        if new and (new[-1] / "summary.json").exists():
            break
        time.sleep(1)
    else:
        print("no run folder with a summary.json appeared", file=sys.stderr)
        return 1
    return print_summary(new[-1])


def headless(profile: str, settings: dict[str, str]) -> int:
    """``profile``'s run in one headless Locust process, as the deployed master runs Locust,
    with ``settings`` over its environment; the run's summary, as the manual steps print theirs."""
    master = deployed_master()
    release = master.code_dir
    locustfile = release / "locustfiles" / f"{profile}.py"
    if not locustfile.is_file() or profile.startswith("_"):
        found = sorted(p.stem for p in (release / "locustfiles").glob("[a-z]*.py"))
        raise SystemExit(f"no profile {profile!r} in {release}/locustfiles; there: {', '.join(found)}")
    user = master.user
    run_dir = master.runs / f"{time.strftime('%Y%m%d-%H%M%S')}-{profile}"
    as_user = ["runuser", "-u", user.pw_name, "--"] if os.getuid() != user.pw_uid else []
    # Made by Locust's user with the master's umask, as the master makes its folders: runs/ too,
    # if this run is the first. Locust inherits both.
    os.umask(master.umask)
    subprocess.run([*as_user, "mkdir", "-p", str(run_dir)], check=True)
    env = {**master.environ, **settings, "PROFILE": profile}
    command = [
        master.locust,
        *("-f", str(locustfile), "--headless", "--only-summary", "--host", master.target),
        *("--suite-run-dir", str(run_dir), "--csv", str(run_dir / "locust")),
        # the exit code is the suite's verdict, not "some request failed"
        *("--stop-timeout", str(STOP_TIMEOUT), "--exit-code-on-error", "0", "--loglevel", "WARNING"),
    ]
    command = [*as_user, *command]
    print(f"{profile} on {master.target} from this host, as {user.pw_name}: {run_dir}", flush=True)
    with open(run_dir / "locust.log", "w") as log:
        os.chown(run_dir / "locust.log", user.pw_uid, user.pw_gid)
        locust = subprocess.Popen(command, env=env, cwd=release, stdout=log, stderr=subprocess.STDOUT)
        try:
            code = locust.wait()
        except KeyboardInterrupt:  # SIGINT: Locust ends the test and writes its folder
            locust.send_signal(signal.SIGINT)
            code = locust.wait(120)
    if not (run_dir / "summary.json").exists():
        print(f"no summary.json (Locust's exit code {code}): {(run_dir / 'locust.log').read_text()[-2000:]}")
        return 1
    return print_summary(run_dir) or code


def print_summary(folder: Path) -> int:
    summary = json.loads((folder / "summary.json").read_text())
    for step in summary.get("steps", []):
        cpu = step.get("cpu_percent") or {}
        print(
            f"  {step.get('label')}: {step.get('rpm')} RPM, p95 {step.get('p95')} ms, "
            f"{step.get('failures')} failures of {step.get('requests')}, "
            f"services CPU {cpu.get('services')} %, machine {step.get('machine_cpu_percent')} %"
            + (f", target {step['target_rpm']} RPM, held: {step['held']}" if "held" in step else "")
        )
    balancer = summary.get("balancer") or {}
    print(f"  balancer: requests {balancer.get('requests')}, share {balancer.get('share_percent')} %")
    for step in summary.get("steps", [])[-1:]:
        for host, reading in sorted((step.get("hosts") or {}).items()):
            print(f"  {host}: {json.dumps(reading, sort_keys=True)[:300]}")
    if "capacity_rpm" in summary:
        failed = [failure["text"] for failure in (summary.get("verdict") or {}).get("failures") or []]
        print(f"  capacity: {summary['capacity_rpm']} RPM" + (f" ({'; '.join(failed)})" if failed else ""))
    print(folder)
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["run"]:
        if len(argv) < 2 or not all(SETTING.match(a) for a in argv[2:]):
            print("usage: cluster_load.py run PROFILE [NAME=VALUE...]", file=sys.stderr)
            return 2
        return headless(argv[1], dict(a.split("=", 1) for a in argv[2:]))
    if not all(a.isdigit() for a in argv):
        print("usage: cluster_load.py [USERS...] | run PROFILE [NAME=VALUE...]", file=sys.stderr)
        return 2
    return manual_steps([int(n) for n in argv] or [10, 20, 40, 80], int(os.environ.get("STEP_SECONDS") or 30))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
