"""The roles' templates and variables as a deployment sees them on one host of an inventory:
evaluated through Ansible with the inventory's values and the roles' defaults and vars under
them (none of the roles' tasks run; no host is contacted)."""

import base64
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
- name: Evaluate with the roles' variables
  hosts: all
  gather_facts: false
  connection: local
  vars:
    ansible_python_interpreter: {python}
    common_release: render-release
  tasks:
{imports}
    - name: Evaluate
      ansible.builtin.debug:
        msg: {message}
"""
IMPORT = """    - name: The {role} role's defaults and vars, none of its tasks
      ansible.builtin.import_role:
        name: {role}
      when: false
"""


def evaluated(
    tmp_path: Path,
    inventory: str,
    host: str,
    roles: list[str],
    expressions: dict[str, str],
    extra: dict | None = None,
) -> dict:
    """Each Jinja expression's value (by its name) for ``host`` of ``inventory`` (a host or a
    pattern matching one), with the roles' variables under the inventory's and ``extra`` over
    them: one ansible-playbook run, in which the template module runs nowhere (``template()``
    renders through the template lookup, on the controller, as the module would)."""
    pairs = ", ".join(f"{json.dumps(name)}: ({expression})" for name, expression in expressions.items())
    play = PLAY.format(
        python=sys.executable,
        imports="".join(IMPORT.format(role=role) for role in roles),
        # JSON is a YAML double-quoted string; base64 keeps the values as the templates wrote them.
        message=json.dumps("{{ {" + pairs + "} | to_json | b64encode }}"),
    )
    (tmp_path / "evaluate.yml").write_text(play)
    env = {
        **os.environ,
        "ANSIBLE_NOCOLOR": "1",
        "ANSIBLE_ROLES_PATH": str(ROLES),
        "ANSIBLE_STDOUT_CALLBACK": "json",
        "ANSIBLE_LOAD_CALLBACK_PLUGINS": "1",
    }
    done = subprocess.run(
        [
            str(ANSIBLE_PLAYBOOK),
            "-i",
            inventory,
            "-l",
            host,
            str(tmp_path / "evaluate.yml"),
            "-e",
            json.dumps({**SECRETS, **(extra or {})}),
        ],
        cwd=ANSIBLE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    (answer,) = json.loads(done.stdout)["plays"][0]["tasks"][-1]["hosts"].values()
    return json.loads(base64.b64decode(answer["msg"]))


def template(path: str, **template_vars: str) -> str:
    """The expression rendering ``<role>/<file>.j2`` (``template_vars``: name → expression)."""
    role, name = path.split("/")
    given = ", ".join(f"{json.dumps(key)}: ({expression})" for key, expression in template_vars.items())
    return (
        f"lookup('template', {json.dumps(str(ROLES / role / 'templates' / name))}, template_vars={{{given}}})"
    )


def render(
    tmp_path: Path, inventory: str, host: str, roles: list[str], templates: list[str]
) -> dict[str, str]:
    """``templates`` (``<role>/<file>.j2``) as written for ``host`` of ``inventory``, by name
    (the file name without .j2)."""
    return evaluated(tmp_path, inventory, host, roles, {_name(path): template(path) for path in templates})


def value(tmp_path: Path, inventory: str, host: str, roles: list[str], expression: str):
    """What ``expression`` is for ``host`` of ``inventory`` with the roles' variables."""
    return evaluated(tmp_path, inventory, host, roles, {"value": expression})["value"]


def _name(path: str) -> str:
    return path.split("/")[1].removesuffix(".j2")
