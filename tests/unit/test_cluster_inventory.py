"""The cluster inventory (`make cluster-test`'s simulated hosts) is m3-xlarge-pair with other
addresses and another connection: the same hosts, groups and variables, the same sizing, and
only the differences ansible/README.md lists ("The cluster: simulated hosts")."""

import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
INVENTORIES = ROOT / "ansible" / "inventories"
CLUSTER = INVENTORIES / "cluster"
M3 = INVENTORIES / "m3-xlarge-pair"

# Variables only the cluster has, each for a reason the guide gives.
ALLOWED_EXTRA = {
    # The connection: root over SSH with scripts/cluster.sh's key and known host keys.
    "ansible_ssh_private_key_file": "connection",
    "ansible_ssh_common_args": "connection",
    "ansible_python_interpreter": "connection: the machine's PATH may put another Python first",
    # Addresses and paths on the simulated hosts.
    "cluster_subnet": "addresses",
    "cluster_net": "addresses",
    "cluster_dir": "the keys and the wheelhouse on the controller",
    # No route out, a shared crontab, offline New Relic.
    "common_pip_extra_args": "no PyPI: the wheelhouse",
    "common_supervisor_start_at_boot": "the hosts share this machine's crontab",
    "common_newrelic_developer_mode": "offline agents (the fake collector)",
    # The balancer's certificate comes from scripts/cluster.sh's private CA (the vault's
    # vault_haproxy_tls_pem, in test-secrets.yml), which every host's client must trust.
    "common_http_ca_bundle": "a private CA made by scripts/cluster.sh up",
    # Its throwaway secrets (test-secrets.yml), which every other inventory refuses.
    "common_test_secrets_allowed": "the cluster's own test secrets",
}


def _groups(hosts_yml: Path) -> dict[str, set[str]]:
    """Every group (all included) with the hosts in it, its children's included."""
    data = yaml.safe_load(hosts_yml.read_text())["all"]
    groups: dict[str, set[str]] = {}

    def walk(name: str, node: dict) -> set[str]:
        members = set((node or {}).get("hosts") or {})
        for child, child_node in ((node or {}).get("children") or {}).items():
            members |= walk(child, child_node)
        groups[name] = members
        return members

    walk("all", data)
    return groups


def _host_vars(hosts_yml: Path) -> dict[str, set[str]]:
    """The variable names given to each host in hosts.yml (all's vars under 'all')."""
    data = yaml.safe_load(hosts_yml.read_text())["all"]
    names: dict[str, set[str]] = {"all": set(data.get("vars") or {})}

    def walk(node: dict) -> None:
        for host, values in ((node or {}).get("hosts") or {}).items():
            names.setdefault(host, set()).update(values or {})
        for child in ((node or {}).get("children") or {}).values():
            walk(child)

    walk(data)
    return names


def _group_vars(inventory: Path) -> dict[str, object]:
    values: dict[str, object] = {}
    for path in sorted((inventory / "group_vars" / "all").glob("*.yml")):
        values.update(yaml.safe_load(path.read_text()) or {})
    return values


def _script_hosts() -> dict[str, str]:
    done = subprocess.run(
        [str(ROOT / "scripts" / "cluster.sh"), "hosts"],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "CLUSTER_SUBNET": "10.213.1.0/24"},
    )
    assert done.returncode == 0, done.stderr
    return dict(line.split() for line in done.stdout.splitlines())


def test_the_cluster_has_the_hosts_and_groups_of_m3_xlarge_pair():
    assert _groups(CLUSTER / "hosts.yml") == _groups(M3 / "hosts.yml")


def test_the_cluster_gives_its_hosts_the_variables_m3_xlarge_pair_gives_plus_the_connection():
    cluster, m3 = _host_vars(CLUSTER / "hosts.yml"), _host_vars(M3 / "hosts.yml")
    assert set(cluster) == set(m3)
    for host in m3:
        assert m3[host] <= cluster[host], f"{host} lacks {m3[host] - cluster[host]}"
        assert cluster[host] - m3[host] <= set(ALLOWED_EXTRA), f"{host}: {cluster[host] - m3[host]}"


def test_the_cluster_sets_every_variable_of_m3_xlarge_pair_and_only_allowed_others():
    cluster, m3 = _group_vars(CLUSTER), _group_vars(M3)
    missing = set(m3) - set(cluster)
    assert not missing, f"the cluster inventory lacks {sorted(missing)}"
    extra = {name for name in set(cluster) - set(m3) if not name.startswith("vault_")}
    assert extra <= set(ALLOWED_EXTRA), f"not on the allowed list: {sorted(extra - set(ALLOWED_EXTRA))}"


def test_the_cluster_is_sized_as_m3_xlarge_pair():
    sizing = "group_vars/all/sizing.yml"
    assert yaml.safe_load((CLUSTER / sizing).read_text()) == yaml.safe_load((M3 / sizing).read_text())


def test_the_cluster_has_a_throwaway_value_for_every_secret_of_the_vault_example():
    example = yaml.safe_load((ROOT / "ansible" / "group_vars" / "all" / "vault.yml.example").read_text())
    secrets = yaml.safe_load((CLUSTER / "group_vars" / "all" / "test-secrets.yml").read_text())
    assert set(secrets) == set(example)
    for name, value in secrets.items():
        if name == "vault_haproxy_tls_pem":  # the certificate scripts/cluster.sh up makes for this run
            assert value == "{{ lookup('ansible.builtin.file', cluster_dir ~ '/tls/orders.pem') }}"
            continue
        assert "test-only" in value, name


@pytest.mark.parametrize("host", sorted(_groups(CLUSTER / "hosts.yml")["all"]))
def test_each_host_is_at_the_address_scripts_cluster_sh_gives_it(host):
    data = yaml.safe_load((CLUSTER / "hosts.yml").read_text())["all"]["children"]
    addresses = [
        (values or {}).get("ansible_host")
        for group in data.values()
        for name, values in (group.get("hosts") or {}).items()
        if name == host and (values or {}).get("ansible_host")
    ]
    assert len(addresses) == 1, addresses
    octet = _script_hosts()[host].rsplit(".", 1)[1]
    assert addresses[0] == "{{ cluster_net }}." + octet
