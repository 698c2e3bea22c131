"""After site.yml: every host runs its tier's programs, under its own name and in its own /srv,
every service answers on its host's address, and a purchase placed at lms-1 as Locust's learners
place theirs completes end to end (lms-1 -> ecommerce -> lms-1's enrollment API)."""

import json
import urllib.request
from pathlib import Path

import pytest

from common.environment import get
from tests.cluster.conftest import (
    ECOMMERCE_PORT,
    LMS_PORT,
    LOCUST_WORKERS_PER_HOST,
    PREFIX,
    ROOT,
    cluster,
    hosts,
    on_host,
    purchase,
)

ADDRESSES = hosts()
CLUSTER_DIR = Path(get("CLUSTER_DIR"))
# The programs each host's supervisord runs.
LOCUST_WORKERS = {f"locust-worker:locust-worker-{n}" for n in range(LOCUST_WORKERS_PER_HOST)}
PROGRAMS = {
    "db-1": {"mariadb"},
    "db-2": {"mariadb"},
    "lms-1": {"lms_stub"},
    "ecommerce-1": {"ecommerce", "ecommerce-rollup", "ecommerce-retention"},
    "ecommerce-2": {"ecommerce", "ecommerce-rollup", "ecommerce-retention"},
    "locust-1": {"locust-master"} | LOCUST_WORKERS,
    "locust-2": LOCUST_WORKERS,
    "lb-1": {"haproxy"},
}
# The common role's readings agent runs on every host it deploys (a Locust master reads them
# all), in a branch that has it.
if (ROOT / "ansible" / "roles" / "common" / "tasks" / "readings.yml").exists():
    PROGRAMS = {host: programs | {"hostreadings"} for host, programs in PROGRAMS.items()}
COURSE = "course-v1:LoadTestX+LT0001+2015"
# lms_stub reaches ecommerce at the inventory's common_ecommerce_url: https://orders.example.com,
# lb-1 (every host's /etc/hosts), which ends TLS and forwards to the pair.
ECOMMERCE_PATH = "through lb-1 (https://orders.example.com)"
BALANCER = "orders.example.com"
STATS_PORT = 8404
STATS_PASSWORD = "cluster-test-only-haproxy-stats-password"  # test-secrets.yml


def _get(url: str, headers: dict | None = None, timeout: float = 10):
    request = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return response.status, response.read()


@pytest.mark.parametrize("host", sorted(PROGRAMS))
def test_each_host_runs_exactly_its_tiers_programs(host):
    status = on_host(host, "supervisorctl", "-c", f"{PREFIX}/etc/supervisord.conf", "status")
    running = {line.split()[0] for line in status.splitlines() if " RUNNING " in line}
    assert running == PROGRAMS[host], status


@pytest.mark.parametrize("host", sorted(ADDRESSES))
def test_each_host_has_its_own_name_and_its_own_srv(host):
    assert on_host(host, "hostname").strip() == host
    # The host's /srv is its own folder: MariaDB's datadir exists on the database hosts alone.
    listing = on_host(host, "sh", "-c", f"ls {PREFIX} 2>/dev/null || true").split()
    assert ("mariadb" in listing) == (host in ("db-1", "db-2")), listing


def test_lms_stub_answers_health_on_lms_1():
    assert _get(f"http://{ADDRESSES['lms-1']}:{LMS_PORT}/health/")[0] == 200


@pytest.mark.parametrize("host", ["ecommerce-1", "ecommerce-2"])
def test_ecommerce_answers_health_on_each_ecommerce_host_to_the_balancer(host):
    # As the load balancer asks, from its address: an allowed host name, the scheme it saw.
    script = (
        "import urllib.request;"
        f"r = urllib.request.Request('http://{ADDRESSES[host]}:{ECOMMERCE_PORT}/health/',"
        f" headers={{'Host': '{BALANCER}', 'X-Forwarded-Proto': 'https'}});"
        "print(urllib.request.urlopen(r, timeout=10).status)"
    )
    assert on_host("lb-1", "/usr/bin/python3", "-c", script).strip() == "200"


def test_mariadb_answers_on_db_1():
    assert "is alive" in on_host("db-1", "mysqladmin", f"--socket={PREFIX}/mariadb/mysqld.sock", "ping")


def test_the_locust_master_on_locust_1_has_the_workers_of_both_locust_hosts():
    # Through the master's web API as scripts/cluster.sh load drives it: logged in (the locust
    # role's --web-login), the master found on locust-1 by its command line.
    script = (
        f"import json, sys; sys.path.insert(0, {str(ROOT / 'scripts')!r}); import cluster_load;"
        "print(json.dumps(cluster_load.call(cluster_load.deployed_master(), '/stats/requests')['workers']))"
    )
    workers = json.loads(on_host("locust-1", "/usr/bin/python3", "-c", script))
    assert len(workers) == 2 * LOCUST_WORKERS_PER_HOST, workers
    # Each worker's id starts with its host name (Locust: <hostname>_<uuid>).
    assert {worker["id"].rsplit("_", 1)[0] for worker in workers} == {"locust-1", "locust-2"}


def test_a_profile_runs_headless_from_locust_1_as_the_deployed_master_runs_locust():
    """scripts/cluster.sh run: an open-model profile, which the deployed master's web UI does not
    run, in one Locust process on locust-1 with the master's user, release and environment; its
    run folder beside the master's, and its purchases through lms-1."""
    done = cluster("run", "rpm", "RPM=120", "DURATION=10", "WARMUP_SECONDS=0", "PAY_WEIGHT=0", timeout=300)
    folder = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    output = done.stdout + done.stderr
    assert folder.startswith(f"{PREFIX}/var/locust/runs/") and folder.endswith("-rpm"), output
    local = CLUSTER_DIR / "locust-1" / "srv" / folder.removeprefix("/srv/")
    summary = json.loads((local / "summary.json").read_text())
    assert summary["profile"] == "rpm"
    assert sum(step["purchases"] for step in summary["steps"]) > 0, summary["steps"]
    assert summary["overall"]["failures"] == 0, summary["overall"]
    # Its folder and runs/ itself (made by this run if it was the first) are Locust's, as the
    # master's and the fault tests' loads need them to be.
    owners = on_host("locust-1", "stat", "-c", "%U %a", folder, f"{PREFIX}/var/locust/runs").split("\n")
    assert [line.split()[0] for line in owners if line] == ["orderservice-locust"] * 2, owners
    refused = cluster("run", "no-such-profile")
    assert refused.returncode != 0 and "no profile 'no-such-profile'" in refused.stdout + refused.stderr


def test_a_purchase_at_lms_1_completes_end_to_end():
    lms = f"http://{ADDRESSES['lms-1']}:{LMS_PORT}"
    opener, status, order = purchase(lms, COURSE)
    assert status == 201, ECOMMERCE_PATH
    assert order["enrolled"], order
    assert order["order"]["status"] == "Complete", order

    with opener.open(f"{lms}/api/commerce/v1/orders/{order['order']['number']}/", timeout=30) as response:
        assert json.load(response)["status"] == "Complete"


def balancer_requests() -> dict[str, int]:
    """Requests the balancer sent to each ecommerce host (its stats CSV, read from locust-1 as
    the load suite's master reads it)."""
    script = (
        "import base64, urllib.request;"
        f"r = urllib.request.Request('http://{ADDRESSES['lb-1']}:{STATS_PORT}/stats;csv');"
        f"r.add_header('Authorization', 'Basic ' + base64.b64encode(b'stats:{STATS_PASSWORD}').decode());"
        "print(urllib.request.urlopen(r, timeout=10).read().decode())"
    )
    rows = [line.split(",") for line in on_host("locust-1", "/usr/bin/python3", "-c", script).splitlines()]
    # pxname, svname, ..., stot (the 8th column): the backend's rows for its servers
    return {row[1]: int(row[7]) for row in rows if row[0] == "ecommerce" and row[1].startswith("ecommerce-")}


def test_the_balancer_on_lb_1_has_both_ecommerce_hosts_up_and_ends_tls_for_its_name():
    script = (
        "import ssl, urllib.request;"
        f"c = ssl.create_default_context(cafile='{PREFIX}/etc/http-ca.pem');"
        f"print(urllib.request.urlopen('https://{BALANCER}/health/', context=c, timeout=10).status)"
    )
    assert on_host("lms-1", "/usr/bin/python3", "-c", script).strip() == "200"
    assert set(balancer_requests()) == {"ecommerce-1", "ecommerce-2"}


def test_purchases_at_lms_1_reach_both_ecommerce_hosts_through_the_balancer():
    before = balancer_requests()
    for _ in range(6):
        test_a_purchase_at_lms_1_completes_end_to_end()
    after = balancer_requests()
    sent = {host: after[host] - before[host] for host in after}
    # Each purchase is an order (and its read-back): least connections spreads them over both.
    assert sum(sent.values()) >= 12 and all(count > 0 for count in sent.values()), sent
