"""The fault table of the faults across hosts (locustfiles/suite/chaos/fault_table.py), computed
from made-up balancer readings and request logs: no cluster needed (tests/cluster/test_faults.py
plays the faults on one)."""

from locustfiles.suite.chaos import cluster, fault_table
from locustfiles.suite.chaos.event import Event
from locustfiles.suite.core.names import ORDER_ENDPOINT


def servers(ecommerce_2: tuple[str, int], ecommerce_1: tuple[str, int] = ("UP", 0)) -> dict:
    return {
        "ecommerce-1": {"status": ecommerce_1[0], "requests": ecommerce_1[1]},
        "ecommerce-2": {"status": ecommerce_2[0], "requests": ecommerce_2[1]},
    }


SAMPLES = [
    (99.0, servers(("UP", 10))),
    (100.2, servers(("UP", 11))),  # a request sent after the fault (at 100)
    (101.0, servers(("UP", 12))),
    (102.0, servers(("UP 1/2", 12))),
    (103.0, servers(("DOWN", 12))),
    (110.5, servers(("DOWN", 12))),  # restored at 110
    (113.0, servers(("UP", 12))),
    (114.0, servers(("UP", 13))),
]


def test_reroute_times_from_the_balancers_readings():
    assert fault_table.reroute(SAMPLES, "ecommerce-2", 100.0, 110.0) == {
        "down_after_s": 3.0,
        "last_routed_after_s": 1.0,
        "up_again_after_s": 3.0,
        "traffic_again_after_s": 4.0,
    }


def test_a_host_never_seen_down_has_no_reroute_time():
    samples = [(100.0 + i, servers(("UP", i))) for i in range(5)]
    times = fault_table.reroute(samples, "ecommerce-2", 100.5, 103.0)
    assert times["down_after_s"] is None and times["up_again_after_s"] is None


def test_failures_are_told_apart_by_when_their_request_was_under_way():
    requests = [
        cluster.Request(95.0, 50, "b", True, 201, True),
        cluster.Request(99.5, 20000, "b", False, 504, True),  # in flight at the fault (100)
        cluster.Request(101.0, 10, "b", False, 502, False),  # started after it, not JSON
        cluster.Request(102.0, 1, ORDER_ENDPOINT, False, 0, False),  # refused: no answer
        cluster.Request(130.0, 10, "b", False, 503, True),  # another window
    ]
    counts = fault_table.request_counts(requests, 96.0, 120.0, 100.0)
    assert counts == {
        "requests": 3,
        "failures": 3,
        "failures_by_status": {"502": 1, "504": 1},
        "failures_not_json": 1,
        "failures_no_answer": 1,
        "failures_in_flight_at_fault": 1,
        "failures_started_after_fault": 2,
        "purchase_failures": 1,
    }


def buy(start: float, ms: float, status: int, name: str = ORDER_ENDPOINT) -> cluster.Request:
    return cluster.Request(start, ms, name, 200 <= status < 300, status, status != 0)


def test_orders_succeed_again_after_the_last_failure():
    requests = [
        buy(99.8, 400, 201),  # in flight at the fault (100), answered: not a sign of recovery
        buy(100.5, 2, 0, "/auto_auth"),  # a learner could not log in
        buy(101.0, 300, 201),  # succeeded, but something failed later still
        buy(104.0, 5, 0),  # the last failure: ends at 104.005
        buy(104.5, 20, 200, "/auto_auth"),  # not a purchase
        buy(105.0, 500, 201),  # the first purchase after the last failure: back at 105.5
        buy(106.0, 100, 201),
        buy(131.0, 1, 0),  # the next window's
    ]
    assert fault_table.orders_back(requests, 100.0, 130.0) == {
        "orders_back_after_s": 5.5,
        "last_failure_after_s": 4.0,
    }


def test_orders_that_never_failed_are_back_with_the_first_purchase_after_the_fault():
    requests = [buy(99.0, 2000, 201), buy(100.2, 300, 201), buy(101.0, 100, 201)]
    assert fault_table.orders_back(requests, 100.0, 130.0) == {
        "orders_back_after_s": 0.5,
        "last_failure_after_s": None,
    }


def test_orders_not_back_within_the_window_have_no_time():
    requests = [buy(100.5, 10, 0), buy(129.9, 200, 201)]  # answered after the window's end
    assert fault_table.orders_back(requests, 100.0, 130.0)["orders_back_after_s"] is None


def played() -> cluster.Played:
    stop = Event("services_stopped", started=100.0, ended=110.0)
    deploy = Event("rolling_deploy", started=130.0, ended=190.0, detail={"exit_code": 0})
    return cluster.Played(load_started=90.0, events=[stop, deploy], load_ended=200.0)


def test_each_fault_has_its_window_up_to_the_next_one():
    assert fault_table.windows(played()) == [
        ("before the faults", 90.0, 100.0),
        ("services_stopped", 100.0, 130.0),
        ("rolling_deploy", 130.0, 200.0),
    ]
    step_of = fault_table.window_of(played())
    assert [step_of(s) for s in (89, 90, 99, 100, 150, 199, 200)] == [None, 0, 0, 1, 2, 2, None]


def test_the_table_has_a_row_per_window_with_its_reroute_or_its_states():
    deploying = [
        (131.0, servers(("UP", 20), ("DRAIN", 5))),
        (140.0, servers(("UP", 21), ("DOWN", 5))),
        (150.0, servers(("DRAIN", 21), ("UP", 9))),
    ]
    requests = [cluster.Request(95.0 + i, 30, "b", True, 201, True) for i in range(100)]
    rows = fault_table.table(played(), requests, SAMPLES + deploying, {2: {"lost": 0, "duplicates": 1}})
    assert [row["window"] for row in rows] == ["before the faults", "services_stopped", "rolling_deploy"]
    assert [row["requests"] for row in rows] == [5, 30, 65]
    assert rows[1]["down_after_s"] == 3.0 and rows[1]["fault_seconds"] == 10.0
    assert rows[2]["states_seen"] == {"ecommerce-1": ["DRAIN", "DOWN", "UP"], "ecommerce-2": ["UP", "DRAIN"]}
    assert rows[2]["readings_with_no_server_up"] == 0 and rows[2]["duplicates"] == 1
    table = fault_table.markdown(rows, ["a note"])
    assert table.splitlines()[2].startswith("| before the faults | 10.0 | 5 | none |")
    assert table.endswith("* a note\n")


def test_a_restart_row_has_the_time_orders_succeed_again_and_no_reroute():
    restart = Event("lms_restarted", started=100.0, ended=112.0, detail={"caused_in_s": 1.5, "ending": 110.0})
    balancer = Event("balancer_restarted", started=130.0, ended=131.0)
    run = cluster.Played(load_started=90.0, events=[restart, balancer], load_ended=160.0)
    requests = [buy(95.0, 50, 201), buy(101.0, 1, 0), buy(111.0, 2, 0), buy(112.0, 1000, 201)]
    requests += [buy(130.2, 20, 502), buy(131.5, 200, 201)]
    audited = {1: {"lost": 0, "duplicates": 0, "partial": 0, "unanswered": 1}}
    rows = fault_table.table(run, requests, SAMPLES, audited)
    assert [row["window"] for row in rows] == ["before the faults", "lms_restarted", "balancer_restarted"]
    lms, lb = rows[1], rows[2]
    assert (lms["orders_back_after_s"], lms["last_failure_after_s"]) == (13.0, 11.0)
    assert (lms["failures_no_answer"], lms["failures_by_status"], lms["unanswered"]) == (2, {}, 1)
    assert "down_after_s" not in lms and lms["detail"] == {"caused_in_s": 1.5}
    assert (lb["orders_back_after_s"], lb["failures_by_status"], lb["unanswered"]) == (1.7, {"502": 1}, 0)
    header, _, before, lms_line, _ = fault_table.markdown(rows).splitlines()[:5]
    assert "| no answer |" in header and "| orders succeed again after s |" in header
    assert before.split(" | ").count("–") == 6  # no fault: nothing to recover from, no reroute
    assert "| 13.0 | 11.0 |" in lms_line
