"""What a deployment sees of each request, through real gunicorn processes: the Server-Timing
split (ecommerce's, forwarded by the LMS to the learner) and, under the New Relic agent in
developer mode (offline), one transaction per order with its custom attributes."""

import ast
import os
import re
import sys
from pathlib import Path

import requests

from common.contract.server_timing import parse
from settings.effective import NEW_RELIC_INI
from tests.integration.helpers import new_name, order
from tests.integration.test_loop import buy, new_learner

NEWRELIC_ADMIN = str(Path(sys.executable).parent / "newrelic-admin")


def test_the_learner_sees_where_the_lms_and_ecommerce_spent_the_time(stack):
    browser, _ = new_learner(stack)
    response = buy(stack, browser, "course-v1:LoadTestX+LT0001+2015")
    assert response.status_code == 201, response.text

    found = parse(response.headers["Server-Timing"])
    assert {"db", "ecommerce", "app", "total"} <= set(found)
    assert {"ecommerce-db", "ecommerce-lms", "ecommerce-app", "ecommerce-total"} <= set(found)
    # ecommerce's own total fits inside the time the LMS waited for it, which fits in the LMS's.
    assert found["ecommerce-total"] <= found["ecommerce"] <= found["total"]
    assert found["ecommerce-db"] > 0 and found["ecommerce-lms"] > 0


def test_a_pooled_worker_counts_the_two_commits_of_an_order(stack):
    response = order(stack.ecommerce.url, new_name(), 2)
    assert response.status_code == 201, response.text
    assert re.search(r'db;dur=[0-9.]+;desc="1[0-9] queries, 2 commits"', response.headers["Server-Timing"])


def audit_events(path: Path) -> list[tuple[dict, dict]]:
    """(intrinsics, custom attributes) of the transaction events the agent sent. The audit log
    holds one block per request to the collector, its payload pretty-printed after "DATA: "."""
    events = []
    for block in path.read_text().split("\n\n"):
        if not block.startswith("DATA: "):
            continue
        try:
            data = ast.literal_eval(block[len("DATA: ") :])
        except (ValueError, SyntaxError):
            continue
        # analytic_event_data: [run id, {sampling}, [[intrinsics, custom, agent attributes], ...]]
        if isinstance(data, list) and len(data) == 3 and isinstance(data[2], list):
            for event in data[2]:
                if isinstance(event, list) and len(event) == 3 and event[0].get("type") == "Transaction":
                    events.append((event[0], event[1]))
    return events


def test_new_relic_records_each_order_with_its_figures(stack, tmp_path):
    audit = tmp_path / "newrelic-audit.log"
    agent_log = tmp_path / "newrelic-agent.log"
    env = {
        "NEW_RELIC_DEVELOPER_MODE": "true",  # a built-in fake collector: nothing leaves the host
        "NEW_RELIC_LICENSE_KEY": "0" * 40,
        "NEW_RELIC_APP_NAME": "orderservice-ecommerce (test)",
        "NEW_RELIC_AUDIT_LOG": str(audit),
        "NEW_RELIC_LOG": str(agent_log),
        "NEW_RELIC_LOG_LEVEL": "info",
        **{f"NEW_RELIC_UTILIZATION_DETECT_{cloud}": "false" for cloud in ("AWS", "AZURE", "GCP", "PCF")},
        "NEW_RELIC_UTILIZATION_DETECT_DOCKER": "false",
        "NEW_RELIC_UTILIZATION_DETECT_KUBERNETES": "false",
        # The product's agent settings, as `make up` and the deployment give them.
        "NEW_RELIC_CONFIG_FILE": NEW_RELIC_INI,
    }
    server = stack.another_ecommerce(workers=1, wrapper=[NEWRELIC_ADMIN, "run-program"], **env)
    try:
        assert "New Relic agent registered" in server.log()  # in post_worker_init, before any request
        learners = [new_name(), new_name()]
        numbers = []
        for learner in learners:
            response = order(server.url, learner, 3)
            assert response.status_code == 201, response.text
            numbers.append(response.json()["order"]["number"])
    finally:
        server.stop()  # the agent sends what it holds as the worker exits
    assert os.environ.get("NEW_RELIC_ADMIN_COMMAND") is None  # the test process itself is not monitored

    orders = [
        (intrinsics, custom)
        for intrinsics, custom in audit_events(audit)
        if intrinsics.get("name", "").endswith("BasketView.post")
    ]
    assert sorted(custom["order_number"] for _, custom in orders) == sorted(numbers)
    for intrinsics, custom in orders:
        assert custom["fulfilment_status"] == "Complete"
        assert custom["commits"] == 2
        assert 10 <= custom["queries"] <= 20
        assert custom["db_ms"] > 0 and custom["lms_ms"] > 0 and custom["app_ms"] > 0
        # The agent's own database timing saw the same statements.
        assert intrinsics["databaseCallCount"] >= custom["queries"]


def test_the_server_facts_are_read_once_per_worker_not_per_client_connection(stack):
    """Django reads the server's facts (SELECT VERSION(), @@sql_mode, ...) once per connection
    object, and under gevent each client connection gets one: every learner's first request cost
    an extra statement. Read once per worker process, a fresh client's /auto_auth is its INSERT
    alone (the stack runs 2 LMS workers, so at most 2 answers carry the reading)."""
    statements = []
    for _ in range(12):
        with requests.Session() as fresh:  # a new TCP connection: a new greenlet on the LMS
            answer = fresh.get(stack.lms.url + "/auto_auth", headers={"Connection": "close"}, timeout=10)
        assert answer.status_code == 201, answer.text
        found = re.search(r'db;dur=[0-9.]+;desc="(\d+) queries', answer.headers["Server-Timing"])
        statements.append(int(found.group(1)))
    assert set(statements) <= {1, 2}
    assert statements.count(2) <= 2, statements
