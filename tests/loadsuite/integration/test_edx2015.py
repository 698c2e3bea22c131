"""`make edx2015`: the re-created 2015 client (locustfiles/edx2015/) against the load suite's real
stack, each task set alone and the 50:1 mix, through the suite's runner: no failed request, no
task exception, purchases made, and every one of them found by the audit, Complete and
enrolled. Its waits are a fifth of 3-5 s (EDX2015_WAIT_SCALE) to keep the runs short."""

from pathlib import Path

import pytest

from tests.loadsuite.runs import started
from tests.support import edx2015_wire
from tests.support.summaries import read_summary

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]


def run_client(stack_env, task_set: str, users: int = 3, seconds: int = 8) -> tuple[int, dict, str]:
    done, folder = started(
        stack_env,
        "edx2015",
        LOCUST_TASK_SET=task_set,
        USERS=users,
        DURATION=seconds,
        EDX2015_WAIT_SCALE="0.2",
    )
    return done.returncode, read_summary(folder), done.stdout


def assert_every_purchase_audited(summary: dict, purchases: int) -> None:
    audit = summary["audit"]
    assert audit["passed"], audit
    assert audit["lost"] == audit["duplicates"] == audit["partial"] == audit["unanswered"] == 0
    assert audit["successes"] == audit["answered_numbers"] == audit["orders"] == purchases > 0
    assert audit["enrollments"] == audit["orders"]
    assert audit["orders_by_status"] == {audit["statuses"]["complete"]: audit["orders"]}


def assert_clean(code: int, summary: dict) -> dict:
    client = summary["client"]
    assert (client["failures"], client["task_exceptions"]) == (0, 0), client["exception_examples"]
    assert client["requests"] > 0
    assert code == 0 and summary["verdict"]["passed"], summary["verdict"]
    return client


def test_the_free_purchases_of_the_2015_client(stack_env):
    code, summary, printed = run_client(stack_env, "BasketsTasks")
    client = assert_clean(code, summary)
    assert client["task_set"] == "BasketsTasks" and client["paid_purchases"] == 0
    assert_every_purchase_audited(summary, client["free_purchases"])
    assert set(summary["endpoints"]["overall"]) == {"auto_auth", "/api/commerce/v0/baskets/"}
    assert f"{client['free_purchases']} free (LMS), 0 paid" in printed


def test_the_paid_purchases_of_the_2015_client(stack_env):
    code, summary, printed = run_client(stack_env, "CybersourcePaymentTasks")
    client = assert_clean(code, summary)
    assert client["free_purchases"] == 0
    assert_every_purchase_audited(summary, client["paid_purchases"])
    assert client["receipts"] == client["paid_purchases"]  # every paid order read back
    payments = client["payments"]  # the audit's payment counts
    assert payments["paid_orders"] == payments["settled"] == client["paid_purchases"] > 0
    assert payments["unsettled"] == payments["without_order"] == payments["refund_owed"] == 0


def test_the_2015_mix_of_free_and_paid_purchases(stack_env):
    code, summary, _ = run_client(stack_env, "EcommerceTest", users=4)
    client = assert_clean(code, summary)
    assert client["free_purchases"] > 0
    assert_every_purchase_audited(summary, client["free_purchases"] + client["paid_purchases"])


def test_one_user_pays_then_buys_free_then_pays_again_on_one_session(stack_env):
    """After a payment every request of the user carries that learner's token, the LMS's
    included, and both services' cookies share one jar (127.0.0.1, any port): neither may
    upset the next purchase."""
    output = edx2015_wire.run(
        "locustfiles/edx2015/locustfile.py",
        ["paid", "free", "paid", "free"],
        host=stack_env["LMS_URL"],
        env=stack_env,
    )
    assert output["tasks"] == [None, None, None, None]
    assert {name: counts for name, counts in output["stats"].items() if counts[1]} == {}
    assert output["stats"]["POST /api/commerce/v0/baskets/"] == [2, 0]
    assert output["stats"]["POST /payment/cybersource/notify/"] == [2, 0]
