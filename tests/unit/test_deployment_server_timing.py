"""Server-Timing tells any client how long the database and the LMS took: settings.production
sends it only when SERVER_TIMING is set (tests/unit/test_settings.py). The ecommerce role sets it
from ecommerce_server_timing, false by default, which every inventory of this repository (all of
them load-test deployments) turns on, since the load suite reads the header. The inventories'
values are read through Ansible itself (tests/support/inventories.py)."""

from pathlib import Path

import pytest
import yaml

from tests.support.inventories import LOAD_TEST_INVENTORIES, inventory_value

ANSIBLE_DIR = Path(__file__).resolve().parents[2] / "ansible"


@pytest.mark.parametrize("inventory", LOAD_TEST_INVENTORIES)
def test_the_load_test_inventories_turn_server_timing_on(inventory):
    assert inventory_value(inventory, "ecommerce_server_timing | bool | lower") == {"true"}


def test_the_role_passes_server_timing_and_leaves_it_off_by_default():
    defaults = yaml.safe_load((ANSIBLE_DIR / "roles/ecommerce/defaults/main.yml").read_text())
    assert defaults["ecommerce_server_timing"] is False
    environment_ = (ANSIBLE_DIR / "roles/ecommerce/vars/main.yml").read_text()
    assert "'SERVER_TIMING': ecommerce_server_timing | bool | lower," in environment_
