"""Playing the faults during a run and tidying up after it: the greenlet that injects each
step's fault at its time, the undo of whatever a run stopped early left broken, and the retry
of every order the faults left unfulfilled, as an operator would run it."""

import os

from locustfiles.suite.chaos.event import Event
from locustfiles.suite.chaos.faults import FAULTS
from locustfiles.suite.chaos.stack import Stack
from locustfiles.suite.chaos.timing import fault_window, sleep_until
from locustfiles.suite.core.summary import RetryFulfillment
from locustfiles.suite.stack import commands


def drive(plan, t0: float, events: dict[int, Event], stack: Stack | None = None) -> None:
    """Inject each step's fault at its time (run as a greenlet by the process that keeps the
    results). A fault that cannot be injected is undone and recorded as the step's error."""
    stack = stack or Stack()
    for step in plan.steps:
        if not step.fault:
            continue
        lead, length = fault_window(step.seconds)
        sleep_until(t0 + step.start + lead)
        event = events.setdefault(step.index, Event(step.fault))
        fault = FAULTS[step.fault]
        try:
            fault.inject(stack, event, length)
        except Exception as exc:  # the check of this step fails and says why
            event.error = f"{type(exc).__name__}: {exc}"[:300]
            _quietly(fault.undo, stack)


def clear_all(stack: Stack | None = None) -> None:
    """Make sure nothing stays broken after a run that stopped early: every distinct undo once
    (the LMS faults share theirs)."""
    stack = stack or Stack()
    for fault in {type(fault).undo: fault for fault in FAULTS.values()}.values():
        _quietly(fault.undo, stack)


def _quietly(function, *args) -> None:
    try:
        function(*args)
    except Exception:
        pass


def retry_all(env=None) -> RetryFulfillment:
    """retry_fulfillment --all against the stack's database, with every Open order treated as
    stale (the run is over: no fulfilment is still running)."""
    run_env = {**(env if env is not None else os.environ), "STALE_OPEN_ORDER_SECONDS": "0"}
    done = commands.run("ecommerce", "retry_fulfillment", "--all", env=run_env, timeout=600)
    lines = done.stdout.strip().splitlines()
    return {"exit_code": done.returncode, "summary": lines[-1] if lines else done.stderr.strip()[-300:]}
