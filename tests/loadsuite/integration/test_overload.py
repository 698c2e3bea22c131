"""make overload against the load suite's real stack: both services limited to one request in
flight per worker, 20 purchases a second and a late enrollment API. The overload's parts without
the stack: tests/loadsuite/profiles/test_overload.py."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from locustfiles.suite.users import paid_journey
from tests.loadsuite.runs import ROOT, run


@pytest.mark.slow
def test_overload_against_the_stack_sheds_with_json_503s_and_leaves_nothing(stack_env):
    """Both services limited to one request in flight per worker, 20 purchases a second, and the
    enrollment API 100 ms late: some are refused, and the run sees them as refusals.

    The overlap is made certain, not left to chance. Each purchase holds its LMS worker's one
    slot for the whole chain, the late enrollment call included (that call is never refused
    itself), so at least 130 ms; with two workers of each service, 20 a second need about three
    slots where there are two. (A run in CI once refused nothing with the services as fast as
    they are now, and once more with the latency alone: the worker counts default to the cores,
    and CI has more cores than this machine, so they are pinned here.)"""
    try:
        code, folder, summary = run(
            stack_env,
            "overload",
            RPM=1200,
            DURATION=6,
            WARMUP_SECONDS=0,
            LMS_ADMISSION="in-flight",  # a count of one slot: certain to be exceeded
            ECOMMERCE_ADMISSION="in-flight",
            LMS_MAX_IN_FLIGHT=1,
            ECOMMERCE_MAX_IN_FLIGHT=1,
            LMS_FAULT_LATENCY_MS=100,
        )
    finally:  # the next tests find the services as the stack started them
        subprocess.run(
            [str(ROOT / "scripts/stack.sh"), "restart"], env=stack_env, capture_output=True, timeout=300
        )
    figures = summary["overload"]
    print(json.dumps(figures, indent=1), file=sys.stderr)
    assert summary["config"]["lms_max_in_flight"] == "1"
    assert summary["config"]["lms_fault_latency_ms"] == "100"
    assert summary["config"]["lms_workers"] == summary["config"]["ecommerce_workers"] == "2"
    # Something was shed, every failure was a JSON refusal, and none left an order.
    assert sum(figures["shed"].values()) > 0
    assert figures["unshed_failures"] == 0 and summary["overall"]["unshed"] == 0.0
    assert figures["orders_left_by_refusals"] == 0 and summary["audit"]["passed"]
    # Every order answered 2xx was counted as accepted (or as a paid order read back), and an
    # order without an answer is one whose payment had been taken when its journey was refused
    # (the read-back of a paid order may be refused: its order stands, paid and enrolled).
    audit = summary["audit"]
    assert audit["successes"] == figures["accepted"] + paid_reads(summary)
    assert audit["orders"] == audit["successes"] + audit["unanswered"]
    assert audit["unanswered"] <= figures["failed_after_payment"]
    assert "503 shed (" in Path(folder, "report.md").read_text()
    # Each shed request is set beside the machine's CPU in its own second, read all along.
    by_machine, points = summary["shed_by_machine"], summary["timeline"]["points"]
    assert by_machine["shed"] >= sum(figures["shed"].values()) and by_machine["unmeasured"] == 0
    read = [p["machine_cpu_percent"] for p in points if p["machine_cpu_percent"] is not None]
    assert len(read) >= len(points) - 2 and all(0 <= cpu <= 100 * by_machine["cores"] + 5 for cpu in read)
    assert code == (0 if summary["verdict"]["passed"] else 1)


def paid_reads(summary) -> int:
    read = summary["overall"]["endpoints"].get(paid_journey.ORDER_READ) or {}
    return read.get("statuses", {}).get("200", 0)
