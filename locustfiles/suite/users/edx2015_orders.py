"""The suite's side of a run of edX's 2015 client (make edx2015), kept out of the client's files.

The 2015 client reads no answer it does not need, so the order numbers the audit needs are
read here, from Locust's request events, as answers to two purchases:

* the free one, the LMS's ``POST /api/commerce/v0/baskets/``: its 2xx answer names the order;
* the paid one, the processor's ``POST /payment/cybersource/notify/``: a 2xx answer means
  ecommerce placed the order the notification names in ``req_reference_number`` (the client
  worked the number out itself and sends it there).

locustfiles/edx2015_hooks.py, which a run loads beside the client's locustfile, attaches it.
Standard library only (the profiles read PURCHASES).
"""

import time
from urllib.parse import parse_qs

from common.contract import paths
from common.environment import get, raw
from locustfiles.suite import results
from locustfiles.suite.recorder import SUCCESS_FOR_AUDIT

FREE_PURCHASE = paths.COMMERCE_BASKETS
PAID_PURCHASE = paths.payment_notification("cybersource")  # Locust names the notification by its path
PURCHASES = (FREE_PURCHASE, PAID_PURCHASE)
RECEIPT = "/api/v2/orders/:id/"  # the stats name of the paid order read back


def order_number(name: str, response) -> str | None:
    """The order a purchase answer placed, or None (not a purchase, not 2xx, or no number)."""
    if name not in PURCHASES or getattr(response, "status_code", 0) not in SUCCESS_FOR_AUDIT:
        return None
    if name == FREE_PURCHASE:
        try:
            number = response.json()["order"]["number"]
        except (ValueError, KeyError, TypeError):
            return None
        return number if isinstance(number, str) else None
    body = response.request.body if response.request is not None else None
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    numbers = parse_qs(body or "").get("req_reference_number", [])
    return numbers[0] if len(numbers) == 1 else None


def attach(environment, **_) -> None:
    """Locust's init listener: record the order number of every purchase answered 2xx."""

    def record(name, response=None, exception=None, start_time=None, **_):
        run = getattr(environment, "suite", None)  # the run object hooks.py made at init
        number = order_number(name, response) if exception is None and run is not None else None
        if number is not None:
            run.answered(number, start_time if start_time is not None else time.time())

    environment.events.request.add_listener(record)


def figures(run, summary: dict) -> dict:
    """What a run of the client comes to: users and time, Locust's own request and failure
    totals (every endpoint, the whole run), task exceptions (Locust's Exceptions tab), the
    purchases answered 2xx of each kind and the paid orders read back (2xx), whether their
    requests started before the run's end or during the users' last tasks, and what the audit
    found in the databases."""
    total = run.environment.stats.total
    exceptions = sorted(run.runner.exceptions.values(), key=lambda e: -e["count"])
    recorder = run.recorder
    audit = summary.get("audit") or {}
    return {
        "locustfile": get("EDX2015_LOCUSTFILE", run.env),
        "task_set": raw("LOCUST_TASK_SET", run.env),
        "users": summary["load"]["users"],
        "seconds": summary["seconds"],
        "requests": total.num_requests,
        "failures": total.num_failures,
        "task_exceptions": sum(e["count"] for e in exceptions),
        "exception_examples": [{"count": e["count"], "message": e["msg"][:300]} for e in exceptions[:5]],
        "free_purchases": results.successes(recorder.steps, recorder.outside_plan, (FREE_PURCHASE,)),
        "paid_purchases": results.successes(recorder.steps, recorder.outside_plan, (PAID_PURCHASE,)),
        "receipts": results.successes(recorder.steps, recorder.outside_plan, (RECEIPT,)),
        "orders": audit.get("orders"),
        "orders_by_status": audit.get("orders_by_status"),
        "payments": audit.get("payments"),  # the audit's payment counts
    }
