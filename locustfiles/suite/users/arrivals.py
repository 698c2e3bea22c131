"""Open-model users: each one repeatedly takes the next arrival of the plan, sleeps until it
is due, then runs the learner's journey. Arrivals no user could start in time are counted
as missed by the step they belonged to. Each request of a journey carries its arrival's
schedule in the request event's context, so the recorder measures the purchase's latency from
the arrival's due time too (core/plan.py's ArrivalSchedule)."""

import time
from typing import TYPE_CHECKING

import gevent
from locust import User, constant
from locust.exception import StopUser

from locustfiles.suite.core.plan import ArrivalSchedule

SCHEDULE = "schedule"  # the request context's key for the arrival's ArrivalSchedule


if TYPE_CHECKING:  # what it is mixed into (learners.py): a Locust user, whose context() it extends
    _User = User
else:  # at run time a plain mixin, so that Locust does not take it for a user class
    _User = object


class ArrivalsMixin(_User):
    """Mix into a user class that defines ``journey(arrival)`` (``arrival``: the arrival's
    index in the whole plan); its only task is ``arrive``."""

    wait_time = constant(0)
    schedule: ArrivalSchedule | None = None  # the arrival whose journey runs now

    def context(self) -> dict:
        """Locust's request context of every request the user sends: the arrival's schedule
        while its journey runs."""
        found = super().context()
        return {**found, SCHEDULE: self.schedule} if self.schedule is not None else found

    def arrive(self):
        run = self.environment.suite
        clock = run.wait_for_clock()
        arrival, due, missed = clock.claim_arrival(time.time())
        if missed:
            run.recorder.missed(missed)
        if due is None or run.stopping:
            raise StopUser()
        # Asleep in short naps, so a stopping test never waits for arrivals that will not come;
        # on waking, the arrival's time is read again: a capacity search may have moved it.
        while True:
            while (remaining := due - time.time()) > 0:
                if run.stopping:
                    raise StopUser()
                gevent.sleep(min(remaining, 0.2))
            due = clock.due(arrival)
            if run.stopping or due is None:
                raise StopUser()
            if due <= time.time():
                break
        self.schedule = ArrivalSchedule(due)
        try:
            self.journey(arrival)
        finally:
            self.schedule = None
