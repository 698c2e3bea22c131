"""The roles' templates as a deployment writes them for one host of an inventory: rendered
through Ansible with the inventory's values and the roles' defaults and vars under them (none of
the roles' tasks run; no host is contacted), into a folder of the test's."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ANSIBLE_DIR = ROOT / "ansible"
ROLES = ANSIBLE_DIR / "roles"
ANSIBLE_PLAYBOOK = Path(sys.executable).parent / "ansible-playbook"
# Throwaway values for the vault's secrets: a rendered file is searched for them.
SECRETS = {
    "vault_mysql_owner_password": "render-test-only-owner-password",
    "vault_ecommerce_db_password": "render-test-only-ecommerce-db-password",
    "vault_lms_db_password": "render-test-only-lms-db-password",
    "vault_mysql_monitor_password": "render-test-only-monitor-password",
    "vault_mysql_replication_password": "render-test-only-replication-password",
    "vault_jwt_secret_key": "render-test-only-jwt-secret-key",
    "vault_edx_api_key": "render-test-only-enrollment-api-key",
    "vault_cybersource_secret_key": "render-test-only-cybersource-secret-key",
    "vault_ecommerce_secret_key": "render-test-only-ecommerce-django-secret-key",
    "vault_ecommerce_staff_password": "render-test-only-staff-password",
    "vault_haproxy_stats_password": "render-test-only-stats-password",
    "vault_lms_secret_key": "render-test-only-lms-django-secret-key",
    "vault_lms_fault_api_key": "render-test-only-fault-api-key",
}
PLAY = """
- name: Render the roles' templates
  hosts: all
  gather_facts: false
  connection: local
  vars:
    ansible_python_interpreter: {python}
    common_release: render-release
  tasks:
{imports}
    - name: Render
      ansible.builtin.template:
        src: "{{{{ item.0 }}}}"
        dest: "{out}/{{{{ inventory_hostname }}}}/{{{{ item.1 }}}}"
        mode: "0600"
      loop: {templates}
"""
IMPORT = """    - name: The {role} role's defaults and vars, none of its tasks
      ansible.builtin.import_role:
        name: {role}
      when: false
"""


def render(
    tmp_path: Path, inventory: str, host: str, roles: list[str], templates: list[str]
) -> dict[str, str]:
    """``templates`` (``<role>/<file>.j2``) as written for ``host`` of ``inventory``, by name
    (the file name without .j2)."""
    sources = {
        _name(path): ROLES / path.split("/")[0] / "templates" / path.split("/")[1] for path in templates
    }
    return _render(tmp_path, inventory, host, roles, sources)


def value(tmp_path: Path, inventory: str, host: str, roles: list[str], expression: str):
    """What ``expression`` is for ``host`` of ``inventory`` with the roles' variables."""
    (tmp_path / "value.j2").write_text("{{ (" + expression + ") | to_json }}")
    return json.loads(_render(tmp_path, inventory, host, roles, {"value": tmp_path / "value.j2"})["value"])


def _render(
    tmp_path: Path, inventory: str, host: str, roles: list[str], sources: dict[str, Path]
) -> dict[str, str]:
    out = tmp_path / "rendered"
    (out / host).mkdir(parents=True, exist_ok=True)
    play = PLAY.format(
        python=sys.executable,
        imports="".join(IMPORT.format(role=role) for role in roles),
        out=out,
        templates=json.dumps([[str(source), name] for name, source in sources.items()]),
    )
    (tmp_path / "render.yml").write_text(play)
    env = {**os.environ, "ANSIBLE_NOCOLOR": "1", "ANSIBLE_ROLES_PATH": str(ROLES)}
    done = subprocess.run(
        [
            str(ANSIBLE_PLAYBOOK),
            "-i",
            inventory,
            "-l",
            host,
            str(tmp_path / "render.yml"),
            "-e",
            json.dumps(SECRETS),
        ],
        cwd=ANSIBLE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    return {name: (out / host / name).read_text() for name in sources}


def _name(path: str) -> str:
    return path.split("/")[1].removesuffix(".j2")
