"""A load run through the cluster, driven on locust-1 (scripts/cluster.sh load USERS...): the
deployed Locust master (its web API, found from its command line; the suite's hooks, READINGS_HOSTS and
BALANCER_STATS_URL as the locust role sets them) with the workers of both Locust hosts, set to
each user count in turn for STEP_SECONDS (each change is a step of the suite's manual profile),
then stopped: the master writes its run folder (summary.json, report.html) under its VAR_DIR's
runs/ (<prefix>/var/locust/runs/). Prints one line per step, the balancer's requests per server
and each host's CPU, then the folder's path on the last line. Any host with a deployed master
will do: molecule's (`make deploy-test`'s converge) is driven the same way from this host.

Standard library only: it runs with the host's /usr/bin/python3.
"""

import json
import os
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path


def deployed_master() -> tuple[str, Path]:
    """The web API of the Locust master running here (its --web-host and --web-port), and the
    folder of its run folders (its environment's VAR_DIR, the locust role's, + runs/)."""
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
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
        host = words[words.index("--web-host") + 1] if "--web-host" in words else "127.0.0.1"
        var_dir = dict(e.partition("=")[::2] for e in environ if "=" in e).get("VAR_DIR")
        if not var_dir:
            raise SystemExit(f"the Locust master (pid {cmdline.parent.name}) has no VAR_DIR")
        return f"http://{host}:{words[words.index('--web-port') + 1]}", Path(var_dir) / "runs"
    raise SystemExit("no Locust master with a web UI runs on this host")


MASTER, RUNS = deployed_master()


def call(path: str, form: dict | None = None) -> dict:
    data = urllib.parse.urlencode(form).encode() if form is not None else None
    with urllib.request.urlopen(MASTER + path, data=data, timeout=30) as answer:  # noqa: S310
        return json.load(answer)


def main(users: list[int], step_seconds: int) -> int:
    before = set(RUNS.glob("*")) if RUNS.exists() else set()
    workers = len(call("/stats/requests").get("workers", []))
    print(f"cluster load: {workers} Locust workers, steps of {step_seconds} s: {users} users", flush=True)
    for count in users:
        # No host: the master's own --host (the LMS, locust_target_url).
        answer = call("/swarm", {"user_count": count, "spawn_rate": count})
        if not answer.get("success"):
            print(f"the master refused {count} users: {answer}", file=sys.stderr)
            return 1
        time.sleep(step_seconds)
    call("/stop", {})
    for _ in range(240):  # the audit attempt, the report and its plots
        new = sorted(set(RUNS.glob("*")) - before)
        if new and (new[-1] / "summary.json").exists():
            break
        time.sleep(1)
    else:
        print("no run folder with a summary.json appeared", file=sys.stderr)
        return 1
    folder = new[-1]
    summary = json.loads((folder / "summary.json").read_text())
    for step in summary.get("steps", []):
        cpu = step.get("cpu_percent") or {}
        print(
            f"  {step.get('label')}: {step.get('rpm')} RPM, p95 {step.get('p95')} ms, "
            f"{step.get('failures')} failures of {step.get('requests')}, "
            f"services CPU {cpu.get('services')} %, machine {step.get('machine_cpu_percent')} %"
        )
    balancer = summary.get("balancer") or {}
    print(f"  balancer: requests {balancer.get('requests')}, share {balancer.get('share_percent')} %")
    for step in summary.get("steps", [])[-1:]:
        for host, reading in sorted((step.get("hosts") or {}).items()):
            print(f"  {host}: {json.dumps(reading, sort_keys=True)[:300]}")
    print(folder)
    return 0


if __name__ == "__main__":
    counts = [int(n) for n in sys.argv[1:]] or [10, 20, 40, 80]
    sys.exit(main(counts, int(os.environ.get("STEP_SECONDS") or 30)))
