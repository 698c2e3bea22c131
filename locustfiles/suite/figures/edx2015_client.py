"""What a run of edX's 2015 client (make edx2015) comes to, from Locust's own totals, the
recorder's purchases and the audit."""

from common.environment import get, raw
from locustfiles.suite.core.names import FREE_PURCHASE, PAID_PURCHASE, RECEIPT
from locustfiles.suite.core.summary import Summary
from locustfiles.suite.figures import results


def client_reading(run) -> dict:
    """What the run left of the client, read once the audit is done: its locustfile and task
    set, Locust's own request and failure totals (every endpoint, the whole run), task
    exceptions (Locust's Exceptions tab), and the purchases answered 2xx of each kind and the
    paid orders read back (2xx), whether their requests started before the run's end or during
    the users' last tasks."""
    total = run.environment.stats.total
    exceptions = sorted(run.environment.runner.exceptions.values(), key=lambda e: -e["count"])
    recorder = run.recorder
    return {
        "locustfile": get("EDX2015_LOCUSTFILE", run.env),
        "task_set": raw("LOCUST_TASK_SET", run.env),
        "requests": total.num_requests,
        "failures": total.num_failures,
        "task_exceptions": sum(e["count"] for e in exceptions),
        "exception_examples": [{"count": e["count"], "message": e["msg"][:300]} for e in exceptions[:5]],
        "free_purchases": results.successes(recorder.steps, recorder.outside_plan, (FREE_PURCHASE,)),
        "paid_purchases": results.successes(recorder.steps, recorder.outside_plan, (PAID_PURCHASE,)),
        "receipts": results.successes(recorder.steps, recorder.outside_plan, (RECEIPT,)),
    }


def client_figures(reading: dict, summary: Summary) -> dict:
    """What a run of the client comes to: its reading (client_reading) with users and time, and
    what the audit found in the databases."""
    audit = summary.get("audit") or {}
    return {
        "locustfile": reading["locustfile"],
        "task_set": reading["task_set"],
        "users": summary["load"]["users"],
        "seconds": summary["seconds"],
        **reading,  # the rest of its figures (a key given above keeps its place)
        "orders": audit.get("orders"),
        "orders_by_status": audit.get("orders_by_status"),
        "payments": audit.get("payments"),  # the audit's payment counts
    }
