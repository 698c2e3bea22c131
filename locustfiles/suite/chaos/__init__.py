"""The chaos profile: one fault per step, injected under a steady open-model load, each judged
against the outcome it must have.

A step of PHASE_SECONDS runs the load undisturbed for its first part (the lead), injects its
fault for FAULT_SECONDS, then clears it and watches the service recover. The faults:

    lms_down     the LMS enrollment API answers 503 (an outage window of lms_stub's faults)
    lms_slow     the enrollment API answers later than ecommerce's fulfilment timeout
    db_restart   MariaDB is stopped, then started again (scripts/mysql.sh)
    worker_kill  the ecommerce gunicorn worker with the most client connections gets SIGKILL
                 (the LMS answers in up to 3 s meanwhile, so orders are caught mid-fulfilment)
    duplicates   one learner sends 20 purchases with one Idempotency-Key at once, another
                 sends the same purchase twice without a key
    notify_twice the processor sends a payment's notification twice: one copy after the
                 other, and two at the same moment
    notify_late  the notification comes late, after the basket was abandoned: the learner
                 went away (the order is placed), or paid the seat again through another
                 basket (a refund is owed, nothing placed)

After the run every order left in Fulfillment Error (or Open by a killed worker) is retried
(retry_fulfillment --all), then the audit counts what was lost, duplicated or left partial.

The parts: faults (one class per fault and the registry FAULTS), driver (plays them during
the run, undoes and retries after it), judge (checks, recovery, the reliability rows), buyer
(the second client, for the duplicates, and the processor, for the payment faults), stack (the
handles a fault pulls), timing.
"""

from locustfiles.suite.chaos.driver import clear_all, drive, retry_all
from locustfiles.suite.chaos.event import Event
from locustfiles.suite.chaos.faults import FAULTS, Fault, register
from locustfiles.suite.chaos.judge import checks, recovery_seconds, reliability_rows
from locustfiles.suite.chaos.timing import fault_window, users_budget_seconds

__all__ = [
    "FAULTS",
    "Event",
    "Fault",
    "checks",
    "clear_all",
    "drive",
    "fault_window",
    "recovery_seconds",
    "register",
    "reliability_rows",
    "retry_all",
    "users_budget_seconds",
]
