"""The deployment's New Relic agent runs with the product's settings (settings/newrelic.ini, what
`make up` gives the agent too) plus its own environment's lines: the role's template rendered by
Ansible itself on this host."""

import configparser
from pathlib import Path

import pytest

from tests.support.inventories import ANSIBLE_DIR, debug_messages

ROOT = Path(__file__).resolve().parents[2]


def rendered(developer_mode: bool) -> configparser.ConfigParser:
    """The role's template as Ansible renders it on the controller (no host is contacted)."""
    message = debug_messages(
        "localhost,",
        "localhost",
        "{{ lookup('ansible.builtin.template', 'roles/common/templates/newrelic.ini.j2') }}",
        "-c",
        "local",
        "-e",
        f"role_path={ANSIBLE_DIR / 'roles' / 'common'}",
        "-e",
        f"common_newrelic_developer_mode={str(developer_mode).lower()} common_newrelic_log_level=info",
    )["localhost"]
    found = configparser.ConfigParser()
    found.read_string(message)
    return found


def product() -> dict[str, str]:
    found = configparser.ConfigParser()
    found.read(ROOT / "settings" / "newrelic.ini")
    return dict(found["newrelic"])


@pytest.mark.parametrize("developer_mode", [True, False])
def test_the_deployed_agent_has_the_products_settings_and_its_own_mode(developer_mode):
    deployed = dict(rendered(developer_mode)["newrelic"])
    assert {name: deployed.get(name) for name in product()} == product()
    assert deployed["developer_mode"] == str(developer_mode).lower()
    # Offline, cloud detection asks no metadata address; a real deployment's agent detects.
    assert ("utilization.detect_aws" in deployed) is developer_mode


def test_the_products_agent_settings_hold_no_secret_and_nothing_of_one_environment():
    settings = product()
    assert "middleware" in " ".join(settings) and settings["code_level_metrics.enabled"] == "false"
    assert not {"license_key", "app_name", "developer_mode", "log_file", "log_level"} & set(settings)
