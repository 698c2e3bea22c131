"""The load suite's paid purchases are paid on lms_stub's payment processor stand-in, which a
deployed stand-in routes only when the inventory turns it on (lms_stub_payment_processor, false
by default, like the other load-test machinery). Every inventory of this repository is a
load-test deployment whose Locust learners pay, so each turns it on. What the deployed programs
then hold is checked by molecule's verify (make deploy-test)."""

from pathlib import Path

import pytest
import yaml

from tests.support.inventories import LOAD_TEST_INVENTORIES, inventory_value

ANSIBLE_DIR = Path(__file__).resolve().parents[2] / "ansible"


@pytest.mark.parametrize("inventory", LOAD_TEST_INVENTORIES)
def test_the_load_test_inventories_turn_the_processor_stand_in_on(inventory):
    switch = inventory_value(inventory, "lms_stub_payment_processor | bool | lower", group="lms_stub")
    assert switch == {"true"}


def test_the_role_leaves_the_stand_in_off_by_default_and_passes_the_switch():
    defaults = yaml.safe_load((ANSIBLE_DIR / "roles/lms_stub/defaults/main.yml").read_text())
    assert defaults["lms_stub_payment_processor"] is False
    environment_ = (ANSIBLE_DIR / "roles/lms_stub/vars/main.yml").read_text()
    assert "'LMS_PAYMENT_PROCESSOR': lms_stub_payment_processor | bool | lower," in environment_


# --- ecommerce's side (issue 28): it takes the stand-in's payments only when the inventory says so


@pytest.mark.parametrize("inventory", LOAD_TEST_INVENTORIES)
def test_the_load_test_inventories_opt_ecommerce_in_to_the_stand_in(inventory):
    assert inventory_value(inventory, "ecommerce_payment_stand_in | bool | lower") == {"true"}


def test_ecommerce_is_off_by_default_and_the_stand_in_holds_its_own_key_not_the_shops():
    defaults = yaml.safe_load((ANSIBLE_DIR / "roles/ecommerce/defaults/main.yml").read_text())
    assert defaults["ecommerce_payment_stand_in"] is False
    ecommerce = yaml.safe_load((ANSIBLE_DIR / "roles/ecommerce/vars/main.yml").read_text())
    assert (
        "'ECOMMERCE_PAYMENT_STAND_IN': ecommerce_payment_stand_in | bool | lower,"
        in ecommerce["ecommerce_environment"]
    )
    assert set(ecommerce["ecommerce_stand_in_environment"]) == {
        "LMS_PROCESSOR_SECRET_KEY",
        "LMS_PROCESSOR_ACCESS_KEY",
        "LMS_PROCESSOR_PROFILE_ID",
    }
    lms = yaml.safe_load((ANSIBLE_DIR / "roles/lms_stub/vars/main.yml").read_text())
    stand_in = lms["lms_stub_payment_processor_environment"]
    assert stand_in["LMS_PROCESSOR_SECRET_KEY"] == "{{ common_processor_stand_in_secret_key }}"
    assert not [name for name in stand_in if name.startswith("CYBERSOURCE_")]
