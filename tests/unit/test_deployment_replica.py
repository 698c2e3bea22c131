"""Issue 32's second database host, as the roles write it: db-1 the primary, db-2 its
semi-synchronous GTID replica (read-only, never waiting for acknowledgements of its own), the
replicas' account on the primary only, the services reaching the database by a name that each
host maps to the primary, and a single database host (molecule, the local inventory) exactly as
before: no binary log, no semi-sync."""

import pytest

from tests.support.rendering import evaluated, render, value

M3 = "inventories/m3-xlarge-pair"
MOLECULE = "molecule/default/inventory"


def _settings(text: str) -> dict[str, str]:
    """The [mariadbd] section's name=value lines."""
    section = text.split("[mariadbd]", 1)[1].split("\n[", 1)[0]
    return dict(
        line.split("=", 1) for line in section.splitlines() if "=" in line and not line.startswith("#")
    )


@pytest.mark.parametrize(
    ("host", "server_id", "waits", "read_only"), [("db-1", "1", "ON", "OFF"), ("db-2", "2", "OFF", "ON")]
)
def test_the_primary_waits_for_its_replica_and_the_replica_only_reads(
    tmp_path, host, server_id, waits, read_only
):
    settings = _settings(render(tmp_path, M3, host, ["common", "mariadb"], ["mariadb/my.cnf.j2"])["my.cnf"])
    assert settings["server_id"] == server_id
    assert settings["log_bin"] and settings["binlog_format"] == "ROW" and settings["gtid_strict_mode"] == "ON"
    # After the sync: a commit answered is in the replica's relay log, lost with neither host.
    assert settings["rpl_semi_sync_master_wait_point"] == "AFTER_SYNC"
    assert settings["rpl_semi_sync_slave_enabled"] == "ON"
    assert settings["rpl_semi_sync_master_enabled"] == waits
    assert settings["read_only"] == read_only


def test_a_single_database_host_keeps_no_binary_log(tmp_path):
    text = render(tmp_path, MOLECULE, "molecule-local", ["common", "mariadb"], ["mariadb/my.cnf.j2"])[
        "my.cnf"
    ]
    settings = _settings(text)
    assert not {"log_bin", "server_id", "read_only"} & set(settings)
    assert "semi_sync" not in text


def test_the_replicas_account_is_made_on_the_primary_for_the_replicas_address_only(tmp_path):
    accounts = value(tmp_path, M3, "db-1", ["common", "mariadb"], "mariadb_accounts")
    replication = [account for account in accounts if account["name"] == "replicator"]
    assert len(replication) == 1 and replication[0]["hosts"] == ["10.0.1.11"]
    assert replication[0]["priv"].startswith("*.*:REPLICATION SLAVE,")
    assert replication[0]["password"] == "render-test-only-replication-password"
    single = value(tmp_path, MOLECULE, "molecule-local", ["common", "mariadb"], "mariadb_accounts")
    assert "replicator" not in [account["name"] for account in single]


def test_every_host_but_the_databases_maps_the_databases_name_to_the_primary(tmp_path):
    lms = evaluated(
        tmp_path,
        M3,
        "lms-1",
        ["common"],
        {
            "name": "common_db_host",
            "primary": "common_db_primary_address",
            "mapped": "common_db_hosts_entry | bool",
        },
    )
    assert lms == {"name": "orders-db", "primary": "10.0.1.10", "mapped": True}
    assert value(tmp_path, MOLECULE, "molecule-local", ["common"], "common_db_hosts_entry | bool") is False
