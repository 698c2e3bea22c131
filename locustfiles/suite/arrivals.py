"""Open-model users: each one repeatedly takes the next arrival of the plan, sleeps until it
is due, then runs the learner's journey. Arrivals no user could start in time are counted
as missed by the step they belonged to."""

import time

import gevent
from locust import constant
from locust.exception import StopUser

from locustfiles.suite import hooks


class ArrivalsMixin:
    """Mix into a user class that defines ``journey()``; its only task is ``arrive``."""

    wait_time = constant(0)

    def arrive(self):
        clock = hooks.wait_for_clock()
        due, missed = clock.claim(time.time())
        if missed:
            hooks.STATE.recorder.missed(missed)
        if due is None or hooks.STATE.stopping:
            raise StopUser()
        # Asleep in short naps, so a stopping test never waits for arrivals that will not come.
        while (remaining := due - time.time()) > 0:
            if hooks.STATE.stopping:
                raise StopUser()
            gevent.sleep(min(remaining, 0.2))
        if hooks.STATE.stopping:
            raise StopUser()
        self.journey()
