"""The m3 inventories size the services from the instance's vCPUs: one gevent worker per vCPU.

The values are read through Ansible itself (an ad-hoc debug task templates the group vars on
the controller; no host is contacted), so what is asserted is what a deploy would use.
"""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from gunicorn.config import WorkerConnections

from tests.support.inventories import debug_messages

ROOT = Path(__file__).resolve().parents[2]
ANSIBLE = Path(sys.executable).parent / "ansible"
SIZING = (
    "ecommerce_workers ecommerce_db_pool_size ecommerce_worker_connections lms_stub_workers "
    "lms_stub_worker_connections "
    "lms_stub_db_pool_size locust_workers_per_host common_db_max_connections"
).split()


def derived(inventory: str, host: str, *extra: str) -> dict:
    expression = "{{ {" + ", ".join(f"'{name}': {name} | int" for name in SIZING) + "} | to_json }}"
    return json.loads(debug_messages(f"inventories/{inventory}", host, expression, *extra)[host])


@pytest.mark.parametrize(
    "inventory, vcpus, workers",
    [("m3-medium-pair", 1, 1), ("m3-xlarge-pair", 4, 4)],
)
def test_m3_inventories_give_each_service_one_gevent_worker_per_vcpu(inventory, vcpus, workers):
    sizes = derived(inventory, "ecommerce-1")
    assert sizes["ecommerce_workers"] == vcpus == workers
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


def sizing_check():
    """ansible/filter_plugins/sizing.py, loaded as Ansible loads it (by its path)."""
    spec = importlib.util.spec_from_file_location("sizing", ROOT / "ansible" / "filter_plugins" / "sizing.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.sizing_warnings


def host(name, groups, vcpus=2, kernel="k1", **sizes):
    return {"name": name, "groups": groups, "vcpus": vcpus, "kernel": kernel, **sizes}


ALL_TIERS = ["database", "lms_stub", "ecommerce", "load_balancer", "locust_master", "locust_workers"]
XLARGE = {"ecommerce_workers": "4", "lms_stub_workers": "4", "locust_workers_per_host": "4"}


def test_a_host_sized_by_the_roles_defaults_or_for_its_own_vcpus_is_not_warned_about():
    warnings = sizing_check()
    assert warnings([host("localhost", ALL_TIERS, ecommerce_workers="", lms_stub_workers="")]) == []
    pair = [host(f"ecommerce-{n}", ["ecommerce"], vcpus=4, kernel=f"k{n}", **XLARGE) for n in (1, 2)]
    assert warnings(pair) == []  # m3.xlarge values on 4-vCPU hosts, each its own kernel


def test_m3_xlarge_values_on_a_smaller_host_are_warned_about():
    (said,) = sizing_check()([host("ecommerce-1", ["ecommerce"], vcpus=2, **XLARGE)])
    assert said.startswith(
        "ecommerce-1 has 2 vCPUs: 4 busy processes where one host of 2 vCPUs with these roles would run 2 "
        "(ecommerce workers 4 for 2)."
    )


def test_the_clusters_hosts_on_one_machine_are_counted_together():
    groups = {
        "db-1": ["database"],
        "db-2": ["database_replica"],
        "lms-1": ["lms_stub"],
        "ecommerce-1": ["ecommerce"],
        "ecommerce-2": ["ecommerce"],
        "lb-1": ["load_balancer"],
        "locust-1": ["locust_master", "locust_workers"],
        "locust-2": ["locust_workers"],
    }
    (said,) = sizing_check()([host(name, g, **XLARGE) for name, g in groups.items()])
    assert said.startswith(
        "db-1, db-2, ecommerce-1, ecommerce-2, lb-1, lms-1, locust-1, locust-2 share one kernel of 2 vCPUs: "
        "24 busy processes where one host of 2 vCPUs with these roles would run 10 (ecommerce workers 8 "
        "for 2, lms_stub workers 4 for 2, Locust workers 8 for 2)."
    )


@pytest.mark.parametrize(("extra", "warned"), [([], False), (["-e", "ecommerce_workers=99"], True)])
def test_a_deployment_begins_with_the_sizing_check(extra, warned):
    """sizing.yml run by Ansible on this host (facts gathered, the local inventory): quiet with
    the roles' defaults, a warning when ecommerce is sized past this host's cores."""
    done = subprocess.run(
        [
            str(ANSIBLE.parent / "ansible-playbook"),
            "-i",
            "inventories/local",
            "sizing.yml",
            "-c",
            "local",
            *extra,
        ],
        cwd=ROOT / "ansible",
        env={**os.environ, "ANSIBLE_NOCOLOR": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert ("WARNING: localhost has" in done.stdout) is warned
    assert "ecommerce workers 99 for" in done.stdout if warned else True
    site = (ROOT / "ansible" / "site.yml").read_text()
    assert site.index("sizing.yml") < site.index("database.yml")


def test_the_cluster_sized_for_its_shared_cores_runs_what_one_host_of_them_would():
    facts = json.dumps({"ansible_facts": {"processor_vcpus": 2}})
    shared = ("-e", "@inventories/cluster/shared-cores.yml", "-e", facts)
    sizes = {name: derived("cluster", name, *shared) for name in ("ecommerce-1", "lms-1", "locust-2")}
    assert sizes["ecommerce-1"]["ecommerce_workers"] == 1  # x 2 hosts: the rule's 2
    assert sizes["lms-1"]["lms_stub_workers"] == 2
    assert sizes["locust-2"]["locust_workers_per_host"] == 1  # x 2 hosts: the 2 cores
    counts = {key: str(value) for key, value in sizes["ecommerce-1"].items()}
    groups = {"lms-1": ["lms_stub"], "ecommerce-1": ["ecommerce"], "ecommerce-2": ["ecommerce"]}
    groups |= {"locust-1": ["locust_master", "locust_workers"], "locust-2": ["locust_workers"]}
    assert sizing_check()([host(name, g, **counts) for name, g in groups.items()]) == []
    # Without it, the cluster is sized for m3.xlarge: the check warns.
    unshared = {key: str(value) for key, value in derived("cluster", "ecommerce-1").items()}
    assert sizing_check()([host(name, g, **unshared) for name, g in groups.items()])


def test_sync_workers_are_counted_by_their_own_rule():
    """A sync worker class keeps 2 x vCPUs + 1 workers: the check counts them by that rule."""
    sync = {"ecommerce_workers": "5", "ecommerce_worker_class": "sync"}
    assert sizing_check()([host("ecommerce-1", ["ecommerce"], vcpus=2, **sync)]) == []
    (said,) = sizing_check()([host("ecommerce-1", ["ecommerce"], vcpus=2, ecommerce_workers="5")])
    assert "(ecommerce workers 5 for 2)" in said
