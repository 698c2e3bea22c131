"""`make cluster-test`'s suite: the m3 pair deployed by site.yml on the simulated hosts of
scripts/cluster.sh. It runs after `scripts/cluster.sh up` and `deploy` (scripts/cluster.sh test
does all of it, and `down` after); test_teardown.py runs after `down`. The tests reach the hosts
from this machine's side of the bridge (10.213.1.1) over HTTP, and run commands on a host with
`scripts/cluster.sh exec`, which enters its namespaces."""

import http.cookiejar
import json
import subprocess
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLUSTER_SH = ROOT / "scripts" / "cluster.sh"
# The deployment's prefix on every host (roles/common's default), and the roles' default ports.
PREFIX = "/srv/orderservice"
LMS_PORT = 18000
ECOMMERCE_PORT = 18130
# m3-xlarge-pair's sizing: one Locust worker process per vCPU on each Locust host.
LOCUST_WORKERS_PER_HOST = 4


def cluster(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([str(CLUSTER_SH), *args], capture_output=True, text=True, timeout=timeout)


def hosts() -> dict[str, str]:
    """Every host's name and address, as scripts/cluster.sh makes them."""
    done = cluster("hosts")
    assert done.returncode == 0, done.stderr
    return dict(line.split() for line in done.stdout.splitlines())


def on_host(host: str, *command: str, timeout: float = 60) -> str:
    """The output of ``command`` run on ``host``; fails the test if it fails."""
    done = cluster("exec", host, *command, timeout=timeout)
    assert done.returncode == 0, f"{host}: {' '.join(command)}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def pytest_collection_modifyitems(items):
    """test_faults.py next to last: its rolling deploy ships a new release to the ecommerce
    pair, after which test_redeploy.py's second deploy of this checkout would ship one again.
    test_failover.py last: from there on the database is db-2."""
    order = {"tests/cluster/test_faults.py": 1, "tests/cluster/test_failover.py": 2}
    items.sort(key=lambda item: order.get(item.nodeid.split("::")[0], 0))


def purchase(lms: str, course: str):
    """A learner logged in at the LMS (``/auto_auth``) buys ``course``'s free seat through its
    commerce endpoint, as Locust's learners do: their cookies (an opener) and the answer."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    with opener.open(f"{lms}/auto_auth", timeout=30) as response:
        assert response.status == 201
        login = json.load(response)
    request = urllib.request.Request(
        f"{lms}/api/commerce/v0/baskets/",
        data=json.dumps({"course_id": course}).encode(),
        headers={
            "Content-Type": "application/json",
            "X-CSRFToken": login["csrf_token"],
            "Referer": f"{lms}/",
        },
        method="POST",
    )
    with opener.open(request, timeout=60) as response:
        return opener, response.status, json.load(response)
