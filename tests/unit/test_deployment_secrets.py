"""The values this repository publishes for the secrets (common/environment's local defaults,
ansible/group_vars/all/vault.yml.example's examples) are refused by one rule in the services
(settings/_env.py) and by the same rule in the Ansible roles (roles/common/tasks/secrets.yml),
which is run here through ansible-playbook on this host (it only asserts; nothing is changed)."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from common import environment
from settings._env import PUBLISHED_SECRET_MARKERS, is_published_secret
from tests.support.inventories import inventory_value

ROOT = Path(__file__).resolve().parents[2]
ANSIBLE_DIR = ROOT / "ansible"
ANSIBLE_PLAYBOOK = Path(sys.executable).parent / "ansible-playbook"
EXAMPLE = ANSIBLE_DIR / "group_vars/all/vault.yml.example"
MOLECULE_SECRETS = ANSIBLE_DIR / "molecule/default/inventory/group_vars/all/test-secrets.yml"
SECRET_NAMES = (
    "ECOMMERCE_SECRET_KEY",
    "LMS_SECRET_KEY",
    "JWT_SECRET_KEY",
    "EDX_API_KEY",
    "CYBERSOURCE_SECRET_KEY",
    "MYSQL_OWNER_PASSWORD",
    "ECOMMERCE_DB_PASSWORD",
    "LMS_DB_PASSWORD",
    "MYSQL_MONITOR_PASSWORD",
)
# The database accounts' passwords as the common role names them (roles/common/defaults).
DB_PASSWORDS = {
    "common_db_owner_password",
    "common_ecommerce_db_password",
    "common_lms_db_password",
    "common_db_monitor_password",
}
PLAY = """
- name: The common role's secret checks alone
  hosts: localhost
  gather_facts: false
  connection: local
  tasks:
    - name: Check the secrets
      ansible.builtin.include_role:
        name: common
        tasks_from: secrets.yml
"""


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text())


def test_the_roles_refuse_what_the_services_refuse():
    pattern = load(ANSIBLE_DIR / "roles/common/vars/main.yml")["common_published_secrets"]
    assert sorted(pattern.split("|")) == sorted(PUBLISHED_SECRET_MARKERS)


@pytest.mark.parametrize("name", SECRET_NAMES)
def test_the_local_defaults_are_published_secrets(name):
    assert is_published_secret(environment.default(name, env={}))


def test_the_vault_examples_are_published_secrets():
    example = load(EXAMPLE)
    # Every vault variable the roles and inventories use has an example (so none escapes the check).
    used = {
        name
        for path in ANSIBLE_DIR.rglob("*")
        if path.suffix in (".yml", ".j2") and path.is_file()
        for name in re.findall(r"\bvault_[a-z_]+\b", path.read_text())
    }
    assert used and used <= set(example)
    examples = {name: value for name, value in example.items() if value}
    assert examples and all(is_published_secret(value) for value in examples.values())
    assert is_published_secret("CHANGE-ME-in-capitals-too")


def test_the_molecule_test_secrets_are_not():
    assert not any(is_published_secret(value) for value in load(MOLECULE_SECRETS).values())


def check_secrets(tmp_path, *extra_vars: str) -> subprocess.CompletedProcess:
    (tmp_path / "play.yml").write_text(PLAY)
    env = {**os.environ, "ANSIBLE_NOCOLOR": "1", "ANSIBLE_ROLES_PATH": str(ANSIBLE_DIR / "roles")}
    arguments = [arg for value in extra_vars for arg in ("-e", value)]
    return subprocess.run(
        [str(ANSIBLE_PLAYBOOK), "-i", "localhost,", str(tmp_path / "play.yml"), *arguments],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def refused(result: subprocess.CompletedProcess) -> set[str]:
    return {
        line.split("(item=")[1].split(")")[0]
        for line in result.stdout.splitlines()
        if line.startswith("failed:") and "still has a value this repository publishes" in line
    }


def test_the_roles_accept_the_molecule_test_secrets_in_their_own_inventory(tmp_path):
    result = check_secrets(tmp_path, f"@{MOLECULE_SECRETS}", "common_test_secrets_allowed=molecule-test-only")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_roles_refuse_the_test_secrets_anywhere_else(tmp_path):
    """A copy of a test inventory towards production stops at its first play."""
    secrets = load(MOLECULE_SECRETS)
    for allowed in ("", "cluster-test-only"):
        result = check_secrets(tmp_path, f"@{MOLECULE_SECRETS}", f"common_test_secrets_allowed={allowed}")
        assert result.returncode != 0
        refused_names = {
            line.split("(item=")[1].split(")")[0]
            for line in result.stdout.splitlines()
            if line.startswith("failed:") and "holds a test secret of this repository" in line
        }
        assert refused_names == set(secrets), result.stdout


@pytest.mark.parametrize("inventory", ["molecule/default/inventory", "inventories/cluster"])
def test_each_test_inventory_allows_its_own_marker_alone(inventory):
    allowed = inventory_value(inventory, "common_test_secrets_allowed", group="all")
    marker = "cluster-test-only" if inventory.endswith("cluster") else "molecule-test-only"
    assert allowed == {marker}


@pytest.mark.parametrize(
    "inventory", ["inventories/local", "inventories/m3-medium-pair", "inventories/m3-xlarge-pair"]
)
def test_the_other_inventories_allow_no_test_secret(inventory):
    assert inventory_value(inventory, "common_test_secrets_allowed | default('')", group="all") == {""}


def test_the_roles_refuse_the_vault_example_by_name(tmp_path):
    result = check_secrets(tmp_path, f"@{EXAMPLE}")
    assert result.returncode != 0
    shared = DB_PASSWORDS | {"common_jwt_secret_key", "common_edx_api_key", "common_cybersource_secret_key"}
    examples = {name for name, value in load(EXAMPLE).items() if value}
    assert refused(result) == examples | shared


def test_the_roles_refuse_a_local_default(tmp_path):
    result = check_secrets(
        tmp_path,
        f"@{MOLECULE_SECRETS}",
        "common_test_secrets_allowed=molecule-test-only",
        "vault_edx_api_key=" + environment.default("EDX_API_KEY", env={}),
    )
    assert result.returncode != 0
    assert refused(result) == {"vault_edx_api_key", "common_edx_api_key"}


def test_the_roles_refuse_two_database_accounts_sharing_a_password(tmp_path):
    """A host given one account's password (a Locust host, the monitor's) must not hold another's."""
    owner = load(MOLECULE_SECRETS)["vault_mysql_owner_password"]
    result = check_secrets(
        tmp_path,
        f"@{MOLECULE_SECRETS}",
        "common_test_secrets_allowed=molecule-test-only",
        f"vault_mysql_monitor_password={owner}",
    )
    assert result.returncode != 0
    assert "two database accounts share a password" in result.stdout


def test_no_locust_host_is_given_a_key_that_reaches_staff():
    """The Locust role passes JWT_SECRET_KEY (learner tokens for the paid journey) and never
    STAFF_JWT_SECRET_KEY; the index audit, which acts for staff, runs on the controlling machine."""
    role = ANSIBLE_DIR / "roles/locust"
    texts = [path.read_text() for path in role.rglob("*") if path.is_file()]
    environment_ = load(role / "vars/main.yml")["locust_environment"]
    assert "JWT_SECRET_KEY" in environment_
    assert not [text for text in texts if re.search(r"(?i)staff_jwt|STAFF_JWT_SECRET_KEY", text)]
