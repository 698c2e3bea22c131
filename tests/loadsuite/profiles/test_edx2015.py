"""The suite's side of `make edx2015`, one function at a time: which answers are purchases and
which order each placed, the profile's plan, locustfiles and verdict, and the printed figures."""

import json
from types import SimpleNamespace

import pytest

from locustfiles.suite import profiles
from locustfiles.suite.core.plan import Step
from locustfiles.suite.figures import results
from locustfiles.suite.record.recorder import StepStats
from locustfiles.suite.report import terminal
from locustfiles.suite.users import edx2015_orders

NOTIFY = "/payment/cybersource/notify/"


def answer(status: int, body=None, sent=None):
    """A response as Locust hands it to request listeners (status, JSON body, request body)."""
    return SimpleNamespace(
        status_code=status,
        json=lambda: json.loads(body) if body is not None else json.loads(""),
        request=SimpleNamespace(body=sent),
    )


@pytest.mark.parametrize(
    "name, response, number",
    [
        ("/api/commerce/v0/baskets/", answer(201, '{"order": {"number": "OSCR-100007"}}'), "OSCR-100007"),
        ("/api/commerce/v0/baskets/", answer(202, '{"order": {"number": "OSCR-100008"}}'), "OSCR-100008"),
        ("/api/commerce/v0/baskets/", answer(200, '{"detail": "enrolled"}'), None),
        ("/api/commerce/v0/baskets/", answer(409, '{"order": {"number": "OSCR-1"}}'), None),
        ("/api/commerce/v0/baskets/", answer(201, "not json"), None),
        (NOTIFY, answer(200, sent="decision=ACCEPT&req_reference_number=OSCR-100009&x=1"), "OSCR-100009"),
        (NOTIFY, answer(200, sent=b"req_reference_number=OSCR-100010"), "OSCR-100010"),
        (NOTIFY, answer(400, sent="req_reference_number=OSCR-100011"), None),
        (NOTIFY, answer(200, sent="decision=ACCEPT"), None),
        ("/api/v2/orders/:id/", answer(200, '{"number": "OSCR-100012"}'), None),
        ("/api/commerce/v0/baskets/", SimpleNamespace(status_code=0), None),  # no answer at all
    ],
)
def test_a_purchase_answered_2xx_names_its_order(name, response, number):
    assert edx2015_orders.order_number(name, response) == number


def test_the_profile_is_a_fixed_number_of_users_for_a_while():
    profile = profiles.get("edx2015")
    plan = profile.plan({"USERS": "4", "DURATION": "30"})
    assert [(s.users, s.start, s.seconds) for s in plan.steps] == [(4, 0, 30)]
    assert plan.open_model is False and plan.users == 4
    assert [(s.users, s.seconds) for s in profile.plan({}).steps] == [(10, 60)]
    with pytest.raises(ValueError, match="^USERS: expects a whole number of users from 1 to 10000; got '0'$"):
        profile.plan({"USERS": "0"})


def test_the_profile_loads_the_client_and_the_suite_beside_it():
    profile = profiles.get("edx2015")
    assert profile.locustfiles({}) == ["locustfiles/edx2015/locustfile.py", "locustfiles/edx2015_hooks.py"]
    theirs = "/tmp/edx/locust/ecommerce/locustfile.py"
    assert profile.locustfiles({"EDX2015_LOCUSTFILE": theirs})[0] == theirs
    assert profiles.get("smoke").locustfiles({}) == ["locustfiles/smoke.py"]


def test_both_purchases_count_as_successes_for_the_audit():
    step = StepStats()
    step.endpoints["/api/commerce/v0/baskets/"].record(20, True, 201)
    step.endpoints["/api/commerce/v0/baskets/"].record(20, False, 409)
    step.endpoints[NOTIFY].record(20, True, 200)
    step.endpoints["/api/v2/orders/:id/"].record(20, True, 200)
    steps = {0: step}
    assert results.successes(steps, {}, profiles.get("edx2015").purchase_endpoints) == 2
    assert results.successes(steps, {}) == 1  # the other profiles: the LMS basket only


@pytest.mark.parametrize(
    "client, texts",
    [
        ({"failures": 0, "task_exceptions": 0, "free_purchases": 5, "paid_purchases": 0}, []),
        ({"failures": 0, "task_exceptions": 0, "free_purchases": 0, "paid_purchases": 1}, []),
        (
            {"failures": 2, "task_exceptions": 3, "free_purchases": 5, "paid_purchases": 0},
            ["2 requests failed", "3 task exceptions"],
        ),
        (
            {"failures": 0, "task_exceptions": 0, "free_purchases": 0, "paid_purchases": 0},
            ["no purchase was answered 2xx"],
        ),
    ],
)
def test_any_failed_request_or_task_exception_fails_the_run(client, texts):
    summary = {"overall": {"requests": 1, "failures": 0}, "client": client}
    failures = profiles.get("edx2015").judge(summary, [])[1]
    assert failures == [{"kind": "client", "about": None, "text": text} for text in texts]


def test_the_run_prints_the_figures_its_acceptance_asks_for():
    client = {
        "locustfile": "locustfiles/edx2015/locustfile.py",
        "task_set": "EcommerceTest",
        "users": 10,
        "seconds": 61.2,
        "requests": 420,
        "failures": 0,
        "task_exceptions": 1,
        "exception_examples": [{"count": 1, "message": "Client Error 404: http://x/api/v2/orders/OSCR-1/"}],
        "free_purchases": 200,
        "paid_purchases": 4,
        "orders": 204,
        "payments": None,
    }
    assert terminal.client_lines(client) == [
        "edX 2015 client (locustfiles/edx2015/locustfile.py, task set EcommerceTest): 10 users for 61.2 s",
        "  requests 420, failures 0, task exceptions 1",
        "  purchases answered 2xx: 200 free (LMS), 4 paid (payment notifications); orders committed 204, "
        "payments not audited",
        "  exception x1: Client Error 404: http://x/api/v2/orders/OSCR-1/",
    ]
    client["payments"] = {"paid_orders": 4, "settled": 4, "refund_owed": 0, "without_order": 0}
    assert terminal.client_lines(client)[2].endswith(
        "payments 4 settled for 4 paid orders, 0 refund owed, 0 without order"
    )


def test_the_profile_labels_its_one_step_by_its_users():
    assert profiles.get("edx2015").label(Step(0, 0, 60, users=10)) == "10 users"
