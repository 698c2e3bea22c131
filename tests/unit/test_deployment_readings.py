"""The readings agent in every inventory, as Ansible resolves the roles' defaults with the
inventory's values (a probe role whose defaults are the common and locust roles'; no host is
contacted): it runs on every host, bound to an address (not a name), answering the Locust
masters; the master's READINGS_HOSTS names every host at that address, and its
--expect-workers counts every worker host."""

import ipaddress
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ANSIBLE_DIR = ROOT / "ansible"
INVENTORIES = sorted(
    str(path.relative_to(ANSIBLE_DIR)) for path in (ANSIBLE_DIR / "inventories").iterdir() if path.is_dir()
) + ["molecule/default/inventory"]

PROBE = """\
- name: Resolve the readings settings
  hosts: all
  gather_facts: false
  tasks:
    - name: Probe
      ansible.builtin.import_role:
        name: probe
"""
TASKS = """\
- name: Show the settings
  ansible.builtin.debug:
    msg:
      enabled: "{{ common_readings_enabled | bool }}"
      bind: "{{ common_readings_bind_host }}"
      port: "{{ common_readings_port }}"
      allowed: "{{ common_readings_allowed }}"
      hosts: "{{ locust_readings_hosts }}"
      expect: "{{ [locust_expect_workers | int, 1] | max }}"
      masters: "{{ groups['locust_master'] | map('extract', hostvars)
                   | map(attribute='ansible_host', default='127.0.0.1') | list }}"
"""


def resolve(inventory: str, tmp_path: Path) -> dict[str, dict]:
    role = tmp_path / "roles/probe"
    (role / "defaults").mkdir(parents=True)
    (role / "tasks").mkdir()
    defaults = {}
    for name in ("common", "locust"):
        defaults.update(yaml.safe_load((ANSIBLE_DIR / f"roles/{name}/defaults/main.yml").read_text()))
    (role / "defaults/main.yml").write_text(yaml.safe_dump(defaults))
    (role / "tasks/main.yml").write_text(TASKS)
    (tmp_path / "probe.yml").write_text(PROBE)
    env = {
        **os.environ,
        "ANSIBLE_ROLES_PATH": str(tmp_path / "roles"),
        "ANSIBLE_STDOUT_CALLBACK": "json",
        "ANSIBLE_LOAD_CALLBACK_PLUGINS": "1",
        "ANSIBLE_NOCOLOR": "1",
    }
    done = subprocess.run(
        [str(Path(sys.executable).parent / "ansible-playbook"), "-i", inventory, str(tmp_path / "probe.yml")],
        cwd=ANSIBLE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    hosts = json.loads(done.stdout)["plays"][0]["tasks"][0]["hosts"]
    return {name: result["msg"] for name, result in hosts.items()}


@pytest.mark.parametrize("inventory", INVENTORIES)
def test_every_host_runs_the_agent_and_the_master_reads_them_all(inventory, tmp_path):
    found = resolve(inventory, tmp_path)
    names = sorted(found)
    for name, settings in found.items():
        assert settings["enabled"] is True, name  # every inventory here has a Locust master
        ipaddress.ip_address(settings["bind"])  # an address to bind, not a host name
        for allowed in settings["allowed"]:
            ipaddress.ip_network(allowed)  # what the agent's --allow parses
        assert set(settings["masters"]) <= set(settings["allowed"]) and "127.0.0.1" in settings["allowed"]
        assert int(settings["expect"]) >= 1
    # READINGS_HOSTS, as the master gets it, names every host at the address its agent binds.
    setting = next(iter(found.values()))["hosts"]
    entries = dict(entry.split("=", 1) for entry in setting.split(","))
    assert sorted(entries) == names
    for name, url in entries.items():
        assert url == f"http://{found[name]['bind']}:{found[name]['port']}", name
