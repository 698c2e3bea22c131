"""The simulated learner, as in edX's 2015 suite: a fresh learner logs in through /auto_auth
and buys a seat, the free one through the LMS or, now and then, the paid one through the payment
processor (edX's 50 : 1); now and then one reads its order back.

Environment: COURSES (buy among the first N courses; 1 = one hot seat), WAIT_MIN/WAIT_MAX
(think time of the closed-model learner, 3-5 s as in 2015; read at its first wait, never by an
open model's run), BUY_WEIGHT/PAY_WEIGHT/READ_WEIGHT
(free purchases : paid ones : reads, 50 : 1 : 5; locustfiles/suite/core/learner_settings.py). The
paid journey signs the learner's token for ecommerce as edX's client did: JWT_SECRET_KEY,
JWT_ISSUER and ECOMMERCE_URL (locustfiles/suite/users/paid_journey.py).
"""

import functools
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlencode

from locust import FastHttpUser
from locust.contrib.fasthttp import FastHttpSession

from common.contract import paths
from common.contract.courses import PAID_MODE, catalogue, free_seats
from locustfiles.suite.core.learner_settings import mix_settings, paid_arrival, read_share, think_time
from locustfiles.suite.run import hooks  # noqa: F401  (registers the suite's events)
from locustfiles.suite.users import paid_journey as paid
from locustfiles.suite.users.arrivals import ArrivalsMixin

PAYING = paid.Config(os.environ)
BASKET = paths.COMMERCE_BASKETS
ORDER = paths.COMMERCE_ORDERS + "[number]/"  # the name all order reads are counted under
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


@dataclass(frozen=True)
class Mix:
    """What the learners buy among and how often they take each journey (mix_settings)."""

    weights: dict[str, int]
    courses: list[str]  # the free seats' course ids
    paid_skus: list[str]

    @classmethod
    def of(cls, settings: dict) -> "Mix":
        courses = settings["courses"]
        return cls(
            settings["weights"],
            [s.course_id for s in free_seats(courses)],
            [s.sku for s in catalogue(courses, (PAID_MODE,))],
        )


SETTINGS = mix_settings(os.environ)  # the report's provenance states the same values


def thinking(env) -> Callable:
    """A closed-model learner's wait_time: Locust's between(WAIT_MIN, WAIT_MAX) of ``env``, read
    at the first wait. Every locustfile imports this module, an open model's too, whose learners
    never wait: its run does not read them (a run checks them before it starts: run/cli.py)."""

    @functools.cache
    def seconds() -> tuple[float, float]:
        think = think_time(env)
        return think["min_seconds"], think["max_seconds"]

    def wait_time(_user) -> float:
        low, high = seconds()
        return random.uniform(low, high)

    return wait_time


class LearnerJourney(FastHttpUser):
    """What a learner does; the two user classes below decide when."""

    abstract = True
    last_order: str | None = None
    mix = Mix.of(SETTINGS)

    def __init__(self, environment):
        super().__init__(environment)
        # The paid journey's calls to ecommerce, as edX's client made them: a client of their
        # own, which never sends the LMS's cookies (on one host the two services' cookies would
        # mix: cookies ignore the port, and ecommerce deletes a session cookie it cannot read).
        self.ecommerce = FastHttpSession(
            PAYING.ecommerce_url,
            self.environment.events.request,
            self,
            network_timeout=self.network_timeout,
            connection_timeout=self.connection_timeout,
            client_pool=self.client_pool,
        )

    def log_in(self) -> dict | None:
        """A new learner (a repeat purchase would be answered 409): /auto_auth's answer."""
        self.client.cookiejar.clear()
        self.ecommerce.cookiejar.clear()
        self.last_order = None
        login = self.client.get(paths.AUTO_AUTH, name=paths.AUTO_AUTH)
        return login.json() if login.status_code == 201 else None

    def answered(self, number: str, started: float) -> None:
        self.last_order = number
        run = getattr(self.environment, "suite", None)
        if run is not None:
            run.answered(number, started)

    def buy_seat(self):
        learner = self.log_in()
        if learner is None:
            return
        started = time.time()
        bought = self.client.post(
            BASKET,
            json={"course_id": random.choice(self.mix.courses)},
            headers={"X-CSRFToken": learner["csrf_token"], "Referer": self.host + "/"},
            name=BASKET,
        )
        if bought.status_code in (201, 202):
            self.answered(bought.json()["order"]["number"], started)

    def pay_for_seat(self):
        """The paid seat: checkout at ecommerce, the processor's hosted page, Pay, the order."""
        learner = self.log_in()
        if learner is None:
            return
        jwt = PAYING.headers(learner)
        if self.ecommerce.get(paid.PROCESSORS, headers=jwt, name=paid.PROCESSORS).status_code != 200:
            return
        started = time.time()
        body = paid.basket_body(random.choice(self.mix.paid_skus))
        checkout = self.ecommerce.post(paid.BASKET, json=body, headers=jwt, name=paid.BASKET)
        if checkout.status_code != 201 or not checkout.json().get("payment_data"):
            return
        payment = checkout.json()["payment_data"]
        form, page_url = payment["payment_form_data"], payment["payment_page_url"]
        number = form["reference_number"]
        with self.client.post(
            page_url, data=urlencode(form), headers=FORM, name=paid.PAY_PAGE, catch_response=True
        ) as page:
            pay = paid.press(page.text, page_url, paid.PAY_BUTTON) if page.status_code == 200 else None
            if page.status_code == 200 and pay is None:
                page.failure("the payment page has no Pay button")
        if pay is None:
            return
        action, fields = pay
        with self.client.post(
            action, data=urlencode(fields), headers=FORM, name=paid.PAY_CONFIRM, catch_response=True
        ) as confirmed:
            if confirmed.status_code != 200:
                return
            receipt = paid.receipt(confirmed.text)
            if not receipt.taken:
                confirmed.failure(f"{receipt.decision}; ecommerce answered HTTP {receipt.notify_status}")
                return
        order = self.ecommerce.get(paths.order(number), headers=jwt, name=paid.ORDER_READ)
        if order.status_code == 200:
            self.answered(number, started)

    def read_order(self):
        if self.last_order is None:
            return self.buy_seat()
        self.client.get(paths.commerce_order(self.last_order), name=ORDER)


def weighted_tasks(weights: dict[str, int]) -> dict:
    """The closed model's tasks, weighted BUY_WEIGHT : PAY_WEIGHT : READ_WEIGHT."""
    return {
        LearnerJourney.buy_seat: weights["buy"],
        LearnerJourney.pay_for_seat: weights["pay"],
        LearnerJourney.read_order: weights["read"],
    }


class Learner(LearnerJourney):
    """Closed model: each user buys a free seat, pays for a seat or reads its last order back
    (BUY_WEIGHT : PAY_WEIGHT : READ_WEIGHT), then thinks."""

    wait_time = thinking(os.environ)
    tasks = weighted_tasks(SETTINGS["weights"])


class ArrivingLearner(ArrivalsMixin, LearnerJourney):
    """Open model: a journey starts when the plan's next arrival is due, not when the last one
    ended. Every arrival is a purchase (the target RPM counts purchases): PAY_WEIGHT of every
    BUY_WEIGHT + PAY_WEIGHT arrivals pay for their seat, the others buy a free one; a purchase
    is read back READ_WEIGHT times in BUY_WEIGHT + PAY_WEIGHT."""

    tasks = [ArrivalsMixin.arrive]

    def journey(self, arrival: int):
        if paid_arrival(arrival, self.mix.weights):
            self.pay_for_seat()
        else:
            self.buy_seat()
        if self.last_order and random.random() < read_share(self.mix.weights):
            self.read_order()


def configured(env) -> tuple[type[LearnerJourney], type[ArrivingLearner]]:
    """Learner and ArrivingLearner with the think time, mix and courses ``env`` sets: what the
    web UI's start form runs (run/start_form.py), as a locustfile run with that environment
    would. ValueError names a setting that cannot be used (the think time, only a closed-model
    run reads: the form checks it first, with run/admission.admit)."""
    settings = mix_settings(env)
    mix = Mix.of(settings)
    # Locust adds a class's tasks to its bases': the closed model's class is made beside Learner,
    # not under it, so that its weights are the only ones.
    closed = type(
        "Learner",
        (LearnerJourney,),
        {
            "__module__": __name__,
            "__doc__": Learner.__doc__,
            "mix": mix,
            "wait_time": thinking(env),
            "tasks": weighted_tasks(settings["weights"]),
        },
    )
    arriving = type("ArrivingLearner", (ArrivingLearner,), {"__module__": __name__, "mix": mix})
    return closed, arriving
