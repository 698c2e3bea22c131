"""Admission control: a gunicorn worker takes new work only while it can still finish it in time.

Why. Both services run gevent workers: a worker accepts up to worker_connections requests and
runs all of them as greenlets on the one CPU its process gets. There is no queue in front of
the work, so past capacity nothing waits its turn: every request in flight gets a smaller share
of the CPU and all of them slow down together. By Little's law each takes the number in flight
divided by the throughput, and past capacity the throughput has stopped growing while the
number in flight keeps growing with the arrivals, until timeouts. Bounding the number in flight
bounds the time: at twice its capacity the full loop answered with a p95 of 3.5 s and 7 s
without a limit, and under 1 s with an in-flight limit of 4
(docs/decisions/0051-load-shedding-a-static-in.md); at 1.5 times its capacity under queue-delay,
0.6 s (issue 29).

So each worker decides, request by request, whether it can take new work, and while it cannot
it answers at once with 503 ``overloaded`` in the services' JSON error shape and Retry-After:
before the body is read, the learner is authenticated or the database is touched, so a refusal
costs well under a millisecond and writes nothing. The work already accepted keeps its share of
the CPU and ends in time; the caller may come back after Retry-After. Two policies decide
(<PREFIX>_ADMISSION; <PREFIX>_MAX_IN_FLIGHT=0 turns admission control off under either):

* ``queue-delay`` (the default): evidence of queueing. It refuses new work only while the
  worker's accepted work waits for the CPU: its loop has run late for a whole interval
  (common/queueing.py, CoDel's rule over the loop's lateness), whatever the count. gunicorn gives
  no arrival time to measure a request's wait from; the loop's lateness is that wait, seen from
  inside. Chosen by measurement (docs/decisions/0065-admission-by-evidence-of.md, issue 29): it
  refused nothing while the machine had more than 11 % of its CPU to spare but two purchases of
  one cold start, where the count refused in every warm-up and with 10 % idle. A worker's first
  seconds of work (common.queueing.WARM_SECONDS) are not judged: its loop runs late on what it does once.
* ``in-flight``: a static count. While the requests doing the worker's work fill its limit
  (LMS_MAX_IN_FLIGHT, ECOMMERCE_MAX_IN_FLIGHT) it refuses new work. Cheap and certain, but blind:
  a worker that is momentarily unlucky (gevent workers accept in a race, and kept-alive
  connections stay with the worker that won) refuses with the machine's CPU to spare.

What counts. Every request that came through the middleware, except while it waits on another
service (``waiting_on_another_service``: common.timing.outbound wraps the LMS's call to
ecommerce and ecommerce's calls to the enrollment API). A request waiting on another service
takes no CPU here. Counted, it would make the LMS shed whenever ecommerce is slow, and ecommerce
shed whenever the enrollment API is slow (chaos's lms_slow), where refusing saves nothing: the
other service bounds its own work, answers its own 503, and the caller passes it on.

What may be shed: new work, at the entry of a journey, and nothing else (the lists below).
Never shed, because it completes something already accepted:

* the LMS enrollment API: ecommerce calls it for an order it has already committed; a refusal
  would leave a paid-for or free order in Fulfillment Error for a retry to finish;
* ecommerce's payment notification: the learner has paid; refused, the processor would retry
  later and the learner would wait for a seat that is already paid for;
* the fulfilment retry (PUT /api/v2/orders/{number}/fulfill/): it finishes an order already placed;
* health checks: a load balancer would take a busy but working worker out of service and move
  its load onto the others, which are just as busy;
* everything not listed (the dashboard, the processor's stand-in, the fault API): staff and
  test tools, rare, and not where an overload comes from.

These still count toward the limit (they take CPU like any other request, and under ``queue-delay``
they make the loop late like any other), and they may take a worker past it: they only make new
work be refused sooner.
"""

import logging
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from django.core.exceptions import MiddlewareNotUsed
from django.http import JsonResponse

from common.contract import errors, paths
from common.environment import env_int, get
from common.queueing import Codel, LoopLag

logger = logging.getLogger(__name__)

# How often a worker that sheds says so in its log (seconds).
LOG_EVERY_SECONDS = 10.0
# The policies <PREFIX>_ADMISSION names: a static count, or evidence of queueing.
IN_FLIGHT, QUEUE_DELAY = "in-flight", "queue-delay"
POLICIES = (IN_FLIGHT, QUEUE_DELAY)
# How often a queue-delay worker with work in flight samples its loop's lateness (seconds):
# ten samples an interval (common/queueing.py says what a wake-up costs).
TICK_SECONDS = 0.010

_ONE_SEGMENT = r"[^/]+"


def _entries(*routes: tuple[str, str]) -> tuple[tuple[str, re.Pattern], ...]:
    """(method, full-path pattern) pairs; ``{}`` in a path stands for one path segment."""
    return tuple(
        (method, re.compile(re.escape(path).replace(re.escape("{}"), _ONE_SEGMENT)))
        for method, path in routes
    )


# New work at the LMS: a new learner's session, a purchase, an order read.
LMS_SHEDDABLE = _entries(
    ("GET", paths.AUTO_AUTH),
    ("POST", paths.AUTO_AUTH),
    ("POST", paths.COMMERCE_BASKETS),
    ("GET", paths.COMMERCE_ORDERS + "{}/"),
)
# New work at ecommerce: a purchase (the LMS's, or a paid checkout made directly), an order read.
ECOMMERCE_SHEDDABLE = _entries(
    ("POST", paths.BASKETS),
    ("GET", paths.BASKETS + "{}/order/"),
    ("GET", paths.ORDERS),
    ("GET", paths.ORDERS + "{}/"),
)


def sheddable(entries: tuple[tuple[str, re.Pattern], ...], method: str, path: str) -> bool:
    """Whether a request of ``method`` to ``path`` is new work that may be refused."""
    return any(method == m and pattern.fullmatch(path) for m, pattern in entries)


class InFlight:
    """The requests doing one worker process's work, and its limit for new work.

    One per worker process (per middleware instance). A request admitted holds a slot until it
    ends, and gives it back while it waits on another service. Under gevent the counter is
    touched by one thread only and a greenlet never switches inside these methods; the lock is
    for thread-based workers.
    """

    def __init__(self, limit: int):
        if limit < 0:
            raise ValueError("the in-flight limit is 0 (off) or more")
        self.limit = limit
        self.busy = 0
        self.admitted = 0
        self.shed = 0
        self._lock = threading.Lock()

    def admit(self, may_shed: bool) -> bool:
        """Take a slot, unless the request is new work and the slots are full (then it is
        refused, and counted as shed)."""
        with self._lock:
            if may_shed and self.limit and self.busy >= self.limit:
                self.shed += 1
                return False
            self.busy += 1
            self.admitted += 1
            return True

    def give_back(self) -> None:
        with self._lock:
            self.busy -= 1

    def take_again(self) -> None:
        """The request resumes its work (never refused: it was admitted)."""
        with self._lock:
            self.busy += 1

    def state(self) -> str:
        """What the log says of the worker when it sheds."""
        return f"{self.busy} in flight, limit {self.limit}"


class QueueDelay(InFlight):
    """Refuses new work only while the worker's accepted work waits for the CPU
    (common.queueing: its loop ran late for a whole interval); counts what is in flight as
    InFlight does, with no limit on the count."""

    def __init__(self, lag: LoopLag):
        super().__init__(0)
        self.lag = lag

    def admit(self, may_shed: bool) -> bool:
        self.lag.start()
        with self._lock:
            if may_shed and self.lag.gate.queueing and not self.lag.warming:
                self.shed += 1
                return False
            self.busy += 1
            self.admitted += 1
        self.lag.wanted.set()
        return True

    def give_back(self) -> None:
        super().give_back()
        if not self.busy:
            self.lag.wanted.clear()

    def take_again(self) -> None:
        super().take_again()
        self.lag.wanted.set()

    def state(self) -> str:
        gate = self.lag.gate
        return (
            f"{self.busy} in flight, the loop {self.lag.worst * 1000:.0f} ms late "
            f"(target {gate.target * 1000:.0f} ms for {gate.interval * 1000:.0f} ms)"
        )


def policy(prefix: str, limit: int) -> InFlight:
    """The admission policy <PREFIX>_ADMISSION names, for one worker."""
    name = get(f"{prefix}_ADMISSION")
    if name == IN_FLIGHT:
        return InFlight(limit)
    if name == QUEUE_DELAY:
        gate = Codel(
            env_int(f"{prefix}_QUEUE_TARGET_MS") / 1000, env_int(f"{prefix}_QUEUE_INTERVAL_MS") / 1000
        )
        return QueueDelay(LoopLag(gate, TICK_SECONDS))
    raise ValueError(f"{prefix}_ADMISSION is {name!r}; one of {', '.join(POLICIES)}")


class Slot:
    """One admitted request's hold on its worker's InFlight."""

    __slots__ = ("in_flight", "held")

    def __init__(self, in_flight: InFlight):
        self.in_flight, self.held = in_flight, True

    def pause(self) -> bool:
        if not self.held:
            return False
        self.in_flight.give_back()
        self.held = False
        return True

    def resume(self) -> None:
        if not self.held:
            self.in_flight.take_again()
            self.held = True

    def release(self) -> None:
        if self.held:
            self.in_flight.give_back()
            self.held = False


_slot: ContextVar[Slot | None] = ContextVar("admission_slot", default=None)


@contextmanager
def waiting_on_another_service() -> Iterator[None]:
    """The current request waits on another service inside: it does not count toward its
    worker's limit meanwhile (a no-op outside a request, or when shedding is off)."""
    slot = _slot.get()
    paused = slot.pause() if slot is not None else False
    try:
        yield
    finally:
        if paused and slot is not None:
            slot.resume()


def overloaded() -> JsonResponse:
    """The refusal: 503 ``overloaded`` in the JSON error shape, with Retry-After."""
    response = JsonResponse(errors.OVERLOADED.body(), status=errors.OVERLOADED.status)
    response["Retry-After"] = errors.RETRY_AFTER_SECONDS
    return response


class AdmissionMiddleware:
    """Refuses new work while this worker's policy says it cannot take it (the module's
    docstring). Each service installs its subclass first in MIDDLEWARE, so a refusal runs no
    other middleware: no session, no authentication, no database."""

    prefix = ""  # the service's prefix in the table (common/environment)
    entries: tuple[tuple[str, re.Pattern], ...] = ()

    def __init__(self, get_response, limit: int | None = None):
        limit = env_int(self.variable) if limit is None else limit
        if not limit:
            raise MiddlewareNotUsed
        self.get_response = get_response
        self.in_flight = policy(self.prefix, limit)
        self._logged_at = time.monotonic()
        self._logged_shed = 0

    @property
    def variable(self) -> str:
        return f"{self.prefix}_MAX_IN_FLIGHT"

    def __call__(self, request):
        if not self.in_flight.admit(sheddable(self.entries, request.method, request.path_info)):
            self._log_now_and_then()
            return overloaded()
        slot = Slot(self.in_flight)
        token = _slot.set(slot)
        try:
            return self.get_response(request)
        finally:
            _slot.reset(token)
            slot.release()

    def _log_now_and_then(self) -> None:
        now = time.monotonic()
        if now - self._logged_at >= LOG_EVERY_SECONDS:
            shed = self.in_flight.shed - self._logged_shed
            logger.warning(
                "overloaded: %s requests refused (503) in the last %.0f s; %s (%s_ADMISSION)",
                shed,
                now - self._logged_at,
                self.in_flight.state(),
                self.prefix,
            )
            self._logged_at, self._logged_shed = now, self.in_flight.shed


class LmsAdmission(AdmissionMiddleware):
    prefix = "LMS"
    entries = LMS_SHEDDABLE


class EcommerceAdmission(AdmissionMiddleware):
    prefix = "ECOMMERCE"
    entries = ECOMMERCE_SHEDDABLE
