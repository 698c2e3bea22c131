"""The audit's payment rules, from planted facts (no stack): every paid order settled exactly
once, no paid seat enrolled without a payment, no accepted payment without its order unless a
refund is owed (counted apart), notifications counted by outcome."""

import pytest

from common.contract.statuses import NOTIFICATION
from locustfiles.suite.stack import commands
from locustfiles.suite.verdict import audit, facts

NAMES = {"open": "Open", "complete": "Complete", "fulfillment_error": "Fulfillment Error"}
COURSE = "course-v1:LoadTestX+LT0001+2015"


def source(amount="74.00", debited=None, refunded="0.00") -> dict:
    return {"allocated": amount, "debited": debited or amount, "refunded": refunded}


def order(number, learner="ada", total="74.00", sources=None, events=None, courses=(COURSE,), user=1) -> dict:
    """An order above the watermark as order_facts lists it; a paid one settled unless told."""
    found = {
        "number": number,
        "status": "Complete",
        "user": user,
        "placed": 1000.0,
        "total": total,
        "products": [7],
        "complete_lines": 1,
    }
    if total != "0.00" or sources or events:
        found["payment"] = {
            "total": total,
            "learner": learner,
            "courses": list(courses),
            "sources": [source(total)] if sources is None else sources,
            "paid_events": [total] if events is None else events,
        }
    return found


def accepted(reference, *outcomes, order_number=None) -> dict:
    return {
        "reference": reference,
        "transaction": "1" * 22,
        "outcomes": list(outcomes),
        "order": order_number,
    }


def since(orders=(), paid_enrollments=(), notifications=None) -> facts.Since:
    return facts.Since(NAMES, list(orders), len(orders), [list(s) for s in paid_enrollments], notifications)


def nowhere(learners):
    raise AssertionError(f"no lookup was needed, but {learners} were looked up")


def test_a_paid_order_settled_once_and_its_enrolled_seat_pass():
    result = audit.payments(
        since([order("OSCR-1"), order("OSCR-2", "bob", "0.00")], [("ada", COURSE)]), payments_of=nowhere
    )
    assert {
        k: result[k] for k in ("paid_orders", "settled", "unsettled", "paid_enrollments", "enrolled_unpaid")
    } == {
        "paid_orders": 1,
        "settled": 1,
        "unsettled": 0,
        "paid_enrollments": 1,
        "enrolled_unpaid": 0,
    }


@pytest.mark.parametrize(
    "sources, events",
    [
        ([], None),  # never paid
        ([source(), source()], None),  # paid twice
        ([source("49.00")], None),  # not its total
        ([source(debited="0.00")], None),  # allocated, never debited
        ([source(refunded="74.00")], None),  # paid back
        (None, []),  # no Paid event
        (None, ["74.00", "74.00"]),  # two
        (None, ["49.00"]),
    ],
)
def test_a_paid_order_without_exactly_one_settled_payment_fails(sources, events):
    result = audit.payments(since([order("OSCR-1", sources=sources, events=events)]), payments_of=nowhere)
    assert (result["paid_orders"], result["settled"], result["unsettled"]) == (1, 0, 1)
    assert result["examples"]["unsettled"] == ["OSCR-1"]


def test_a_free_order_with_a_payment_fails():
    result = audit.payments(
        since([order("OSCR-1", total="0.00", sources=[source("74.00")])]), payments_of=nowhere
    )
    assert (result["paid_orders"], result["unsettled"]) == (0, 1)


def test_a_paid_seat_enrolled_without_a_payment_fails():
    unpaid_order = order("OSCR-1", "ada", sources=[])  # placed, never paid: not what backs a seat
    looked_up = []

    def payments_of(learners):
        looked_up.append(learners)
        return facts.LearnerPayments({name: [] for name in learners}, {}, NAMES)

    result = audit.payments(
        since([unpaid_order], [("ada", COURSE), ("eve", COURSE), ("ada", "course-v1:Other+1+2015")]),
        payments_of=payments_of,
    )
    assert result["enrolled_unpaid"] == 3
    assert looked_up == [["ada", "eve"]]  # their own orders, older than the run, were asked for too


def test_a_paid_seat_whose_order_is_older_than_the_run_is_found_through_the_learner():
    """retry_fulfillment may enrol an order placed before the watermark."""

    def payments_of(learners):
        return facts.LearnerPayments({"ada": [{"number": "OSCR-9", **order("OSCR-9")["payment"]}]}, {}, NAMES)

    result = audit.payments(since([], [("ada", COURSE)]), payments_of=payments_of)
    assert (result["paid_enrollments"], result["enrolled_unpaid"]) == (1, 0)


def test_learners_and_courses_are_compared_exactly():
    result = audit.payments(
        since([order("OSCR-1", "ada")], [("Ada", COURSE)]),
        payments_of=lambda names: facts.LearnerPayments({}, {}, NAMES),
    )
    assert result["enrolled_unpaid"] == 1


def test_each_accepted_payment_placed_its_order_or_owes_a_refund():
    notifications = {
        "by_outcome": {"placed": 2, "replay": 3, "refund_owed": 1, "declined": 4, "invalid_signature": 1},
        "accepted": [
            accepted("OSCR-1", NOTIFICATION.PLACED, NOTIFICATION.REPLAY, order_number="OSCR-1"),
            accepted("OSCR-2", NOTIFICATION.FAILED, NOTIFICATION.PLACED, order_number="OSCR-2"),  # sent again
            accepted("OSCR-3", NOTIFICATION.REFUND_OWED, NOTIFICATION.REPLAY),
            accepted("OSCR-4", NOTIFICATION.REPLAY),  # a copy of one accepted before the run
            accepted("OSCR-5", NOTIFICATION.INVALID_SIGNATURE),  # not the processor's
        ],
    }
    result = audit.payments(since([], [], notifications), payments_of=nowhere)
    assert {
        k: result[k]
        for k in ("notifications", "accepted", "placed", "refund_owed", "taken_before", "without_order")
    } == {
        "notifications": notifications["by_outcome"],
        "accepted": 4,
        "placed": 2,
        "refund_owed": 1,
        "taken_before": 1,
        "without_order": 0,
    }


@pytest.mark.parametrize(
    "outcomes",
    [
        (NOTIFICATION.FAILED,),  # the service failed and it was never sent again
        (NOTIFICATION.AMOUNT_MISMATCH,),
        (NOTIFICATION.CURRENCY_MISMATCH,),
        (NOTIFICATION.UNKNOWN_REFERENCE,),
        (NOTIFICATION.MALFORMED, NOTIFICATION.FAILED),
    ],
)
def test_an_accepted_payment_that_placed_nothing_and_owes_nothing_fails(outcomes):
    notifications = {"by_outcome": {}, "accepted": [accepted("OSCR-7", *outcomes)]}
    result = audit.payments(since([], [], notifications), payments_of=nowhere)
    assert (result["without_order"], result["without_order_examples"]) == (1, ["OSCR-7"])


def test_without_a_notification_watermark_the_payments_are_not_judged():
    result = audit.payments(since(), payments_of=nowhere)
    assert result["accepted"] is None and result["without_order"] is None and result["notifications"] is None


def planted(monkeypatch, tmp_path, answered: str, found: facts.Since):
    (tmp_path / audit.ANSWERED_FILE).write_text(answered)
    monkeypatch.setattr(facts, "since", lambda marks: found)
    monkeypatch.setattr(facts, "payments_of", lambda learners: facts.LearnerPayments({}, {}, NAMES))


def test_a_refund_owed_is_reported_and_the_run_passes(monkeypatch, tmp_path):
    notifications = {
        "by_outcome": {"placed": 1, "refund_owed": 1},
        "accepted": [accepted("OSCR-1", "placed", order_number="OSCR-1"), accepted("OSCR-2", "refund_owed")],
    }
    planted(
        monkeypatch, tmp_path, "OSCR-1 1000\n", since([order("OSCR-1")], [("ada", COURSE)], notifications)
    )
    result = audit.audit(tmp_path, {"order_id": 0, "enrollment_id": 0, "notification_id": 0}, successes=1)
    assert result["passed"], audit.problems(result)
    assert (result["payments"]["placed"], result["payments"]["refund_owed"]) == (1, 1)


def test_every_payment_problem_fails_the_run_and_is_named(monkeypatch, tmp_path):
    notifications = {"by_outcome": {"failed": 1}, "accepted": [accepted("OSCR-3", "failed")]}
    planted(
        monkeypatch,
        tmp_path,
        "OSCR-1 1000\n",
        since([order("OSCR-1", sources=[])], [("eve", COURSE)], notifications),
    )
    result = audit.audit(tmp_path, {"order_id": 0, "enrollment_id": 0, "notification_id": 0}, successes=1)
    assert not result["passed"]
    assert audit.problems(result) == [
        "1 orders without exactly one settled payment",
        "1 paid seats enrolled without a payment",
        "1 accepted payments without their order",
    ]


def test_the_report_and_the_terminal_show_the_payments_where_the_audit_is(tmp_path):
    from locustfiles.suite import report
    from locustfiles.suite.report import terminal
    from tests.loadsuite import synthetic

    p, recorder, _, _ = synthetic.recorded("ramp")
    summary = synthetic.summary_for(p, recorder)
    summary["audit"]["payments"] = {
        "paid_orders": 3,
        "settled": 3,
        "unsettled": 0,
        "paid_enrollments": 3,
        "enrolled_unpaid": 0,
        "examples": {"unsettled": [], "enrolled_unpaid": []},
        "notifications": {"placed": 3, "replay": 2, "refund_owed": 1},
        "accepted": 4,
        "placed": 3,
        "refund_owed": 1,
        "taken_before": 0,
        "without_order": 0,
        "without_order_examples": [],
    }
    report.write(summary, tmp_path)
    text = (tmp_path / "report.md").read_text()
    audit_part = text[text.index("Audit: nothing lost") :]
    assert "| paid orders | settled | not settled | paid seats enrolled | enrolled unpaid |" in audit_part
    assert "| 3 | 3 | 0 | 3 | 0 | 4 | 3 | 1 | 0 |" in audit_part
    assert "Notifications by outcome: placed×3, refund_owed×1, replay×2." in audit_part
    assert "owed a refund" in text  # a finding
    line = terminal.audit_line(summary["audit"])
    assert line.splitlines()[1] == (
        "payments: 3 paid orders, 3 settled; 4 accepted, 1 refund owed, 0 without order; "
        "0 paid seats enrolled unpaid"
    )


def test_on_a_host_without_the_services_commands_the_audit_says_where_it_can_run(monkeypatch, tmp_path):
    # A deployment's Locust host: the release without a checkout's virtualenv.
    monkeypatch.setattr(commands, "PYTHON", tmp_path / "no-venv" / "bin" / "python")
    expected = "a deployed Locust host has neither them nor a service's database account"
    with pytest.raises(commands.Unavailable, match=expected):
        facts.since({"order_id": 0, "notification_id": 0, "enrollment_id": 0})
