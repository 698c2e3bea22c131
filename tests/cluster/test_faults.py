"""Item 4: faults across hosts, under a steady load through the balancer.

Learners buy free seats at lms-1 (which calls ecommerce through lb-1) at RPM purchases a
minute, from one headless Locust process on locust-1 (the suite's rpm profile, open model,
REQUEST_LOG: every request's start, time, status and whether its body was JSON). Meanwhile,
from this machine, each in its own window with load before and after
(locustfiles/suite/chaos/cluster.py):

(a) ecommerce-2's programs stop (supervisorctl stop), then start;
(b) ecommerce-2's link goes down (its veth's bridge side), then up;
(c) after each, ecommerce-2 comes back: the balancer has it UP and sends it requests again;
(d) a rolling deploy of a new release (this checkout plus one file) across the pair:
    ecommerce.yml, serial 1, each host drained at lb-1 and made ready again by its handlers;
(f) lms-1 restarted: its supervisord shut down (every program stopped, as the host's shutdown
    does), down FAULT_SECONDS, then started again as at boot;
(g) lb-1's HAProxy restarted (supervisorctl restart haproxy).

For each fault the table gives the time until orders succeed again, the failures by status (each
answer JSON) and apart those with no answer (a refused connection while lms-1 is down).

Then the load stops, retry_fulfillment --all runs on ecommerce-1 as an operator runs it
(<prefix>/bin/ecommerce-manage), and the suite's audit reads db-1 from here. The fault table is
written to $CLUSTER_DIR/faults/fault-table.{md,json} (with the request log beside it).

This module runs last (conftest.py): its new release would make the second deploy of
test_redeploy.py ship a release again."""

import json
import re
import time

import pytest
import yaml

from locustfiles.suite.chaos import cluster as faults
from locustfiles.suite.chaos import fault_table
from locustfiles.suite.record.balancer import BalancerStats
from locustfiles.suite.verdict import audit
from tests.cluster.conftest import PREFIX, ROOT, on_host
from tests.cluster.steady_load import (
    ADDRESSES,
    OUT,
    RPM,
    SECRETS,
    ClusterHosts,
    Load,
    audit_purchases,
    database_environment,
    purchases,
    retry_fulfillment,
)

VICTIM = "ecommerce-2"
FAULT_SECONDS = 10
QUIET_SECONDS = 10
FAULTS = ["services_stopped", "link_down", "lms_restarted", "balancer_restarted", "rolling_deploy"]
LMS_PROGRAM = "ansible/roles/lms_stub/templates/lms_stub.supervisor.conf.j2"
HAPROXY = yaml.safe_load((ROOT / "ansible/roles/haproxy/defaults/main.yml").read_text())


def _seconds(text: str) -> float:
    return float(str(text).removesuffix("s"))


# The balancer's health checks: a server is DOWN after `fall` failed checks, one every `inter`,
# each failing at once (a refused connection) or after at most `timeout check`.
CHECK_INTERVAL = _seconds(HAPROXY["haproxy_check_interval"])
CHECK_FALL = int(HAPROXY["haproxy_check_fall"])
CHECK_TIMEOUT = _seconds(HAPROXY["haproxy_check_timeout"])
# The margin: the readings' resolution (0.2 s), the first check's wait for its turn (up to one
# interval) and the scheduling of 7 hosts' processes on 2 shared cores under load (a second).
MARGIN = 2 * CHECK_INTERVAL + faults.WATCH_INTERVAL
REROUTE_BOUND = CHECK_FALL * (CHECK_INTERVAL + CHECK_TIMEOUT) + MARGIN

# A purchase through lms-1, lb-1 and ecommerce at RPM takes well under this (a few hundred ms;
# the slowest, a fulfilment retried, under 2 s): the wait for the orders in flight to finish
# when a program stops gracefully, and for the first purchase after a restart to be answered.
ORDER_SECONDS = 2
# (f) From the fault's start: lms-1 down FAULT_SECONDS (its shutdown, gunicorn finishing the
# orders in flight, falls within them), then supervisord started and gunicorn's boot, within
# the startsecs supervisord gives lms_stub to come up (roles/lms_stub), then a learner's login
# and purchase.
LMS_STARTSECS = int(re.search(r"^startsecs=(\d+)$", (ROOT / LMS_PROGRAM).read_text(), re.MULTILINE).group(1))
LMS_BACK_BOUND = FAULT_SECONDS + LMS_STARTSECS + 2 * ORDER_SECONDS + MARGIN
# (g) The old HAProxy's soft stop (SIGUSR1) closes its listeners and finishes the requests in
# flight; supervisord starts the new one once it has exited, which listens within a second with
# both servers UP (HAProxy starts servers UP: no server-state file), so the next purchase
# passes. Meanwhile lms-1's calls are refused, and it answers 502 at once.
HAPROXY_START_SECONDS = 1
BALANCER_BACK_BOUND = ORDER_SECONDS + HAPROXY_START_SECONDS + ORDER_SECONDS + MARGIN
BACK_BOUNDS = {"lms_restarted": LMS_BACK_BOUND, "balancer_restarted": BALANCER_BACK_BOUND}


@pytest.fixture(scope="module")
def played():
    """The whole scenario, once: load, the faults, retry, audit, the table."""
    OUT.mkdir(parents=True, exist_ok=True)
    stats = BalancerStats(
        f"http://{ADDRESSES['lb-1']}:8404/stats;csv", "stats", SECRETS["vault_haproxy_stats_password"]
    )
    watch = faults.Watch(stats)
    watch.start()
    with database_environment("db-1"):
        marks = audit.watermarks()
    hosts_ = ClusterHosts()
    load = Load(seconds=1800)  # stopped when the faults are over
    try:
        run = faults.play(hosts_, watch, FAULTS, FAULT_SECONDS, QUIET_SECONDS)
    finally:
        load.stop()
        run_ended = time.time()
        watch.stop()
        for fault in faults.CLUSTER_FAULTS.values():  # nothing stays broken
            try:
                fault.undo(hosts_)
            except Exception:
                pass
    run.load_ended = run_ended
    requests = load.requests()
    retried = retry_fulfillment()
    with database_environment("db-1"):
        totals = audit_purchases(load, marks, purchases(requests))
        per_window = audit.by_step(load.local_dir, marks, fault_table.window_of(run))
    rows = fault_table.table(run, requests, watch.samples, per_window)
    retry_summary = retried.strip().splitlines()[-1] if retried.strip() else ""
    audited = ("successes", "orders", "enrollments", "lost", "duplicates", "partial", "unanswered")
    notes = [
        f"{RPM} purchases a minute from locust-1 through lms-1 and lb-1; each fault held "
        f"{FAULT_SECONDS} s, {QUIET_SECONDS} s of load before and after each.",
        f"Reroute bound: fall {CHECK_FALL} x (inter {CHECK_INTERVAL:g} s + check timeout "
        f"{CHECK_TIMEOUT:g} s) + {MARGIN:g} s margin = {REROUTE_BOUND:g} s.",
        f"Orders back bounds: lms-1 restarted {LMS_BACK_BOUND:g} s (down {FAULT_SECONDS} s + "
        f"startsecs {LMS_STARTSECS} s + login and purchase 2 x {ORDER_SECONDS} s + margin), lb-1's "
        f"HAProxy restarted {BALANCER_BACK_BOUND:g} s (orders in flight {ORDER_SECONDS} s + start "
        f"{HAPROXY_START_SECONDS} s + a purchase {ORDER_SECONDS} s + margin).",
        "No answer: a request refused or cut (status 0), no body to be JSON; unanswered: orders "
        f"committed whose purchase got no 2xx, at most the purchases failed "
        f"({totals.get('unanswered')} of {sum(row['purchase_failures'] for row in rows)}).",
        f"retry_fulfillment --all on ecommerce-1: {retry_summary}",
        "Audit after retry: "
        + ", ".join(f"{key} {totals.get(key)}" for key in audited)
        + f", enrollments missing {totals.get('enrollments_missing')}"
        + f", orders by status {totals.get('orders_by_status')}.",
    ]
    result = {
        "rows": rows,
        "audit": totals,
        "retry": retried,
        "notes": notes,
        "watch_errors": watch.errors[:20],
        "requests": len(requests),
        "events": [event.__dict__ for event in run.events],
    }
    (OUT / "fault-table.json").write_text(json.dumps(result, indent=2, default=str))
    (OUT / "balancer-readings.json").write_text(json.dumps(watch.samples))
    (OUT / "fault-table.md").write_text("# Faults across hosts\n\n" + fault_table.markdown(rows, notes))
    for path in load.local_dir.glob("requests-*.csv"):
        (OUT / path.name).write_text(path.read_text())
    return result


def _row(played, window: str) -> dict:
    return next(row for row in played["rows"] if row["window"] == window)


def test_the_load_ran_through_every_fault(played):
    assert played["requests"] > 0
    for row in played["rows"]:
        assert row["requests"] >= 10, row
        assert not row.get("error"), row


@pytest.mark.parametrize("fault", ["services_stopped", "link_down"])
def test_the_balancer_routes_around_the_lost_host_within_its_checks(played, fault):
    row = _row(played, fault)
    assert row["down_after_s"] is not None and row["down_after_s"] <= REROUTE_BOUND, row
    assert row["last_routed_after_s"] <= REROUTE_BOUND, row


@pytest.mark.parametrize("fault", ["services_stopped", "link_down"])
def test_the_host_comes_back_up_and_takes_requests_again(played, fault):
    row = _row(played, fault)
    assert row["up_again_after_s"] is not None, row
    assert row["traffic_again_after_s"] is not None, row


@pytest.mark.parametrize("fault", ["services_stopped", "link_down"])
def test_only_requests_in_flight_at_the_fault_fail_and_every_failure_is_json(played, fault):
    row = _row(played, fault)
    assert row["failures"] == row["failures_in_flight_at_fault"], row
    assert row["failures_not_json"] == 0, row


@pytest.mark.parametrize("fault", sorted(BACK_BOUNDS))
def test_orders_succeed_again_within_the_restarts_bound(played, fault):
    row = _row(played, fault)
    assert row["orders_back_after_s"] is not None, row
    assert row["orders_back_after_s"] <= BACK_BOUNDS[fault], row


@pytest.mark.parametrize("fault", sorted(BACK_BOUNDS))
def test_every_answer_while_a_host_restarts_is_json(played, fault):
    row = _row(played, fault)
    assert row["failures_not_json"] == 0, row


def test_lms_1_answers_every_request_while_the_balancer_restarts(played):
    # lms-1 stays up: what it cannot pass on to lb-1 it answers itself (JSON 502).
    row = _row(played, "balancer_restarted")
    assert row["failures_no_answer"] == 0, row


def test_the_rolling_deploy_fails_nothing(played):
    row = _row(played, "rolling_deploy")
    assert row["detail"]["exit_code"] == 0, row
    assert row["failures"] == 0, row
    recap = row["detail"]["recap"]
    assert [line.split()[0] for line in recap] == ["ecommerce-1", "ecommerce-2"], recap


def test_the_rolling_deploy_drained_one_host_at_a_time(played):
    row = _row(played, "rolling_deploy")
    # Each host drained at lb-1 (then restarted and made ready), and never both out at once.
    for server in ("ecommerce-1", "ecommerce-2"):
        assert "DRAIN" in row["states_seen"].get(server, []), row["states_seen"]
    assert row["readings_with_no_server_up"] == 0, row["states_seen"]


def test_nothing_is_lost_or_doubled_after_retry(played):
    totals = played["audit"]
    assert totals["lost"] == 0 and totals["duplicates"] == 0 and totals["partial"] == 0, totals
    assert totals["enrollments_missing"] == 0, totals
    complete = totals["statuses"]["complete"]
    assert set(totals["orders_by_status"]) == {complete}, totals
    assert totals["enrollments"] == totals["orders"], totals
    for row in played["rows"]:
        assert row["lost"] == 0 and row["duplicates"] == 0, row


def test_orders_committed_without_an_answer_come_from_failed_purchases(played):
    # An order committed while its purchase failed (lms-1 or lb-1 stopped under it) is not lost,
    # but each needs a purchase that failed: a 2xx is never missing for an answered one.
    failed = sum(row["purchase_failures"] for row in played["rows"])
    assert played["audit"]["unanswered"] <= failed, (played["audit"], failed)
    for fault in BACK_BOUNDS:
        row = _row(played, fault)
        assert row["unanswered"] <= row["purchase_failures"], row


def test_the_balancers_own_errors_are_json():
    # What HAProxy answers itself (no server, a broken or slow one) is the services' JSON shape.
    config = on_host("lb-1", "cat", f"{PREFIX}/etc/haproxy.cfg")
    for status in (502, 503, 504):
        assert f"errorfile {status} {PREFIX}/etc/haproxy-errors/{status}.http" in config
        answer = on_host("lb-1", "cat", f"{PREFIX}/etc/haproxy-errors/{status}.http")
        # (the output is read as text: its CRLF line ends come as LF)
        head, _, body = answer.replace("\r\n", "\n").partition("\n\n")
        assert "Content-Type: application/json" in head
        assert json.loads(body)["error"]
