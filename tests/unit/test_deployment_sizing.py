"""The m3 inventories size the services from the instance's vCPUs, as the 2015 runs did.

The values are read through Ansible itself (an ad-hoc debug task templates the group vars on
the controller; no host is contacted), so what is asserted is what a deploy would use.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from gunicorn.config import WorkerConnections

ROOT = Path(__file__).resolve().parents[2]
ANSIBLE = Path(sys.executable).parent / "ansible"
SIZING = (
    "ecommerce_workers ecommerce_db_pool_size ecommerce_worker_connections lms_stub_workers "
    "lms_stub_worker_connections "
    "lms_stub_db_pool_size locust_workers_per_host common_db_max_connections"
).split()


def derived(inventory: str, host: str) -> dict:
    expression = "{{ {" + ", ".join(f"'{name}': {name} | int" for name in SIZING) + "} | to_json }}"
    env = {**os.environ, "ANSIBLE_NOCOLOR": "1", "ANSIBLE_LOAD_CALLBACK_PLUGINS": "1"}
    env["ANSIBLE_STDOUT_CALLBACK"] = "json"
    done = subprocess.run(
        [
            str(ANSIBLE),
            "-i",
            f"inventories/{inventory}",
            host,
            "-m",
            "ansible.builtin.debug",
            "-a",
            f"msg={expression}",
        ],
        cwd=ROOT / "ansible",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout)["plays"][0]["tasks"][0]["hosts"][host]
    return json.loads(result["msg"])


@pytest.mark.parametrize(
    "inventory, vcpus, workers",
    [("m3-medium-pair", 1, 3), ("m3-xlarge-pair", 4, 9)],
)
def test_m3_inventories_give_each_service_two_workers_per_vcpu_plus_one(inventory, vcpus, workers):
    sizes = derived(inventory, "ecommerce-1")
    assert sizes["ecommerce_workers"] == 2 * vcpus + 1 == workers
    assert sizes["lms_stub_workers"] == workers
    assert sizes["locust_workers_per_host"] == vcpus


@pytest.mark.parametrize("inventory", ["m3-medium-pair", "m3-xlarge-pair"])
def test_m3_pools_fit_within_half_of_max_connections(inventory):
    sizes = derived(inventory, "ecommerce-1")
    web_hosts = 2  # the pair
    budget = sizes["common_db_max_connections"] // 2
    assert sizes["ecommerce_db_pool_size"] == 10
    assert web_hosts * sizes["ecommerce_workers"] * sizes["ecommerce_db_pool_size"] <= budget
    assert sizes["lms_stub_workers"] * sizes["lms_stub_db_pool_size"] <= budget
    # Connections per worker: gunicorn's default, far above what the admission limit lets work
    # (idle kept-alive clients hold one each; a full worker accepts nothing, callbacks included).
    assert sizes["ecommerce_worker_connections"] == WorkerConnections.default
    assert sizes["lms_stub_worker_connections"] == WorkerConnections.default
