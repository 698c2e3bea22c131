"""How long a fault lasts inside its step, and how long a request may take under one."""

import time

import gevent

from common.environment import get

# Seconds an order request may take beyond ecommerce's fulfilment timeout (its own two
# transactions, the LMS's share, queueing under load).
TIMEOUT_SLACK = 3.0


def fulfilment_timeout() -> float:
    """ecommerce's LMS_ENROLLMENT_TIMEOUT as the stack runs it."""
    return get("LMS_ENROLLMENT_TIMEOUT")


def users_budget_seconds() -> float:
    """How long a journey may take under a fault: users enough for every arrival while the
    LMS is slower than the timeout."""
    return fulfilment_timeout() + TIMEOUT_SLACK + 2


def fault_window(phase_seconds: int, env: dict | None = None) -> tuple[int, int]:
    """(lead, length) of the fault inside a step: FAULT_SECONDS of ``env`` (os.environ; default
    a quarter of the step, at least 2 s), starting after a fifth of the step (at least 2 s).
    A FAULT_SECONDS that is no whole number raises BadSetting, a ValueError."""
    lead = max(2, phase_seconds // 5)
    length = get("FAULT_SECONDS", env)
    if length is None:
        length = max(2, phase_seconds // 4)
    return lead, max(1, min(length, phase_seconds - lead - 2))


def sleep_until(moment: float) -> None:
    """Yield to the load's greenlets until the Unix time `moment` (at once if it has passed)."""
    gevent.sleep(max(0.0, moment - time.time()))
