"""The repository's Ansible inventories, read through Ansible itself: an ad-hoc debug task that
evaluates an expression for a group's hosts (no host is contacted)."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ANSIBLE_DIR = ROOT / "ansible"
ANSIBLE = Path(sys.executable).parent / "ansible"
# Every inventory of this repository is a load-test deployment (paths from ansible/).
LOAD_TEST_INVENTORIES = [
    "inventories/local",
    "inventories/m3-medium-pair",
    "inventories/m3-xlarge-pair",
    "inventories/cluster",
    "molecule/default/inventory",
]


def debug_messages(inventory: str, pattern: str, message: str, *extra: str) -> dict:
    """Each host's ``msg`` of an ad-hoc debug task with ``message`` on the hosts of ``pattern``
    in ``inventory`` (a path from ansible/, or a host list such as "localhost,"), ``extra``
    arguments to ansible after it; by host name."""
    env = {**os.environ, "ANSIBLE_NOCOLOR": "1", "ANSIBLE_LOAD_CALLBACK_PLUGINS": "1"}
    env["ANSIBLE_STDOUT_CALLBACK"] = "json"
    done = subprocess.run(
        [
            str(ANSIBLE),
            "-i",
            inventory,
            pattern,
            "-m",
            "ansible.builtin.debug",
            "-a",
            f"msg={message}",
            *extra,
        ],
        cwd=ANSIBLE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    hosts = json.loads(done.stdout)["plays"][0]["tasks"][0]["hosts"]
    return {name: result["msg"] for name, result in hosts.items()}


def inventory_value(inventory: str, expression: str, group: str = "ecommerce") -> set[str]:
    """The values ``expression`` takes on the hosts of ``group`` in ``inventory``."""
    return {str(msg) for msg in debug_messages(inventory, group, f"{{{{ {expression} }}}}").values()}
