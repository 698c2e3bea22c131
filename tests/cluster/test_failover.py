"""Issue 32, fault (e): the database host is lost under load, and an operator's failover.yml
promotes db-2.

Under the steady load (steady_load.py: 450 free seats a minute through lms-1 and lb-1), db-1
crashes: its supervisord and everything under it are killed at once and its link goes down, as
a host whose power is cut. A few seconds later (an operator's reaction is not what is measured)
failover.yml runs: db-1 fenced (unreachable, so skipped within its connect timeout), db-2
promoted, the name orders-db pointed at it on every host, the services reloaded. The load runs
on, stops, retry_fulfillment runs, and the suite's audit reads db-2: every order answered 2xx
is there, none is doubled, and orders whose request failed are either committed-and-answered
later by retry or not there at all (unanswered, explained in the table).

It runs after everything else (conftest.py): the cluster's database is db-2 from here on.
Its table is written to $CLUSTER_DIR/faults/failover.{md,json}."""

import json
import math
import time

import pytest

from locustfiles.suite.chaos import fault_table
from locustfiles.suite.core import blocks
from locustfiles.suite.verdict import audit
from tests.cluster.conftest import PREFIX, cluster, on_host
from tests.cluster.steady_load import (
    OUT,
    RPM,
    ClusterHosts,
    Load,
    audit_purchases,
    database_environment,
    purchases,
    retry_fulfillment,
)

BEFORE_SECONDS = 15  # load before the crash
REACTION_SECONDS = 5  # from the crash to the operator's failover
AFTER_SECONDS = 30  # load after the failover playbook ends
BACK_WITHIN_SECONDS = 30  # the goal, from the failover's start


def crash_db_1(hosts: ClusterHosts) -> float:
    """Kill every program of db-1's deployment at once (supervisord first, so nothing restarts),
    then pull its link. Returns when it happened."""
    killed = hosts.kill_programs("db-1")
    assert any("mariadbd" in line for line in killed), killed
    at = time.time()
    hosts.set_link("db-1", False)
    return at


def back_after(purchases: list, since: float) -> float | None:
    """Seconds from ``since`` until the first purchase started after it succeeded, counted to
    that purchase's answer."""
    ok = [r for r in purchases if r.ok and r.start >= since]
    return round(ok[0].end - since, 2) if ok else None


@pytest.fixture(scope="module")
def failover():
    OUT.mkdir(parents=True, exist_ok=True)
    hosts = ClusterHosts()
    with database_environment("db-1"):
        marks = audit.watermarks()
    load = Load(seconds=1800)  # stopped below
    try:
        time.sleep(BEFORE_SECONDS)
        crashed_at = crash_db_1(hosts)
        time.sleep(REACTION_SECONDS)
        started = time.time()
        done = cluster("deploy", "failover.yml", timeout=600)
        ended = time.time()
        (OUT / "failover.log").write_text(done.stdout + done.stderr)
        time.sleep(AFTER_SECONDS)
    finally:
        load.stop()
        hosts.set_link("db-1", True)
    requests = load.requests()
    bought = purchases(requests)
    retried = retry_fulfillment()
    with database_environment("db-2"):
        totals = audit_purchases(load, marks, bought)
    counts = fault_table.request_counts(requests, 0, math.inf, None)  # the whole run
    back = fault_table.orders_back(requests, crashed_at, math.inf)  # as the fault table's rows
    result = {
        "exit_code": done.returncode,
        "recap": [line for line in done.stdout.splitlines() if " : ok=" in line],
        "playbook_seconds": round(ended - started, 2),
        "crash_to_failover_s": round(started - crashed_at, 2),
        "back_after_failover_start_s": back_after(bought, started),
        "back_after_crash_s": back["orders_back_after_s"],
        "last_failure_after_crash_s": back["last_failure_after_s"],
        "requests": len(requests),
        "purchases": len(bought),
        "failures_by_status": counts["failures_by_status"],
        "failures_not_json": counts["failures_not_json"],
        "failures_no_answer": counts["failures_no_answer"],
        "failures_after_back": sum(
            1 for r in bought if not r.ok and r.start >= started + (back_after(bought, started) or 0)
        ),
        "audit": {key: value for key, value in totals.items() if key not in ("lost_examples", "payments")},
        "retry": retried.strip().splitlines()[-1:] if retried.strip() else [],
    }
    (OUT / "failover.json").write_text(json.dumps(result, indent=2, default=str))
    (OUT / "failover.md").write_text(_markdown(result))
    return result


def _markdown(result: dict) -> str:
    audited = result["audit"]
    rows = [
        ("load", f"{RPM} free seats a minute at lms-1, through lb-1"),
        ("failover.yml", f"exit {result['exit_code']} in {result['playbook_seconds']} s"),
        ("crash to failover start", f"{result['crash_to_failover_s']} s"),
        ("orders succeed again", f"{result['back_after_failover_start_s']} s after the failover's start"),
        (
            "orders succeed again after the crash",
            f"{result['back_after_crash_s']} s (the last failure {result['last_failure_after_crash_s']} s)",
        ),
        ("requests / purchases", f"{result['requests']} / {result['purchases']}"),
        ("failures by status", str(result["failures_by_status"])),
        ("failures not JSON", str(result["failures_not_json"])),
        ("failures with no answer (refused, cut)", str(result["failures_no_answer"])),
        ("failed purchases after service was back", str(result["failures_after_back"])),
        (
            "audit on db-2 after retry",
            ", ".join(
                f"{key} {audited.get(key)}"
                for key in ("successes", "orders", "lost", "duplicates", "partial", "unanswered")
            ),
        ),
    ]
    found = blocks.table(["", ""], [[name, value] for name, value in rows])
    return blocks.markdown_document("The database host lost (fault e)", [found])


def test_the_failover_playbook_promotes_db_2(failover):
    assert failover["exit_code"] == 0, (OUT / "failover.log").read_text()[-4000:]
    assert (
        on_host(
            "db-2",
            "mariadb",
            "--no-defaults",
            f"--socket={PREFIX}/mariadb/mysqld.sock",
            "--user=root",
            "-N",
            "-e",
            "SELECT @@read_only",
        ).strip()
        == "0"
    )
    for host in ("lms-1", "ecommerce-1", "ecommerce-2"):
        assert (
            on_host(host, "getent", "hosts", "orders-db").split()[0]
            == on_host("db-2", "hostname", "-I").split()[0]
        )


def test_orders_succeed_again_within_30_s_of_the_failovers_start(failover):
    back = failover["back_after_failover_start_s"]
    assert back is not None and back <= BACK_WITHIN_SECONDS, failover


def test_every_failure_while_the_database_was_gone_is_json(failover):
    assert failover["failures_not_json"] == 0, failover["failures_by_status"]


def test_every_answered_order_is_on_the_new_primary_and_none_twice(failover):
    totals = failover["audit"]
    assert totals["successes"] > 0, totals
    assert totals["lost"] == 0 and totals["duplicates"] == 0 and totals["partial"] == 0, totals
    assert totals["answered_numbers"] == totals["successes"], totals
