"""CPU per purchase: what each process group spent for every purchase a step completed.

The server sampler reads each group's CPU time (ecommerce's and lms_stub's gunicorn masters and
workers, the rollup loop, mariadbd) and the whole machine's (/proc/stat) at every step boundary;
each Locust process reports its own. A step's CPU of a group is its CPU % of one core times the
seconds between the step's two readings; divided by the purchases the step completed, it is
the group's CPU milliseconds per purchase:

* ``services`` = ecommerce + lms_stub + mariadb + rollup, the system under test, and haproxy
  where a load balancer is read (READINGS_HOSTS: each group summed over the hosts it runs on);
* ``locust``: every Locust process summed (master or local runner, and the workers);
* ``machine``: every core's busy time (all but idle and iowait: the kernel, softirqs, a
  profiler, anything else running), so ``other`` = machine - the groups - Locust.

A purchase is a learner's purchase completed (results.successes, per step): a free one answered
2xx by the LMS, a paid one whose order was read back 200, by the step its request started in.
The paid journey costs more than a free one, so the figure is per purchase of the run's mix.
A step without a purchase has null figures, never a division by zero.

The run's figures are also given in calibration units (``calibrated``): CPU ms over the ms of the
machine's calibration taken before the load and after it (common/calibration), which this
machine's drift in speed moves as it moves the milliseconds.
"""

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from common import calibration
from locustfiles.suite.core.names import ORDER_ENDPOINT, SUCCESS_FOR_AUDIT
from locustfiles.suite.core.summary import CpuAccounting, StepRow, Summary
from locustfiles.suite.figures import results

SERVICES = ("ecommerce", "lms_stub", "mariadb", "rollup")  # server.GROUPS, in reading order
BALANCER = "haproxy"  # a group of the system under test only where there is a load balancer
KEYS = (*SERVICES, BALANCER, "services", "locust", "machine", "other")
PROC_STAT = "/proc/stat"


def step_seconds(row: Mapping[str, Any]) -> float | None:
    """The seconds the step's CPU readings cover: between its two readings when recorded (the
    last step's runs until the run stopped), else the step's planned length."""
    return row.get("reading_seconds") or row.get("seconds")


def cpu_ms(row: dict) -> dict[str, float | None]:
    """CPU milliseconds each group, Locust, the services and the machine used in a step; None
    for what was not read (a run without readings: every key)."""
    seconds = step_seconds(row)
    groups = row.get("cpu_percent")
    if not seconds or groups is None:
        return dict.fromkeys(KEYS)

    def ms(percent) -> float | None:
        return None if percent is None else percent * seconds * 10  # % of a core x s -> ms

    used = {group: ms(groups.get(group)) for group in SERVICES}
    known = [v for v in used.values() if v is not None]
    services = sum(known) if len(known) == len(SERVICES) else None
    balancer = ms(groups.get(BALANCER))
    if services is not None and balancer is not None:
        services += balancer
    used["services"], used[BALANCER] = services, balancer
    locust = row.get("locust_cpu")
    used["locust"] = ms(sum(locust.values())) if locust else None
    used["machine"] = ms(row.get("machine_cpu_percent"))
    if used["machine"] is not None and used["services"] is not None and used["locust"] is not None:
        # The readings are a few milliseconds apart: a rounding below 0 is nothing, not negative.
        used["other"] = max(used["machine"] - used["services"] - used["locust"], 0.0)
    else:
        used["other"] = None
    return {key: None if value is None else round(value, 1) for key, value in used.items()}


def purchases(row: dict, endpoints: tuple[str, ...] | None = None) -> dict[str, int]:
    """{"free": n, "paid": m}: the purchases a step (or the whole run's row) completed. Without
    ``endpoints``, the learners': free ones answered 2xx (200, 201, 202) by the LMS's order
    endpoint, paid ones whose order was read back 200. With them (a profile's
    purchase_endpoints: the free purchase's endpoint first, then the paid ones'), the 2xx
    answers of each."""
    found = row.get("endpoints") or {}

    def answered(name: str, statuses: Iterable[int]) -> int:
        counts = (found.get(name) or {}).get("statuses") or {}
        return sum(int(counts.get(str(status), 0)) for status in statuses)

    if endpoints:
        free, *paid = endpoints
        return {
            "free": answered(free, SUCCESS_FOR_AUDIT),
            "paid": sum(answered(name, SUCCESS_FOR_AUDIT) for name in paid),
        }
    return {
        "free": answered(ORDER_ENDPOINT, SUCCESS_FOR_AUDIT),
        "paid": answered(results.PAID_ORDER_ENDPOINT, (200,)),
    }


def per_purchase(used: dict[str, float | None], count: int) -> dict[str, float | None]:
    """CPU ms per purchase of each key; all None when nothing was purchased."""
    return {
        key: None if not count or value is None else round(value / count, 2) for key, value in used.items()
    }


def account(row: dict, endpoints: tuple[str, ...] | None = None) -> None:
    """Add a step's CPU accounting to its row: ``purchases`` (completed in the step),
    ``cpu_ms`` (used in the step), ``cpu_ms_per_purchase`` and ``other_cpu_percent``."""
    bought = purchases(row, endpoints)
    row["purchases"] = bought["free"] + bought["paid"]
    row["purchases_by_kind"] = bought
    row["cpu_ms"] = cpu_ms(row)
    row["cpu_ms_per_purchase"] = per_purchase(row["cpu_ms"], row["purchases"])
    seconds = step_seconds(row)
    other = row["cpu_ms"]["other"]
    row["other_cpu_percent"] = round(other / seconds / 10, 1) if other is not None and seconds else None


def run_accounting(rows: Sequence[StepRow], weights: Mapping[str, int] | None = None) -> CpuAccounting:
    """The whole run's figures (its measured steps, as "all": a warm-up apart): CPU ms summed
    over the steps, purchases summed, and their quotient. A key not read in every step is None.
    ``weights``: the learners' configured mix (BUY_WEIGHT, PAY_WEIGHT), said beside the
    measured one."""
    used: dict[str, float | None] = {}
    for key in KEYS:
        values = [(row.get("cpu_ms") or {}).get(key) for row in rows]
        read = [value for value in values if value is not None]
        used[key] = round(sum(read), 1) if values and len(read) == len(values) else None
    free = sum((row.get("purchases_by_kind") or {}).get("free", 0) for row in rows)
    paid = sum((row.get("purchases_by_kind") or {}).get("paid", 0) for row in rows)
    mix: dict[str, int | None] = {"free": free, "paid": paid}
    if weights:
        mix["buy_weight"], mix["pay_weight"] = weights.get("buy"), weights.get("pay")
    return {
        "purchases": free + paid,
        "mix": mix,
        "seconds": round(sum(step_seconds(row) or 0 for row in rows), 1),
        "cpu_ms": used,
        "cpu_ms_per_purchase": per_purchase(used, free + paid),
    }


def calibrated(
    per_purchase: Mapping[str, float | None], sitting: calibration.Sitting | None
) -> dict[str, float | None]:
    """Each key's CPU per purchase in calibration units ("cal"): its ms over the calibration's;
    None where either is missing."""
    ms = sitting["ms"] if sitting else None
    return {key: calibration.in_units(value, ms) for key, value in per_purchase.items()}


def calibrated_words(summary: Summary) -> str | None:
    """The services' CPU per purchase in calibration units and the unit in words: "2.31 cal per
    purchase for the services; 1 cal = 4.41 ms of CPU (4.36 ms before, 4.46 ms after: +2.3 %)",
    before and after the load; None for a run without a calibration (older runs)."""
    sitting = summary.get("calibration")
    if sitting is None:
        return None
    services = (summary.get("cpu_cal_per_purchase") or {}).get("services")
    per_purchase = "" if services is None else f"{services:g} cal per purchase for the services; "
    return per_purchase + calibration.described(sitting)


def mix_words(mix: dict) -> str:
    """ "1020 free and 20 paid purchases (BUY_WEIGHT 50 : PAY_WEIGHT 1)"."""
    text = f"{mix.get('free', 0)} free and {mix.get('paid', 0)} paid purchases"
    if mix.get("buy_weight") is not None:
        text += f" (BUY_WEIGHT {mix['buy_weight']} : PAY_WEIGHT {mix['pay_weight']})"
    return text


def machine_cores(summary: Summary, row: Mapping[str, Any] | None = None) -> int | None:
    """The cores the machine figures are out of: every kernel's the hosts' agents read
    (READINGS_HOSTS), else the Locust host's own (the stack ran beside it)."""
    rows = [row] if row is not None else summary.get("steps", [])
    read = max((r.get("machine_cores") or 0 for r in rows), default=0)
    return read or ((summary.get("provenance") or {}).get("host") or {}).get("cores")
