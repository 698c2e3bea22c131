"""Exact per-step statistics from Locust's request events.

Every process that runs users (the local runner, or each Locust worker) records its requests
by the whole second they started in, per endpoint: an exact histogram, failures and status
codes. In an open-model run the order endpoint's latency is also measured from its arrival's
due time (core/plan.py's ArrivalSchedule), into a second histogram kept by the whole second the
arrival was due in, so it folds into the step the arrival belonged to. It also notes arrivals
it had to skip (open model) and the order numbers the service answered with 2xx. A worker
hands all of that to the master every few seconds and forgets it; the master folds each
second into the plan's step it falls in. So the master's memory grows
with the number of steps, not with the length of the run, and the numbers are the same
whether one process or many ran the users.
"""

import math
from collections import Counter, defaultdict

from locustfiles.suite.core import refusals
from locustfiles.suite.core.histogram import Histogram, to_ms
from locustfiles.suite.core.names import DEGRADED_STATUS, ORDER_ENDPOINT
from locustfiles.suite.core.plan import ArrivalSchedule, Plan

EXAMPLES = 3
TIMELINE_POINTS = 720  # at most; the timeline's buckets double in length past that


class EndpointStats:
    __slots__ = (
        "histogram",
        "accepted",
        "from_schedule",
        "failures",
        "statuses",
        "refusals",
        "timing_ms",
        "timed",
    )

    def __init__(self):
        self.histogram = Histogram()
        self.accepted = Histogram()  # the 2xx answers only: what a refusal's speed cannot flatter
        # Open model: latency from the arrival's due time, kept by the second it was due in.
        self.from_schedule = Histogram()
        self.failures = 0
        self.statuses: Counter[int] = Counter()
        # Failures answered as a JSON 503 or 429, by "status code" (refusals.py).
        self.refusals: Counter[str] = Counter()
        # The services' Server-Timing entries: milliseconds summed, and answers that had each.
        self.timing_ms: Counter[str] = Counter()
        self.timed: Counter[str] = Counter()

    def record(
        self,
        value_ms: int,
        ok: bool,
        status: int,
        server_timing: dict[str, float] | None = None,
        refusal: str | None = None,
    ) -> None:
        self.histogram.add(value_ms)
        if ok and 200 <= status < 300:
            self.accepted.add(value_ms)
        if not ok:
            self.failures += 1
            if refusal:
                self.refusals[f"{status} {refusal}"] += 1
        self.statuses[status] += 1
        if server_timing:
            self.timing_ms.update(server_timing)
            self.timed.update(server_timing.keys())

    def merge(self, other: "EndpointStats") -> None:
        self.histogram.merge(other.histogram)
        self.accepted.merge(other.accepted)
        self.from_schedule.merge(other.from_schedule)
        self.failures += other.failures
        self.statuses.update(other.statuses)
        self.refusals.update(other.refusals)
        self.timing_ms.update(other.timing_ms)
        self.timed.update(other.timed)

    def timing_means(self) -> dict[str, float]:
        """Mean milliseconds of each Server-Timing entry, over the answers that carried it."""
        return {name: round(self.timing_ms[name] / n, 1) for name, n in sorted(self.timed.items())}

    def to_dict(self) -> dict:
        found = {
            "histogram": self.histogram.to_dict(),
            "accepted": self.accepted.to_dict(),
            "failures": self.failures,
            "statuses": {str(k): v for k, v in self.statuses.items()},
            "refusals": dict(self.refusals),
            "timing_ms": dict(self.timing_ms),
            "timed": dict(self.timed),
        }
        if self.from_schedule.total:  # open model, the order endpoint: else nothing to send
            found["from_schedule"] = self.from_schedule.to_dict()
        return found

    @classmethod
    def from_dict(cls, data: dict) -> "EndpointStats":
        stats = cls()
        stats.histogram = Histogram.from_dict(data["histogram"])
        stats.accepted = Histogram.from_dict(data.get("accepted", {}))
        stats.from_schedule = Histogram.from_dict(data.get("from_schedule", {}))
        stats.failures = data["failures"]
        stats.statuses = Counter({int(k): v for k, v in data["statuses"].items()})
        stats.refusals = Counter(data.get("refusals", {}))
        stats.timing_ms = Counter(data.get("timing_ms", {}))
        stats.timed = Counter(data.get("timed", {}))
        return stats


class StepStats:
    def __init__(self):
        self.endpoints: dict[str, EndpointStats] = defaultdict(EndpointStats)
        self.missed = 0
        # The first and last whole seconds in which a request failed or an order was answered
        # without its enrollment (202): how long a fault disturbed the learners.
        self.degraded_from: int | None = None
        self.degraded_to: int | None = None

    def note_degraded(self, second: int) -> None:
        self.degraded_from = second if self.degraded_from is None else min(self.degraded_from, second)
        self.degraded_to = second if self.degraded_to is None else max(self.degraded_to, second)


class Timeline:
    """The whole run second by second (or in longer buckets when it is long): requests,
    failures and shed requests of every endpoint, a histogram of the order endpoint, the users
    running and, where the keeper reads it, how busy the machine's cores were. Buckets double in
    length whenever there would be more than ``limit`` of them, so a 64-hour soak keeps as many
    points as a minute's smoke."""

    SUMS = ("requests", "failures", "shed", "machine_busy", "machine_wall")

    def __init__(self, endpoint: str, limit: int = TIMELINE_POINTS):
        self.endpoint, self.limit = endpoint, limit
        self.bucket_seconds = 1
        self.buckets: dict[int, dict] = {}
        self._machine_read: tuple[float, float] | None = None  # (offset, busy seconds) last read

    @classmethod
    def _empty(cls) -> dict:
        return {**dict.fromkeys(cls.SUMS, 0), "histogram": Histogram(), "users": 0}

    def _bucket(self, offset: int) -> dict:
        key = offset - offset % self.bucket_seconds
        if key not in self.buckets:
            self.buckets[key] = self._empty()
            if len(self.buckets) > self.limit:
                self._coarsen()
                return self._bucket(offset)
        return self.buckets[key]

    def _coarsen(self) -> None:
        self.bucket_seconds *= 2
        old, self.buckets = self.buckets, {}
        for offset, bucket in sorted(old.items()):
            merged = self.buckets.setdefault(offset - offset % self.bucket_seconds, self._empty())
            for key in self.SUMS:
                merged[key] += bucket[key]
            merged["histogram"].merge(bucket["histogram"])
            merged["users"] = max(merged["users"], bucket["users"])

    def add(self, offset: int, name: str, stats: "EndpointStats") -> None:
        if offset < 0:
            return
        bucket = self._bucket(offset)
        bucket["requests"] += stats.histogram.total
        bucket["failures"] += stats.failures
        bucket["shed"] += sum(n for refusal, n in stats.refusals.items() if refusals.is_shed(refusal))
        if name == self.endpoint:
            bucket["histogram"].merge(stats.histogram)

    def users(self, offset: int, count: int) -> None:
        if offset >= 0:
            bucket = self._bucket(offset)
            bucket["users"] = max(bucket["users"], count)

    def read_machine(self, at: float, busy_seconds: float | None) -> None:
        """The machine's busy CPU seconds since boot, read at offset ``at`` (None: not read): the
        time since the last reading goes into the seconds it covers."""
        if busy_seconds is None:
            return
        if self._machine_read is not None:
            self.machine(self._machine_read[0], at, busy_seconds - self._machine_read[1])
        self._machine_read = (at, busy_seconds)

    def machine(self, start: float, end: float, busy_seconds: float) -> None:
        """The machine's cores were busy ``busy_seconds`` in all between the offsets ``start``
        and ``end``: shared among the whole seconds they cover, by the time each covers."""
        wall = end - start
        if wall <= 0 or end <= 0:
            return
        second = max(0, math.floor(start))
        while second < end:
            covered = min(end, second + 1) - max(start, second)
            if covered > 0:
                bucket = self._bucket(second)
                bucket["machine_wall"] += covered
                bucket["machine_busy"] += busy_seconds * covered / wall
            second += 1

    def points(self) -> list[dict]:
        out = []
        for offset, bucket in sorted(self.buckets.items()):
            percentiles = bucket["histogram"].percentiles((50, 95, 99))
            wall = bucket["machine_wall"]
            out.append(
                {
                    "t": offset,
                    "requests": bucket["requests"],
                    "rps": round(bucket["requests"] / self.bucket_seconds, 2),
                    "failures": bucket["failures"],
                    "shed": bucket["shed"],
                    "order_requests": bucket["histogram"].total,
                    **percentiles,
                    "users": bucket["users"],
                    # % of one core, as a step's machine_cpu_percent; None: not read then
                    "machine_cpu_percent": round(100 * bucket["machine_busy"] / wall, 1) if wall else None,
                }
            )
        return out


class Recorder:
    def __init__(
        self,
        plan: Plan | None,
        timeline_endpoint: str = ORDER_ENDPOINT,
        scheduled: tuple[str, ...] = (ORDER_ENDPOINT,),
    ):
        self.plan = plan  # None in a Locust worker: it folds nothing, the master does
        self.scheduled = scheduled  # the endpoints whose latency from the schedule is kept
        self.t0: float | None = None
        # Recorded here and not yet folded (or, on a worker, not yet sent).
        self._seconds: dict[int, dict[str, EndpointStats]] = defaultdict(lambda: defaultdict(EndpointStats))
        self._missed: Counter[int] = Counter()
        self._answered: list[str] = []
        self._examples: dict[str, list[str]] = defaultdict(list)
        # Folded (master or local runner).
        self.steps: dict[int, StepStats] = defaultdict(StepStats)
        # Requests that started before t0 or after the last step: in no row, but in the audit.
        self.outside_plan: dict[str, EndpointStats] = defaultdict(EndpointStats)
        self.examples: dict[str, list[str]] = {}  # "endpoint status" -> first answers
        self.timeline = Timeline(timeline_endpoint)

    # --- where requests happen (local runner or worker) -------------------------------------

    def request(
        self,
        name: str,
        start_time: float,
        response_time: float,
        ok: bool,
        status: int,
        server_timing: dict[str, float] | None = None,
        refusal: str | None = None,
        schedule: ArrivalSchedule | None = None,
    ) -> None:
        """``refusal``: a failure's error code when it was a JSON 503 or 429 (refusals.code);
        ``schedule``: the open-model arrival whose journey sent the request."""
        self._seconds[math.floor(start_time)][name].record(
            to_ms(response_time), ok, status, server_timing, refusal
        )
        if schedule is not None:
            latency = schedule.latency(start_time, response_time)
            if name in self.scheduled:
                self._seconds[math.floor(schedule.due)][name].from_schedule.add(to_ms(latency))

    def example(self, name: str, status: int, text: str) -> None:
        """Keep the first few answers of a failing kind, to say in the report what went wrong."""
        kept = self._examples[f"{name} {status}"]
        if len(kept) < EXAMPLES:
            kept.append(text[:300])

    def missed(self, due_times: list[float]) -> None:
        for due in due_times:
            self._missed[math.floor(due)] += 1

    def answered(self, order_number: str, start_time: float) -> None:
        """An order number answered 2xx, with the second its request started in."""
        self._answered.append(f"{order_number} {math.floor(start_time)}")

    def drain(self) -> dict:
        """What a worker sends to the master with its next report; forgotten here."""
        data = {
            "seconds": {
                str(second): {name: stats.to_dict() for name, stats in endpoints.items()}
                for second, endpoints in self._seconds.items()
            },
            "missed": {str(second): n for second, n in self._missed.items()},
            "answered": self._answered,
            "examples": dict(self._examples),
        }
        self._seconds = defaultdict(lambda: defaultdict(EndpointStats))
        self._missed = Counter()
        self._answered = []
        self._examples = defaultdict(list)
        return data

    # --- where results are kept (master or local runner) ------------------------------------

    def absorb(self, data: dict) -> list[str]:
        """Fold a worker's report into the steps; returns the order numbers it carried."""
        for second, endpoints in data.get("seconds", {}).items():
            step = self._step(int(second))
            for name, stats in endpoints.items():
                incoming = EndpointStats.from_dict(stats)
                if self.t0 is not None:
                    self.timeline.add(int(second) - int(self.t0), name, incoming)
                if step is None:
                    self.outside_plan[name].merge(incoming)
                    continue
                self.steps[step].endpoints[name].merge(incoming)
                if incoming.failures or incoming.statuses.get(DEGRADED_STATUS):
                    self.steps[step].note_degraded(int(second))
        for kind, texts in data.get("examples", {}).items():
            kept = self.examples.setdefault(kind, [])
            kept.extend(texts[: max(0, EXAMPLES - len(kept))])
        for second, n in data.get("missed", {}).items():
            step = self._step(int(second))
            if step is not None:
                self.steps[step].missed += n
        return list(data.get("answered", []))

    def fold_local(self) -> list[str]:
        """The local runner is its own master: fold what it recorded."""
        return self.absorb(self.drain())

    def _step(self, second: int) -> int | None:
        if self.t0 is None:
            return None
        assert self.plan is not None, "only the keeping process folds, and its recorder has the plan"
        return self.plan.step_index(second - self.t0)
