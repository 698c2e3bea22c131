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

import math
from dataclasses import asdict, dataclass

MISS_TOLERANCE = 1.0
PROFILES = ("ramp", "rpm", "capacity", "soak", "smoke", "chaos")


@dataclass(frozen=True)
class Step:
    index: int
    start: int  # seconds after t0
    seconds: int
    users: int | None = None  # closed model
    target_rpm: float | None = None  # open model
    fault: str | None = None  # chaos: the fault injected during this step

    @property
    def end(self) -> int:
        return self.start + self.seconds

    @property
    def arrivals(self) -> int:
        """Arrivals scheduled in this step (open model)."""
        return round(self.target_rpm * self.seconds / 60) if self.target_rpm else 0

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class Plan:
    profile: str
    steps: list[Step]
    open_model: bool
    users: int  # the users Locust runs at most (open model: enough to keep arrivals on time)
    grace: int = 6  # capacity: seconds after a step ends before it is judged

    @property
    def seconds(self) -> int:
        return self.steps[-1].end if self.steps else 0

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

    def as_dict(self) -> dict:
        return {
            "profile": self.profile,
            "open_model": self.open_model,
            "users": self.users,
            "seconds": self.seconds,
            "steps": [s.as_dict() for s in self.steps],
        }


def users_for(rpm: float, latency_budget: float = 5.0) -> int:
    """Users an open-model step needs: enough for every arrival of a slow period to find one
    (the rate times a latency budget, with headroom)."""
    return max(5, math.ceil(rpm / 60 * latency_budget) + 5)


def _numbers(text: str, kind=float) -> list:
    values = [kind(v) for v in str(text).replace(",", " ").split()]
    if not values or any(v <= 0 for v in values):
        raise ValueError(f"expected positive numbers, got {text!r}")
    return values


def build(
    profile: str,
    users: str = "1 2 3 4 5 6 7 8 9 10",
    step_seconds: int = 60,
    rpm: str = "78",
    duration: int = 600,
    hours: float = 64,
    bucket_seconds: int = 3600,
    rpm_start: float = 300,
    rpm_step: float = 300,
    rpm_max: float = 6000,
    faults: str = "",
    phase_seconds: int = 30,
) -> Plan:
    """The plan of a profile from its parameters (the make variables of the same names)."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; one of {', '.join(PROFILES)}")
    step_seconds = int(step_seconds)
    if step_seconds < 1:
        raise ValueError("STEP_SECONDS must be at least 1")
    if profile in ("ramp", "smoke"):
        counts = _numbers(users, int)
        steps = [Step(i, i * step_seconds, step_seconds, users=u) for i, u in enumerate(counts)]
        return Plan(profile, steps, open_model=False, users=max(counts))
    if profile == "rpm":
        target = _numbers(rpm)[0]
        duration = int(duration)
        if duration < 1:
            raise ValueError("DURATION must be at least 1 second")
        return Plan(
            profile, [Step(0, 0, duration, target_rpm=target)], open_model=True, users=users_for(target)
        )
    if profile == "capacity":
        explicit = str(rpm).strip() if rpm else ""
        if explicit and len(explicit.split()) > 1:
            targets = _numbers(explicit)
        else:
            count = int((rpm_max - rpm_start) // rpm_step) + 1
            targets = [rpm_start + i * rpm_step for i in range(max(count, 1))]
        steps = [Step(i, i * step_seconds, step_seconds, target_rpm=r) for i, r in enumerate(targets)]
        # A step is judged once its slowest requests have had time to end and be reported.
        grace = min(6, max(2, step_seconds // 2))
        return Plan(profile, steps, open_model=True, users=users_for(max(targets)), grace=grace)
    if profile == "chaos":
        from locustfiles.suite.chaos import FAULTS, users_budget_seconds

        names = (faults or " ".join(FAULTS)).replace(",", " ").split()
        unknown = [n for n in names if n not in FAULTS]
        if unknown:
            raise ValueError(f"unknown fault {', '.join(unknown)}; known: {', '.join(FAULTS)}")
        phase_seconds = int(phase_seconds)
        if phase_seconds < 8:
            raise ValueError("PHASE_SECONDS must be at least 8 (before, during and after a fault)")
        target = _numbers(rpm)[0]
        steps = [
            Step(i, i * phase_seconds, phase_seconds, target_rpm=target, fault=name)
            for i, name in enumerate(names)
        ]
        return Plan("chaos", steps, open_model=True, users=users_for(target, users_budget_seconds()))
    # soak: buckets of bucket_seconds at one rate
    target = _numbers(rpm)[0]
    total = int(round(float(hours) * 3600))
    bucket_seconds = int(bucket_seconds)
    if total < 1 or bucket_seconds < 1:
        raise ValueError("HOURS and BUCKET_SECONDS must give at least one second")
    count = math.ceil(total / bucket_seconds)
    steps = [
        Step(i, i * bucket_seconds, min(bucket_seconds, total - i * bucket_seconds), target_rpm=target)
        for i in range(count)
    ]
    return Plan("soak", steps, open_model=True, users=users_for(target))


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
        missed = []
        while True:
            k = self.worker_index + self.taken * self.worker_count
            offset = self.plan.arrival_offset(k)
            if offset is None:
                return None, missed
            self.taken += 1
            due = self.t0 + offset
            if due < now - MISS_TOLERANCE:
                missed.append(due)
                continue
            return due, missed


def from_env(profile: str, env) -> Plan:
    """The plan of ``profile`` from the make variables (USERS, STEP_SECONDS, RPM, DURATION,
    HOURS, BUCKET_SECONDS, RPM_START, RPM_STEP, RPM_MAX, FAULTS, PHASE_SECONDS), with each
    profile's defaults."""
    defaults = {"ramp": ("1 2 3 4 5 6 7 8 9 10", 60), "smoke": ("2", 5)}
    users, step_seconds = defaults.get(profile, ("1", 60))
    return build(
        profile,
        users=env.get("USERS") or users,
        step_seconds=int(env.get("STEP_SECONDS") or step_seconds),
        rpm=env.get("RPM") or {"soak": "1038", "capacity": "", "chaos": "300"}.get(profile, "78"),
        duration=int(env.get("DURATION") or 600),
        hours=float(env.get("HOURS") or 64),
        bucket_seconds=int(env.get("BUCKET_SECONDS") or 3600),
        rpm_start=float(env.get("RPM_START") or 300),
        rpm_step=float(env.get("RPM_STEP") or 300),
        rpm_max=float(env.get("RPM_MAX") or 6000),
        faults=env.get("FAULTS") or "",
        phase_seconds=int(env.get("PHASE_SECONDS") or 30),
    )
