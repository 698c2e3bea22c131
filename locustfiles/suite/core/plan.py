"""What a run does over time: its steps (or buckets) and, for open-model profiles, when each
arrival is due.

Closed model (ramp, smoke): each step holds a number of users that repeat the journey with a
think time. Open model (rpm, capacity, soak, chaos): each step has a target rate; arrivals are
scheduled against absolute time, evenly within a step, whatever the service does. An arrival
no free user could start within MISS_TOLERANCE seconds of its time is counted as missed and
skipped, never made up later (that would hide the slowdown: coordinated omission).

Step boundaries fall on whole seconds after the run's start (t0), so a request's step follows
from the whole second it started in.
"""

import bisect
import math
from dataclasses import asdict, dataclass, replace

MISS_TOLERANCE = 1.0
SPAWN_SECONDS = 2  # open model: Locust's shape ticks every second, then spawns over one more


@dataclass(frozen=True)
class Step:
    index: int
    # Seconds after t0, and for how long: whole in a plan made ahead; a recorded plan's last step
    # ends when the run stopped.
    start: float
    seconds: float
    users: int | None = None  # closed model
    target_rpm: float | None = None  # open model
    fault: str | None = None  # chaos: the fault injected during this step
    label: str | None = None  # the name the profile gave it ("bucket 3", "warm-up")
    warm_up: bool = False  # load before the measured steps: reported apart, never judged
    # Capacity's search: False for load that is measured and reported but judges nothing (a
    # climbing step the search cut short, the known-good rate held while a probe is judged).
    judged: bool = True

    @property
    def end(self) -> float:
        return self.start + self.seconds

    @property
    def arrivals(self) -> int:
        """Arrivals scheduled in this step (open model)."""
        return round(self.target_rpm * self.seconds / 60) if self.target_rpm else 0

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class Plan:
    """A plan written before the run: the profile's shape sets the users, step by step."""

    profile: str
    steps: list[Step]
    open_model: bool
    users: int  # the users Locust runs at most (open model: enough to keep arrivals on time)
    grace: int = 6  # capacity: seconds after a step ends before it is judged
    follows_users = False  # (a class fact, not a field) LivePlan: the users set by hand make it

    def t0_for(self, now: float, users: int) -> float:
        """The run's t0 for a test that started at ``now``: its first step starts on a whole
        second. An open model's users are made before t0 (users/shape.py), SPAWN_SECONDS for
        it: the first arrivals find them waiting, not still being made (they came up to 0.8 s
        late, and were counted waiting for a free user)."""
        return float(math.ceil(now)) + (SPAWN_SECONDS if self.open_model else 0)

    def step_end(self, index: int) -> float:
        """Seconds after t0 at which step ``index`` ends: where the next one starts."""
        if index + 1 < len(self.steps):
            return self.steps[index + 1].start
        return self.steps[index].end

    def follow(self, users: int, offset: float) -> None:
        """The users running ``offset`` seconds after t0: this plan set them, it has nothing to
        learn from them."""

    def stop(self, offset: float) -> None:
        """The run stopped ``offset`` seconds after t0: this plan's steps stay as written."""

    @property
    def step_count(self) -> int | None:
        """How many steps are measured (None: not known before the run ends)."""
        return len(self.measured)

    @property
    def seconds(self) -> float:
        return self.steps[-1].end if self.steps else 0

    @property
    def measured(self) -> list[Step]:
        """The steps a run is judged by: all but a warm-up."""
        return [s for s in self.steps if not s.warm_up]

    @property
    def warm_up(self) -> Step | None:
        return next((s for s in self.steps if s.warm_up), None)

    def step_index(self, offset_seconds: float) -> int | None:
        """The step a whole second after t0 belongs to (None outside the plan)."""
        second = math.floor(offset_seconds)
        if second < 0:
            return None
        for step in self.steps:
            if step.start <= second < step.end:
                return step.index
        return None

    def arrival_offset(self, k: int) -> float | None:
        """When the k-th arrival of the run is due (seconds after t0), or None after the last.

        Arrivals are spread evenly inside each step, at the middle of their slots.
        """
        for step in self.steps:
            if k < step.arrivals:
                return step.start + (k + 0.5) * step.seconds / step.arrivals
            k -= step.arrivals
        return None

    def revise(self, boundary: int, following: list[Step]) -> None:
        """From ``boundary`` (whole seconds after t0, still to come) the plan is ``following``:
        the step under way at the boundary ends there, judging nothing (the last step, if it
        ended before, lasts until it), and the steps after it are replaced. Arrivals due before
        the boundary keep their times (to within a slot where a cut step's arrivals round), so a
        worker that learns of the change before the boundary follows the same plan; an arrival
        it claimed early is due again by the new plan (ArrivalClock.due)."""
        kept = [s for s in self.steps if s.start < boundary]
        if kept and kept[-1].end != boundary:  # cut short (or, judged late, held to the boundary)
            last = kept[-1]
            kept[-1] = replace(last, seconds=boundary - last.start, judged=False)
        start = kept[-1].end if kept else boundary
        for step in following:
            kept.append(replace(step, index=len(kept), start=start))
            start += step.seconds
        self.steps = kept
        self.users = max([self.users] + [users_for(s.target_rpm) for s in following if s.target_rpm])

    def adopt(self, data: dict) -> None:
        """Take a revised plan's steps and users (a worker, from its master's message)."""
        revised = Plan.from_dict(data)
        self.steps, self.users = revised.steps, revised.users

    def as_dict(self) -> dict:
        return {
            "profile": self.profile,
            "open_model": self.open_model,
            "users": self.users,
            "seconds": self.seconds,
            "steps": [s.as_dict() for s in self.steps],
        }

    def as_summary(self) -> dict:
        """summary.json's "plan": as_dict but the profile, which is the summary's own."""
        return {key: value for key, value in self.as_dict().items() if key != "profile"}

    @classmethod
    def from_dict(cls, data: dict) -> "Plan":
        """The plan ``as_dict`` gave (what the master sends its workers with the run's start)."""
        steps = [Step(**step) for step in data["steps"]]
        return cls(data["profile"], steps, data["open_model"], data["users"])


class LivePlan(Plan):
    """The plan of a run whose users are set by hand (the web UI's form, Locust's -u): it is
    written as the run goes. Each change of the user count starts a step on the next whole
    second; the last step stays open until the run stops. A step's ``seconds`` is the time it
    really lasted (the first starts when the run did, the last ends when it stopped), so its
    rates are honest; whole-second bounds decide which step a request belongs to."""

    follows_users = True

    def __init__(self, profile: str = "manual"):
        super().__init__(profile, [], open_model=False, users=0)
        self.bounds: list[int] = []  # whole seconds after t0 at which each step starts
        self.begun = 0.0  # seconds after t0 at which the run really started
        self.stopped: float | None = None

    def t0_for(self, now: float, users: int) -> float:
        """t0 is the whole second the test started in; its first step has ``users``."""
        t0 = float(math.floor(now))
        self.begin(users, now - t0)
        return t0

    def step_end(self, index: int) -> float:
        """The last step's end is not known until the run stops."""
        return super().step_end(index) if index + 1 < len(self.steps) else math.inf

    def follow(self, users: int, offset: float) -> None:
        self.change(users, offset)

    @property
    def step_count(self) -> int | None:
        return None

    def begin(self, users: int, begun: float) -> None:
        self.steps, self.bounds, self.begun, self.stopped = [], [0], begun, None
        self._append(users, 0, None)

    def change(self, users: int, offset: float) -> None:
        """The user count became ``users`` at ``offset`` seconds after t0."""
        if self.stopped is not None or (self.steps and self.steps[-1].users == users):
            return
        bound = max(self.bounds[-1] + 1, math.ceil(offset))
        self._close_last(bound)
        self.bounds.append(bound)
        self._append(users, bound, None)

    def stop(self, offset: float) -> None:
        if self.stopped is None and self.steps:
            self.stopped = max(offset, self.bounds[-1])
            self._close_last(self.stopped)

    def _append(self, users: int, bound: int, seconds) -> None:
        self.steps.append(Step(len(self.steps), bound, seconds or 0, users=users))
        self.users = max(self.users, users)

    def _close_last(self, end: float) -> None:
        last = self.steps[-1]
        began = self.begun if last.index == 0 else last.start
        self.steps[-1] = Step(last.index, last.start, round(max(end - began, 0.001), 3), users=last.users)

    @property
    def seconds(self) -> float:
        return self.stopped if self.stopped is not None else 0

    def step_index(self, offset_seconds: float) -> int | None:
        second = math.floor(offset_seconds)
        if second < 0 or not self.steps:
            return None
        if self.stopped is not None and second > self.stopped:
            return None
        return bisect.bisect_right(self.bounds, second) - 1


def users_for(rpm: float, latency_budget: float = 5.0) -> int:
    """Users an open-model step needs: enough for every arrival of a slow period to find one
    (the rate times a latency budget, with headroom)."""
    return max(5, math.ceil(rpm / 60 * latency_budget) + 5)


def with_warm_up(steps: list[Step], seconds: int, target_rpm: float) -> list[Step]:
    """``steps`` after a warm-up of ``seconds`` at ``target_rpm`` (none when seconds is 0).

    The first minute after a start measures a cold stack (new worker processes, empty
    connection pools, a buffer pool that has not yet read the hot pages), not the service: a
    capacity run broke its first step there that it held a minute later. The warm-up takes
    that minute; its requests are recorded and audited like any others, and reported apart."""
    if seconds <= 0:
        return steps
    warm = Step(0, 0, seconds, target_rpm=target_rpm, label="warm-up", warm_up=True)
    return [warm] + [replace(s, index=s.index + 1, start=s.start + seconds) for s in steps]


def numbers(text: str, kind=float) -> list:
    """Positive numbers from a make variable ("1 2 3" or "1,2,3")."""
    values = [kind(v) for v in str(text).replace(",", " ").split()]
    if not values or any(v <= 0 for v in values):
        raise ValueError(f"expected positive numbers, got {text!r}")
    return values


class ArrivalClock:
    """Hands out the arrivals of one Locust process: with W worker processes, process w takes
    arrivals w, w + W, w + 2W, ... so together they follow the plan exactly once."""

    def __init__(self, plan: Plan, t0: float, worker_index: int = 0, worker_count: int = 1):
        self.plan, self.t0 = plan, t0
        self.worker_index, self.worker_count = worker_index, max(1, worker_count)
        self.taken = 0  # arrivals this process has claimed or skipped

    def claim(self, now: float) -> tuple[float | None, list[float]]:
        """(due time of the next arrival to run, or None when the plan is over; due times of
        the arrivals skipped because they are more than MISS_TOLERANCE late)."""
        _, due, missed = self.claim_arrival(now)
        return due, missed

    def claim_arrival(self, now: float) -> tuple[int | None, float | None, list[float]]:
        """claim(), with the arrival's index in the whole plan first (the learners' mix decides
        by it which journey the arrival takes); None when the plan is over."""
        missed: list[float] = []
        while True:
            k = self.worker_index + self.taken * self.worker_count
            offset = self.plan.arrival_offset(k)
            if offset is None:
                return None, None, missed
            self.taken += 1
            due = self.t0 + offset
            if due < now - MISS_TOLERANCE:
                missed.append(due)
                continue
            return k, due, missed

    def due(self, k: int) -> float | None:
        """When arrival ``k`` is due by the plan as it is now (a capacity search may have
        revised it since the arrival was claimed); None if the plan ends before it."""
        offset = self.plan.arrival_offset(k)
        return None if offset is None else self.t0 + offset


class ArrivalSchedule:
    """One arrival's journey against its due time, for latency measured from the schedule (as
    wrk2 measures it, against coordinated omission).

    A request of the journey is due when the arrival was, plus the time the journey's earlier
    requests were in flight (the learner's login before its purchase): its latency from the
    schedule is its own plus the time it waited beyond that, for a free user or a busy Locust
    process; the login's own time is the login's latency, in its own row."""

    __slots__ = ("due", "in_flight")

    def __init__(self, due: float):
        self.due = due  # the arrival's due time (epoch seconds)
        self.in_flight = 0.0  # seconds the journey's requests took so far

    def latency(self, start_time: float, response_time: float) -> float:
        """The latency (ms) from its due time of a request of this journey that started at
        ``start_time`` and took ``response_time`` ms; the journey's next request is due that
        much later."""
        waited = start_time - self.due - self.in_flight
        self.in_flight += response_time / 1000
        return waited * 1000 + response_time
