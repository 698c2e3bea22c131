"""The simulated learner, as in edX's 2015 suite: a fresh learner logs in through /auto_auth
and buys a seat through the LMS; now and then one reads its order back.

Environment: COURSES (buy among the first N courses; 1 = one hot seat), WAIT_MIN/WAIT_MAX
(think time of the closed-model learner, 3-5 s as in 2015), BUY_WEIGHT/READ_WEIGHT (how often
each task runs).
"""

import os
import random
import time

from locust import FastHttpUser, between

from common.contract import paths
from common.contract.courses import free_seats
from locustfiles.suite import hooks  # noqa: F401  (registers the suite's events)
from locustfiles.suite.arrivals import ArrivalsMixin
from locustfiles.suite.provenance import load_settings

SETTINGS = load_settings(os.environ)  # the report's provenance states the same values
COURSES = [s.course_id for s in free_seats(SETTINGS["courses"])]
BUY_WEIGHT = SETTINGS["weights"]["buy"]
READ_WEIGHT = SETTINGS["weights"]["read"]
BASKET = paths.COMMERCE_BASKETS
ORDER = paths.COMMERCE_ORDERS + "[number]/"  # the name all order reads are counted under


class LearnerJourney(FastHttpUser):
    """What a learner does; the two user classes below decide when."""

    abstract = True
    last_order: str | None = None

    def buy_seat(self):
        self.client.cookiejar.clear()  # a new learner: a repeat purchase would be answered 409
        self.last_order = None
        login = self.client.get(paths.AUTO_AUTH, name=paths.AUTO_AUTH)
        if login.status_code != 201:
            return
        started = time.time()
        bought = self.client.post(
            BASKET,
            json={"course_id": random.choice(COURSES)},
            headers={"X-CSRFToken": login.json()["csrf_token"], "Referer": self.host + "/"},
            name=BASKET,
        )
        if bought.status_code in (201, 202):
            self.last_order = bought.json()["order"]["number"]
            run = getattr(self.environment, "suite", None)
            if run is not None:
                run.answered(self.last_order, started)

    def read_order(self):
        if self.last_order is None:
            return self.buy_seat()
        self.client.get(paths.commerce_order(self.last_order), name=ORDER)


class Learner(LearnerJourney):
    """Closed model: each user buys (or, READ_WEIGHT times in BUY_WEIGHT + READ_WEIGHT, reads
    its last order back), then thinks."""

    wait_time = between(SETTINGS["think_time"]["min_seconds"], SETTINGS["think_time"]["max_seconds"])
    tasks = {LearnerJourney.buy_seat: BUY_WEIGHT, LearnerJourney.read_order: READ_WEIGHT}


class ArrivingLearner(ArrivalsMixin, LearnerJourney):
    """Open model: a journey starts when the plan's next arrival is due, not when the last one
    ended. Every arrival is a purchase (the target RPM counts purchases), read back READ_WEIGHT
    times in BUY_WEIGHT."""

    tasks = [ArrivalsMixin.arrive]

    def journey(self):
        self.buy_seat()
        if self.last_order and random.random() < READ_WEIGHT / max(BUY_WEIGHT, 1):
            self.read_order()
