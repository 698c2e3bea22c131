"""Capacity's search for the knee: the steps climb until one breaks a threshold, then probes
halve the interval between the highest rate that held and the lowest that broke until it is
narrower than a resolution (KNEE_PCT, 3 % by default) of capacity.

Each probe is a step as long as a climbing step. While a probe is judged (its slowest requests
reported, the plan's grace after its end), the known-good rate is held: load that is measured
and reported, and judges nothing. A rate that held above one that broke (noise) does not move
the interval: capacity is the highest rate that held below the lowest that broke.
"""

import math
from dataclasses import dataclass, field

from locustfiles.suite.core.plan import Step

MARGIN = 2  # seconds: a revision of the plan starts this far ahead, so every worker has it first
RESOLUTION = 0.03  # the search ends when (broke - held) < 3 % of held (KNEE_PCT's default)
MAX_PROBES = 8  # a bound on the search whatever the steps: 2**-8 of the first interval
MAX_CLIMB_ON = 20  # steps added past RPM_MAX at most, whatever the ceiling says


def hold_seconds(grace: int) -> int:
    """How long a rate is held while the step before it is judged: longer than the judging takes
    (the plan's grace, then a revision's margin), so the search cuts it short."""
    return grace + MARGIN + 2


@dataclass
class KneeSearch:
    step_seconds: int
    grace: int
    resolution: float = RESOLUTION
    held: list[float] = field(default_factory=list)  # the rates judged, by outcome
    broke: list[float] = field(default_factory=list)
    probes: int = 0
    climbed_on: int = 0  # steps added past the plan's last because every step held

    def judged(self, rpm: float, held: bool) -> None:
        (self.held if held else self.broke).append(rpm)

    @property
    def upper(self) -> float | None:
        """The lowest rate that broke."""
        return min(self.broke) if self.broke else None

    @property
    def lower(self) -> float | None:
        """Capacity: the highest rate that held below the lowest that broke."""
        top = self.upper
        below = [r for r in self.held if top is None or r < top]
        return max(below) if below else None

    @property
    def done(self) -> bool:
        """Nothing is left to probe: the first rate broke, or the interval is narrow enough, or
        the probes' bound is reached."""
        if self.upper is None:
            return False
        if self.lower is None or self.probes >= MAX_PROBES:
            return True
        return self.upper - self.lower < self.resolution * self.lower

    def climb_on(self, last: float, increment: float | None, ceiling: float | None) -> list[Step]:
        """Every step held: the next climbing step, and the rate held while it is judged. The
        next step is ``last`` + ``increment``, or the machine's ``ceiling`` at the last step
        where that is lower (RPM_MAX does not cap a run below the ceiling, and a climb that
        stopped a step short of it would state capacity up to a step below what the machine
        can do); [] ends the climb: the last rate is within the resolution of the ceiling, or
        a listed plan (no increment)."""
        if not increment or not ceiling or self.climbed_on >= MAX_CLIMB_ON:
            return []
        rate = last + increment
        if rate > ceiling:
            rate = math.floor(ceiling)
            if rate < last * (1 + self.resolution):
                return []
        self.climbed_on += 1
        return [
            Step(0, 0, self.step_seconds, target_rpm=rate),
            Step(0, 0, hold_seconds(self.grace), target_rpm=rate, judged=False),
        ]

    def next_steps(self) -> list[Step]:
        """The probe half-way across the interval, then the rate that held, held while the
        probe is judged (as long as a step: the search cuts it short)."""
        lower, upper = self.lower, self.upper
        if lower is None or upper is None:
            raise RuntimeError("no interval to probe: the climb has not both held and broken")
        self.probes += 1
        probe = round((lower + upper) / 2)
        return [
            Step(0, 0, self.step_seconds, target_rpm=probe, label=f"probe {probe:g} RPM"),
            Step(0, 0, hold_seconds(self.grace), target_rpm=lower, judged=False),
        ]
