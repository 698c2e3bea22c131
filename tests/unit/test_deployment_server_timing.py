"""Server-Timing tells any client how long the database and the LMS took: settings.production
sends it only when SERVER_TIMING is set (tests/unit/test_settings.py). The ecommerce role sets it
from ecommerce_server_timing, false by default, which every inventory of this repository (all of
them load-test deployments) turns on, since the load suite reads the header. The inventories'
values are read through Ansible itself (an ad-hoc debug task; no host is contacted)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ANSIBLE_DIR = ROOT / "ansible"
ANSIBLE = Path(sys.executable).parent / "ansible"


def inventory_value(inventory: str, expression: str) -> set[str]:
    env = {**os.environ, "ANSIBLE_NOCOLOR": "1", "ANSIBLE_LOAD_CALLBACK_PLUGINS": "1"}
    env["ANSIBLE_STDOUT_CALLBACK"] = "json"
    done = subprocess.run(
        [
            str(ANSIBLE),
            "-i",
            inventory,
            "ecommerce",
            "-m",
            "ansible.builtin.debug",
            "-a",
            f"msg={{{{ {expression} }}}}",
        ],
        cwd=ANSIBLE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    hosts = json.loads(done.stdout)["plays"][0]["tasks"][0]["hosts"]
    return {str(result["msg"]) for result in hosts.values()}


@pytest.mark.parametrize(
    "inventory",
    [
        "inventories/local",
        "inventories/m3-medium-pair",
        "inventories/m3-xlarge-pair",
        "molecule/default/inventory",
    ],
)
def test_the_load_test_inventories_turn_server_timing_on(inventory):
    assert inventory_value(inventory, "ecommerce_server_timing | bool | lower") == {"true"}


def test_the_role_passes_server_timing_and_leaves_it_off_by_default():
    defaults = yaml.safe_load((ANSIBLE_DIR / "roles/ecommerce/defaults/main.yml").read_text())
    assert defaults["ecommerce_server_timing"] is False
    environment_ = (ANSIBLE_DIR / "roles/ecommerce/vars/main.yml").read_text()
    assert "'SERVER_TIMING': ecommerce_server_timing | bool | lower," in environment_
