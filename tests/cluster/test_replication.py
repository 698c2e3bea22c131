"""Issue 32: db-2 is a semi-synchronous GTID replica of db-1. It replicates, takes no writes,
holds the primary's accounts (root by its socket alone), and has every order the moment it is
answered; the primary waits for it; the monitor reads its lag; the services reach the database
by a name that maps to db-1."""

from tests.cluster.conftest import LMS_PORT, PREFIX, hosts, on_host, purchase

ADDRESSES = hosts()
SOCKET = f"--socket={PREFIX}/mariadb/mysqld.sock"
COURSE = "course-v1:LoadTestX+LT0001+2015"


def sql(host: str, query: str) -> str:
    return on_host(host, "mariadb", "--no-defaults", SOCKET, "--user=root", "-N", "-e", query)


def status(host: str, query: str) -> dict[str, str]:
    """SHOW …STATUS as name: value (root, by the host's socket)."""
    return dict(line.split("\t", 1) for line in sql(host, query).splitlines() if "\t" in line)


def replica_status(host: str) -> dict[str, str]:
    shown = on_host(host, "mariadb", "--no-defaults", SOCKET, "--user=root", "-e", "SHOW SLAVE STATUS\\G")
    return {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in shown.splitlines()) if v}


def test_db_2_replicates_db_1_by_gtid_and_takes_no_writes():
    replica = replica_status("db-2")
    assert replica["Master_Host"] == ADDRESSES["db-1"], replica
    assert replica["Slave_IO_Running"] == "Yes" and replica["Slave_SQL_Running"] == "Yes", replica
    assert replica["Using_Gtid"] == "Slave_Pos", replica
    assert sql("db-2", "SELECT @@read_only").strip() == "1"
    assert sql("db-1", "SELECT @@read_only").strip() == "0"


def test_the_primary_waits_for_the_replica_after_the_sync():
    semi = status("db-1", "SHOW STATUS LIKE 'Rpl_semi_sync_master_%'")
    assert semi["Rpl_semi_sync_master_status"] == "ON", semi
    assert semi["Rpl_semi_sync_master_clients"] == "1", semi
    assert sql("db-1", "SELECT @@rpl_semi_sync_master_wait_point").strip() == "AFTER_SYNC"
    # The replica acknowledges and never waits for acknowledgements of its own.
    assert sql("db-2", "SELECT @@rpl_semi_sync_master_enabled, @@rpl_semi_sync_slave_enabled").split() == [
        "0",
        "1",
    ]


def test_an_answered_order_is_on_the_replica():
    before = status("db-1", "SHOW STATUS LIKE 'Rpl_semi_sync_master_yes_tx'")["Rpl_semi_sync_master_yes_tx"]
    _, code, answer = purchase(f"http://{ADDRESSES['lms-1']}:{LMS_PORT}", COURSE)
    assert code == 201, answer
    number = answer["order"]["number"]
    found = sql("db-2", f"SELECT status FROM ecommerce.order_order WHERE number = '{number}'").strip()
    assert found == "Complete", (number, found)
    after = status("db-1", "SHOW STATUS LIKE 'Rpl_semi_sync_master_yes_tx'")["Rpl_semi_sync_master_yes_tx"]
    assert int(after) > int(before)  # acknowledged by the replica, not committed without it


def test_the_replica_holds_the_primarys_accounts_and_root_only_by_its_socket():
    query = "SELECT CONCAT(User, '@', Host) FROM mysql.user ORDER BY 1"
    assert sql("db-2", query) == sql("db-1", query)
    assert sql("db-2", "SHOW CREATE USER root@localhost").strip().endswith("IDENTIFIED VIA unix_socket")


def test_the_monitor_reads_the_replicas_lag_from_a_locust_host():
    code = (
        "import pymysql, sys;"
        f"c = pymysql.connect(host='{ADDRESSES['db-2']}', user='monitor', password=sys.argv[1]);"
        "cur = c.cursor(pymysql.cursors.DictCursor); cur.execute('SHOW SLAVE STATUS');"
        "print(cur.fetchone()['Seconds_Behind_Master'])"
    )
    secrets = on_host("locust-1", "cat", f"/proc/{_master_pid()}/environ").split("\0")
    password = next(
        entry.split("=", 1)[1] for entry in secrets if entry.startswith("MYSQL_MONITOR_PASSWORD=")
    )
    lag = on_host("locust-1", f"{PREFIX}/venv/bin/python", "-c", code, password).strip()
    assert lag == "0", lag


def _master_pid() -> str:
    conf = f"{PREFIX}/etc/supervisord.conf"
    return on_host("locust-1", "supervisorctl", "-c", conf, "pid", "locust-master").strip()


def test_the_services_reach_the_database_by_a_name_mapped_to_the_primary():
    for host in ("lms-1", "ecommerce-1", "ecommerce-2", "locust-1"):
        assert on_host(host, "getent", "hosts", "orders-db").split()[0] == ADDRESSES["db-1"], host
