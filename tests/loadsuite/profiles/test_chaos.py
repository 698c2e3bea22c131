"""The chaos profile's parts that need no stack: its plan, the recovery time, each fault's
expected outcome, and the audit's counts from the facts the services give."""

import pytest

from locustfiles.suite import chaos, profiles, report
from locustfiles.suite.chaos import Event
from locustfiles.suite.verdict import audit, facts


def test_one_step_per_fault_in_the_order_given():
    p = profiles.get("chaos").plan({"FAULTS": "db_restart lms_down", "PHASE_SECONDS": "20", "RPM": "120"})
    assert [(s.start, s.seconds, s.fault, s.target_rpm) for s in p.steps] == [
        (0, 20, "db_restart", 120),
        (20, 20, "lms_down", 120),
    ]
    assert p.open_model


def test_every_fault_by_default_at_300_rpm():
    p = profiles.get("chaos").plan({})
    assert [s.fault for s in p.steps] == list(chaos.FAULTS)
    assert {s.target_rpm for s in p.steps} == {300}


def test_enough_users_for_arrivals_while_the_lms_is_slower_than_the_timeout(monkeypatch):
    monkeypatch.setenv("LMS_ENROLLMENT_TIMEOUT", "7")
    p = profiles.get("chaos").plan({"RPM": "300"})
    # 5 arrivals a second, each may take the timeout plus slack: at least 5 * 12 users.
    assert p.users >= 60


@pytest.mark.parametrize(
    "env, message",
    [({"FAULTS": "lms_down meteor"}, "unknown fault meteor"), ({"PHASE_SECONDS": "5"}, "at least 8")],
)
def test_bad_chaos_sizes_are_refused(env, message):
    with pytest.raises(ValueError, match=message):
        profiles.get("chaos").plan(env)


def test_the_fault_sits_inside_its_step_with_time_to_recover(monkeypatch):
    monkeypatch.delenv("FAULT_SECONDS", raising=False)
    assert chaos.fault_window(30) == (6, 7)
    assert chaos.fault_window(10) == (2, 2)
    monkeypatch.setenv("FAULT_SECONDS", "100")
    lead, length = chaos.fault_window(20)
    assert lead + length <= 20 - 2


def row(index=0, start=0, seconds=20, **extra):
    return {
        "index": index,
        "start": start,
        "seconds": seconds,
        "requests": 10,
        "statuses": {"201": 10},
        **extra,
    }


def test_recovery_counts_from_the_end_of_the_fault():
    t0 = 1000.0
    event = Event("db_restart", started=1004.0, ended=1008.5)
    assert chaos.recovery_seconds(row(degraded_from=1004, degraded_until=1011), event, t0) == 2.5
    assert chaos.recovery_seconds(row(), event, t0) == 0.0  # never disturbed
    assert chaos.recovery_seconds(row(degraded_from=1004, degraded_until=1008), event, t0) == 0.0
    # still disturbed when the step ended: not recovered
    assert chaos.recovery_seconds(row(degraded_from=1004, degraded_until=1019), event, t0) is None
    assert chaos.recovery_seconds(row(), Event("db_restart"), t0) is None  # never ran


def test_a_fault_that_ended_late_in_the_step_is_judged_by_the_seconds_after_it():
    """Seen in a load-suite run: MariaDB's restart ended between 24.95 and 25.0 s of a step
    that ends at 27 s (summary: 25.0); requests failed in second 24, while it was down, and
    none after. The step was judged "still degraded when it ended". A whole degraded second
    after the fault's end, in the step's last 2 s, is."""
    t0 = 1000.0
    step = {"start": 18, "seconds": 9}  # ends at 1027
    ended_late = Event("db_restart", started=1020.0, ended=1024.96)
    recovery = chaos.recovery_seconds(row(degraded_from=1020, degraded_until=1025, **step), ended_late, t0)
    assert recovery is not None and recovery <= 1
    after = row(degraded_from=1020, degraded_until=1026, **step)  # second 25 failed: after the end
    assert chaos.recovery_seconds(after, ended_late, t0) is None


def outcome(checks):
    return {c["check"]: c["ok"] for c in checks}


def test_a_lost_order_fails_whatever_the_fault():
    event = Event("lms_down", started=1.0, ended=2.0)
    result = outcome(chaos.checks(row(statuses={"202": 3}), event, {"lost": 1}, 0.0))
    assert result["nothing lost"] is False
    assert result["no duplicate order"] and result["no partial order"]


def test_the_lms_down_outcome():
    event = Event("lms_down", started=1.0, ended=2.0)
    reads = {"/api/commerce/v1/orders/[number]/": {"failures": 0, "statuses": {"200": 4}}}
    good = row(statuses={"201": 5, "202": 5}, endpoints=reads)
    assert all(c["ok"] for c in chaos.checks(good, event, {}, 0.0))
    no_202 = row(statuses={"201": 10}, endpoints=reads)
    assert not outcome(chaos.checks(no_202, event, {}, 0.0))[
        "orders placed in the outage answered 202 (Fulfillment Error)"
    ]
    failing_reads = row(
        statuses={"202": 5},
        endpoints={"/api/commerce/v1/orders/[number]/": {"failures": 2, "statuses": {"502": 2}}},
    )
    assert not outcome(chaos.checks(failing_reads, event, {}, 0.0))[
        "other endpoints kept answering (order reads)"
    ]


def test_the_lms_slow_outcome_bounds_every_order_request(monkeypatch):
    monkeypatch.setenv("LMS_ENROLLMENT_TIMEOUT", "2")
    event = Event("lms_slow", started=1.0, ended=2.0)
    within = row(statuses={"202": 4}, p100=4900)
    late = row(statuses={"202": 4}, p100=5200)
    name = "order requests ended within the timeout (+3 s)"
    assert outcome(chaos.checks(within, event, {}, 1.0))[name]
    assert not outcome(chaos.checks(late, event, {}, 1.0))[name]


def test_the_db_restart_outcome_allows_only_503s():
    event = Event("db_restart", started=1.0, ended=5.0, detail={"rollup_alive": True})
    only_503 = row(endpoints={"/auto_auth": {"statuses": {"201": 3, "503": 4}}})
    a_500 = row(endpoints={"/auto_auth": {"statuses": {"201": 3, "500": 1}}})
    assert all(c["ok"] for c in chaos.checks(only_503, event, {}, 1.5))
    result = outcome(chaos.checks(a_500, event, {}, 1.5))
    assert result["requests that failed got a 503"] is False
    assert outcome(chaos.checks(only_503, event, {}, None))["recovered by itself within the step"] is False


def test_the_worker_kill_outcome_needs_a_replacement():
    replaced = Event("worker_kill", started=1.0, ended=1.0, detail={"replaced": True})
    missing = Event("worker_kill", started=1.0, ended=1.0, detail={"replaced": False})
    assert all(c["ok"] for c in chaos.checks(row(), replaced, {}, 0.0))
    assert not outcome(chaos.checks(row(), missing, {}, 0.0))["the worker was replaced"]


def test_the_duplicates_outcome():
    good = {
        "same_key": {
            "orders": 1,
            "order_numbers": ["100001"],
            "statuses": {"201": 18, "409": 2},
            "codes": ["request_in_progress"],
        },
        "no_key": {"orders": 1, "statuses": {"201": 1, "409": 1}},
    }
    assert all(c["ok"] for c in chaos.checks(row(), Event("duplicates", 1.0, 2.0, good), {}, 0.0))
    two_orders = {
        **good,
        "same_key": {**good["same_key"], "orders": 2, "order_numbers": ["100001", "100002"]},
    }
    checks = outcome(chaos.checks(row(), Event("duplicates", 1.0, 2.0, two_orders), {}, 0.0))
    assert checks["20 requests with one Idempotency-Key placed one order"] is False
    # A worker that cannot take more refuses some of them at once: "retry shortly" too.
    shed = {**good, "same_key": {**good["same_key"], "statuses": {"201": 12, "409": 2, "503": 6}}}
    shed["same_key"]["codes"] = ["overloaded", "request_in_progress"]
    assert all(c["ok"] for c in chaos.checks(row(), Event("duplicates", 1.0, 2.0, shed), {}, 0.0))
    broken = {**shed, "same_key": {**shed["same_key"], "codes": ["overloaded", "server_error"]}}
    checks = outcome(chaos.checks(row(), Event("duplicates", 1.0, 2.0, broken), {}, 0.0))
    assert checks["every answer to them was that order or 'retry shortly'"] is False


def test_a_shed_request_is_no_failure_of_a_fault_but_any_other_503_is():
    """A slow enrollment API keeps the LMS's workers busy: they refuse new work (503 overloaded)
    rather than be exhausted; that is no failed request. A 503 of another kind still is."""
    event = Event("lms_slow", started=1.0, ended=2.0)
    reads = "/api/commerce/v1/orders/[number]/"
    shed = row(
        statuses={"202": 4},
        p100=100,
        endpoints={
            "/auto_auth": {"statuses": {"201": 3, "503": 2}, "refusals": {"503 overloaded": 2}},
            reads: {
                "failures": 1,
                "statuses": {"200": 3, "503": 1},
                "refusals": {"503 ecommerce_unavailable: overloaded": 1},
            },
        },
    )
    assert all(c["ok"] for c in chaos.checks(shed, event, {}, 0.5))
    exhausted = row(
        statuses={"202": 4},
        p100=100,
        endpoints={
            "/auto_auth": {
                "statuses": {"201": 3, "503": 3},
                "refusals": {"503 overloaded": 2, "503 pool_exhausted": 1},
            }
        },
    )
    result = outcome(chaos.checks(exhausted, event, {}, 0.5))
    assert result["no worker or pool exhaustion (no failed request)"] is False


def paid_once(number) -> list[dict]:
    return [{"number": number, "complete": True, "paid_once": True}]


def twice(answers=(200, 200), orders=None, outcomes=("placed", "replay")) -> dict:
    return {
        "learner": "chaos_1",
        "reference": "OSCR-100001",
        "answers": list(answers),
        "orders": paid_once("OSCR-100001") if orders is None else orders,
        "outcomes": {"OSCR-100001": list(outcomes)},
    }


def test_the_notify_twice_outcome():
    good = {"one after the other": twice(), "at the same moment": twice(outcomes=("replay", "placed"))}
    assert all(c["ok"] for c in chaos.checks(row(), Event("notify_twice", 1.0, 2.0, good), {}, 0.0))
    doubled = {
        **good,
        "at the same moment": twice(
            orders=paid_once("OSCR-100001") + paid_once("OSCR-100002"), outcomes=("placed", "placed")
        ),
    }
    result = outcome(chaos.checks(row(), Event("notify_twice", 1.0, 2.0, doubled), {}, 0.0))
    assert result["at the same moment: one order, Complete, paid once"] is False
    assert result["at the same moment: the copy recorded as a replay"] is False
    assert result["one after the other: one order, Complete, paid once"] is True
    unpaid = {
        **good,
        "one after the other": twice(orders=[{**paid_once("OSCR-100001")[0], "paid_once": False}]),
    }
    result = outcome(chaos.checks(row(), Event("notify_twice", 1.0, 2.0, unpaid), {}, 0.0))
    assert result["one after the other: one order, Complete, paid once"] is False
    refused = {**good, "one after the other": twice(answers=(200, 503))}
    assert not outcome(chaos.checks(row(), Event("notify_twice", 1.0, 2.0, refused), {}, 0.0))[
        "one after the other: both copies answered 200"
    ]


def late(away=None, again=None) -> dict:
    return {
        "went away": {
            "learner": "chaos_a",
            "reference": "OSCR-100001",
            "answers": [200],
            "orders": paid_once("OSCR-100001"),
            "outcomes": {"OSCR-100001": ["placed"]},
            **(away or {}),
        },
        "paid again": {
            "learner": "chaos_b",
            "reference": "OSCR-100002",
            "paid": "OSCR-100003",
            "answers": [200, 200],
            "orders": paid_once("OSCR-100003"),
            "outcomes": {"OSCR-100003": ["placed"], "OSCR-100002": ["refund_owed"]},
            **(again or {}),
        },
    }


def test_the_notify_late_outcome():
    assert all(c["ok"] for c in chaos.checks(row(), Event("notify_late", 1.0, 2.0, late()), {}, 0.0))
    first = "went away: the late payment placed and fulfilled the order, paid once (200)"
    again = "paid again: one order, the second basket's, paid once (both answered 200)"
    refund = "paid again: the late payment placed nothing, recorded as a refund owed"
    never_placed = late(away={"orders": [], "outcomes": {"OSCR-100001": ["declined"]}})
    assert not outcome(chaos.checks(row(), Event("notify_late", 1.0, 2.0, never_placed), {}, 0.0))[first]
    not_fulfilled = late(away={"orders": [{"number": "OSCR-100001", "complete": False, "paid_once": True}]})
    assert not outcome(chaos.checks(row(), Event("notify_late", 1.0, 2.0, not_fulfilled), {}, 0.0))[first]
    both_placed = late(
        again={
            "orders": paid_once("OSCR-100002") + paid_once("OSCR-100003"),
            "outcomes": {"OSCR-100003": ["placed"], "OSCR-100002": ["placed"]},
        }
    )
    result = outcome(chaos.checks(row(), Event("notify_late", 1.0, 2.0, both_placed), {}, 0.0))
    assert result[again] is False and result[refund] is False


def test_the_payment_faults_read_back_what_ecommerce_holds_with_its_status_names(monkeypatch):
    """Orders by number with "complete" as ecommerce names it, paid once by the audit's rule,
    and the notifications' outcomes by reference number."""
    monkeypatch.setattr(
        facts,
        "payments_of",
        lambda learners: facts.LearnerPayments(
            {
                "chaos_1": [
                    {
                        "number": "OSCR-100001",
                        "status": "Done",
                        "total": "74.00",
                        "sources": [{"allocated": "74.00", "debited": "74.00", "refunded": "0.00"}],
                        "paid_events": ["74.00"],
                    }
                ]
            },
            {
                "chaos_1": [
                    {"reference": "OSCR-100001", "outcome": "placed"},
                    {"reference": "OSCR-100001", "outcome": "replay"},
                ]
            },
            NAMES,
        ),
    )
    seen = chaos.FAULTS["notify_twice"].seen({"case": {"learner": "chaos_1", "answers": [200]}})
    assert seen == {
        "case": {
            "learner": "chaos_1",
            "answers": [200],
            "orders": paid_once("OSCR-100001"),
            "outcomes": {"OSCR-100001": ["placed", "replay"]},
        }
    }


@pytest.fixture
def meteor(monkeypatch):
    """A fault added as a new fault is: one class with @register (taken out again after)."""
    monkeypatch.setitem(chaos.FAULTS, "meteor", None)
    undone = []

    @chaos.register
    class Meteor(chaos.Fault):
        name = "meteor"
        title = "a meteor hits the data centre"

        def inject(self, stack, event, seconds):
            raise RuntimeError("no meteor today")

        def undo(self, stack):
            undone.append(stack)

        def checks(self, row, event, recovery):
            return [("the crater was filled", row.get("crater") == 0, row.get("crater"))]

    return undone


def test_a_new_fault_is_one_registered_class(meteor):
    p = profiles.get("chaos").plan({"FAULTS": "meteor lms_down"})
    assert [s.fault for s in p.steps] == ["meteor", "lms_down"]
    result = outcome(chaos.checks(row(crater=1), Event("meteor", 1.0, 2.0), {}, 0.0))
    assert result == {
        "nothing lost": True,
        "no duplicate order": True,
        "no partial order": True,
        "the crater was filled": False,
    }


def test_a_fault_that_fails_to_inject_is_undone_and_recorded(meteor):
    events = {}
    chaos.drive(profiles.get("chaos").plan({"FAULTS": "meteor", "PHASE_SECONDS": "10"}), 0.0, events)
    assert events[0].error == "RuntimeError: no meteor today"
    assert len(meteor) == 1


def test_a_fault_that_could_not_be_injected_fails_its_step():
    checks = chaos.checks(row(), Event("db_restart", error="RuntimeError: no"), {}, 0.0)
    assert [(c["check"], c["ok"]) for c in checks] == [("the fault was injected", False)]


# Status names as a service might spell them: the audit must take them from the facts it is
# given, never compare with strings of its own.
NAMES = {"open": "New", "complete": "Done", "fulfillment_error": "Stuck"}


def order(number, status="complete", user=1, products=(7,), complete_lines=None, placed=1000.0):
    complete = len(products) if complete_lines is None else complete_lines
    return {
        "number": number,
        "status": NAMES[status],
        "user": user,
        "placed": placed,
        "products": list(products),
        "complete_lines": complete,
    }


@pytest.mark.parametrize(
    "status, products, complete, partial",
    [
        ("complete", (7,), 1, False),
        ("complete", (7, 8), 1, True),
        ("fulfillment_error", (7,), 0, False),
        ("fulfillment_error", (7, 8), 2, True),
        ("open", (7,), 0, False),
        ("complete", (), 0, True),
    ],
)
def test_partial_orders_by_the_status_names_the_service_gives(status, products, complete, partial):
    assert audit.is_partial(order("1", status, products=products, complete_lines=complete), NAMES) is partial


def test_answered_orders_carry_the_second_their_request_started(tmp_path):
    (tmp_path / audit.ANSWERED_FILE).write_text("100001 1700000000\n100002\n\n")
    assert audit.read_answered(tmp_path) == [("100001", 1700000000), ("100002", None)]


def planted(monkeypatch, tmp_path, answered: str, orders: list[dict], enrollments: int):
    """The run folder's answered numbers and what the services say is above the watermarks."""
    (tmp_path / audit.ANSWERED_FILE).write_text(answered)
    found = facts.Since(NAMES, orders, enrollments)
    monkeypatch.setattr(facts, "since", lambda marks: found)


def test_the_audit_counts_from_the_facts(monkeypatch, tmp_path):
    planted(
        monkeypatch,
        tmp_path,
        "1 1000\n2 1000\n2 1010\n9 1010\n",  # 2 answered twice, 9 never committed
        [
            order("1"),
            order("2", user=2),
            order("3", user=2, placed=1010.0),  # user 2 bought seat 7 again; nobody was answered
            order("4", "fulfillment_error", user=3, complete_lines=0, placed=1010.0),
            order("5", "complete", user=4, products=(7, 8), complete_lines=1, placed=1010.0),  # partial
        ],
        enrollments=3,
    )
    result = audit.audit(tmp_path, {"order_id": 0, "enrollment_id": 0}, successes=4)
    assert {k: v for k, v in result.items() if k not in ("lost_examples", "payments")} == {
        "successes": 4,
        "answered_numbers": 4,
        "orders": 5,
        "enrollments": 3,
        "lost": 1,
        "duplicates": 2,
        "unanswered": 3,
        "orders_by_status": {"Done": 4, "Stuck": 1},
        "statuses": NAMES,
        "enrollments_missing": 1,  # 4 Complete lines, 3 enrollments
        "partial": 1,
        "passed": False,
    }
    assert result["lost_examples"] == ["9"]
    per_step = audit.by_step(tmp_path, {"order_id": 0, "enrollment_id": 0}, lambda s: (s - 1000) // 10)
    # Step 1 holds them all: the second answer of 2, the lost 9, the repeated seat, the partial 5,
    # the three orders committed without an answer.
    assert per_step == {1: {"lost": 1, "duplicates": 2, "partial": 1, "unanswered": 3}}


def test_a_clean_run_passes_the_audit(monkeypatch, tmp_path):
    planted(monkeypatch, tmp_path, "1 1000\n2 1000\n", [order("1"), order("2", user=2)], enrollments=2)
    result = audit.audit(tmp_path, {"order_id": 0, "enrollment_id": 0}, successes=2)
    assert (result["passed"], result["lost"], result["duplicates"], result["partial"]) == (True, 0, 0, 0)


def test_the_report_has_the_reliability_table():
    event = Event("lms_down", started=1004.0, ended=1010.0)
    rows = chaos.reliability_rows(
        [row(statuses={"201": 5, "202": 3}, degraded_from=1004, degraded_until=1012, fault="lms_down")],
        {0: event},
        {0: {"lost": 0, "duplicates": 0, "partial": 0}},
        1000.0,
    )
    assert rows[0]["recovery_seconds"] == 2.0 and rows[0]["passed"]
    summary = {
        "reliability": rows,
        "audit": {"orders_by_status": {"Complete": 8}},
        "retry_fulfillment": {"summary": "retried 3: 3 complete, 0 still failing"},
    }
    table, note, _ = report.sections.reliability(summary)["blocks"]
    assert [c["text"] for c in table["rows"][0][:8]] == [
        "lms_down",
        "10",
        "201×5, 202×3",
        "–",
        "0",
        "0",
        "0",
        "2",
    ]
    assert "retried 3: 3 complete" in note["text"]


def test_errors_of_one_status_on_two_endpoints_add_up():
    """Two endpoints answering 503: the reliability row counts both, not the last one read."""
    event = Event("db_restart", started=1004.0, ended=1008.0, detail={"rollup_alive": True})
    endpoints = {
        "/auto_auth": {"statuses": {"200": 4, "503": 2}},
        "/api/commerce/v0/baskets/": {"statuses": {"201": 6, "503": 3, "500": 1}},
    }
    rows = chaos.reliability_rows([row(endpoints=endpoints)], {0: event}, {0: {}}, 1000.0)
    assert rows[0]["errors_by_status"] == {"503": 5, "500": 1}
