"""After site.yml: every host runs its tier's programs, under its own name and in its own /srv,
every service answers on its host's address, and a purchase placed at lms-1 as Locust's learners
place theirs completes end to end (lms-1 -> ecommerce -> lms-1's enrollment API)."""

import http.cookiejar
import json
import urllib.request

import pytest

from tests.cluster.conftest import (
    ECOMMERCE_PORT,
    LMS_PORT,
    LOCUST_WEB_PORT,
    LOCUST_WORKERS_PER_HOST,
    PREFIX,
    ROOT,
    hosts,
    on_host,
)

ADDRESSES = hosts()
# The programs each host's supervisord runs (lb-1: none until the haproxy role lands).
LOCUST_WORKERS = {f"locust-worker:locust-worker-{n}" for n in range(LOCUST_WORKERS_PER_HOST)}
PROGRAMS = {
    "db-1": {"mariadb"},
    "lms-1": {"lms_stub"},
    "ecommerce-1": {"ecommerce", "ecommerce-rollup"},
    "ecommerce-2": {"ecommerce", "ecommerce-rollup"},
    "locust-1": {"locust-master"} | LOCUST_WORKERS,
    "locust-2": LOCUST_WORKERS,
}
# The common role's readings agent runs on every host it deploys (a Locust master reads them
# all), in a branch that has it.
if (ROOT / "ansible" / "roles" / "common" / "tasks" / "readings.yml").exists():
    PROGRAMS = {host: programs | {"hostreadings"} for host, programs in PROGRAMS.items()}
COURSE = "course-v1:LoadTestX+LT0001+2015"
# lms_stub reaches ecommerce at the inventory's common_ecommerce_url: DIRECT TO ECOMMERCE-1 until
# the haproxy role lands (ansible/inventories/cluster/group_vars/all/main.yml); then lb-1.
ECOMMERCE_PATH = "direct to ecommerce-1"


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
    # The host's /srv is its own folder: MariaDB's datadir exists on db-1 alone.
    listing = on_host(host, "sh", "-c", f"ls {PREFIX} 2>/dev/null || true").split()
    assert ("mariadb" in listing) == (host == "db-1"), listing


def test_lms_stub_answers_health_on_lms_1():
    assert _get(f"http://{ADDRESSES['lms-1']}:{LMS_PORT}/health/")[0] == 200


@pytest.mark.parametrize("host", ["ecommerce-1", "ecommerce-2"])
def test_ecommerce_answers_health_on_each_ecommerce_host(host):
    # As a load balancer asks: an allowed host name, and the scheme the balancer saw.
    headers = {"Host": ADDRESSES["ecommerce-1"], "X-Forwarded-Proto": "https"}
    assert _get(f"http://{ADDRESSES[host]}:{ECOMMERCE_PORT}/health/", headers)[0] == 200


def test_mariadb_answers_on_db_1():
    assert "is alive" in on_host("db-1", "mysqladmin", f"--socket={PREFIX}/mariadb/mysqld.sock", "ping")


def test_the_locust_master_on_locust_1_has_the_workers_of_both_locust_hosts():
    script = (
        "import json, urllib.request;"
        f"print(json.dumps(json.load(urllib.request.urlopen('http://127.0.0.1:{LOCUST_WEB_PORT}/stats/requests'))"
        "['workers']))"
    )
    workers = json.loads(on_host("locust-1", "/usr/bin/python3", "-c", script))
    assert len(workers) == 2 * LOCUST_WORKERS_PER_HOST, workers
    # Each worker's id starts with its host name (Locust: <hostname>_<uuid>).
    assert {worker["id"].rsplit("_", 1)[0] for worker in workers} == {"locust-1", "locust-2"}


def test_a_purchase_at_lms_1_completes_end_to_end():
    lms = f"http://{ADDRESSES['lms-1']}:{LMS_PORT}"
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(f"{lms}/auto_auth", timeout=30) as response:
        assert response.status == 201
        login = json.load(response)

    purchase = urllib.request.Request(
        f"{lms}/api/commerce/v0/baskets/",
        data=json.dumps({"course_id": COURSE}).encode(),
        headers={
            "Content-Type": "application/json",
            "X-CSRFToken": login["csrf_token"],
            "Referer": f"{lms}/",
        },
        method="POST",
    )
    with opener.open(purchase, timeout=60) as response:
        assert response.status == 201, ECOMMERCE_PATH
        order = json.load(response)
    assert order["enrolled"], order
    assert order["order"]["status"] == "Complete", order

    with opener.open(f"{lms}/api/commerce/v1/orders/{order['order']['number']}/", timeout=30) as response:
        assert json.load(response)["status"] == "Complete"
