"""Evidence that a worker's accepted work is waiting: how late its loop runs what is due.

A gevent worker has no queue in front of its work that one could measure a wait in: every
accepted request is a greenlet, and a greenlet that can go on (its database answer has come)
waits until the ones ahead of it give the CPU back, then until the kernel gives the process a
core. That wait is what past-capacity latency is made of, and it is what a timer sees: a
greenlet that sleeps ``tick`` seconds wakes late by the time the runnable greenlets ahead of it
took, plus the time the process waited for a core. An idle or moderately busy worker wakes on
time between bursts; a worker whose CPU (or the machine's) is oversubscribed never does.

``LoopLag`` samples that lateness from a daemon thread (a greenlet once gevent has patched
``threading``; a real thread in a sync worker, where it measures the wait for the GIL and a core
instead), while the worker has work in flight: a wake-up costs about 0.13 ms of CPU on this
project's VM, so sampling every 10 ms costs an idle worker nothing and a busy one about 1 % of
its CPU. ``Codel`` judges the samples as CoDel judges a packet queue's sojourn times (Nichols
and Jacobson, "Controlling Queue Delay", 2012): a burst is a good queue and passes; the worker
is queueing only once *every* sample for a whole ``interval`` was above ``target``, and stops
being so at the first sample below it. common.shedding refuses new work while it is.

What it does not see: a request waiting for a pooled connection or on MariaDB takes no CPU here
and leaves the loop on time. Those waits have bounds of their own (DB_POOL_TIMEOUT answers
``503 pool_exhausted``; innodb_lock_wait_timeout), and waiting on another service is the other
service's to bound (common.shedding's "What counts").

Standard library only; nothing here knows about requests.
"""

import threading
import time
from collections.abc import Callable

# A worker's first seconds of work are not judged: its loop runs late on what it does once (the
# first imports of its views, its first connections, the first statements MariaDB prepares),
# not on queued work. A capacity run's warm-up refused two purchases so at 92 % of the machine.
WARM_SECONDS = 2.0


class Codel:
    """CoDel's rule over delay samples: queueing once every sample for ``interval`` seconds
    was at or above ``target`` seconds; not queueing from the first sample below it."""

    def __init__(self, target: float, interval: float):
        if target <= 0 or interval <= 0:
            raise ValueError("the queueing target and interval are positive")
        self.target, self.interval = target, interval
        self.above_since: float | None = None
        self.queueing = False

    def observe(self, delay: float, now: float) -> bool:
        """Take one sample taken at ``now`` (monotonic seconds); whether the worker queues."""
        if delay < self.target:
            self.above_since, self.queueing = None, False
        elif self.above_since is None:
            self.above_since = now
        elif now - self.above_since >= self.interval:
            self.queueing = True
        return self.queueing


class LoopLag:
    """Samples how late a sleep of ``tick`` seconds wakes, into ``gate``, while ``wanted`` is
    set, from the first ``start()`` on (lazily: a gunicorn worker calls it at its first request,
    after the fork and gevent's patching)."""

    def __init__(
        self,
        gate: Codel,
        tick: float,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.gate, self.tick = gate, tick
        self._clock, self._sleep = clock, sleep
        self.samples = 0
        self.last = 0.0  # the latest sample, seconds late
        self.worst = 0.0  # the latest sample taken while queueing, for the log
        self.wanted = threading.Event()  # set while the worker has work in flight
        self._started = False
        self.started_at: float | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        if self._started:
            return
        with self._lock:
            if not self._started:
                self.started_at = self._clock()
                threading.Thread(target=self._run, name="loop-lag", daemon=True).start()
                self._started = True

    @property
    def warming(self) -> bool:
        """Within WARM_SECONDS of the worker's first work (not judged: see WARM_SECONDS)."""
        return self.started_at is None or self._clock() - self.started_at < WARM_SECONDS

    def sample(self) -> bool:
        """One tick: sleep, measure how late it woke, judge it; whether the worker queues."""
        due = self._clock() + self.tick
        self._sleep(self.tick)
        now = self._clock()
        self.last = max(0.0, now - due)
        self.samples += 1
        queueing = self.gate.observe(self.last, now)
        if queueing:
            self.worst = self.last
        return queueing

    def _run(self) -> None:
        while True:
            if not self.wanted.is_set():
                self.gate.observe(0.0, self._clock())  # an idle worker does not queue
                self.wanted.wait()
            self.sample()
