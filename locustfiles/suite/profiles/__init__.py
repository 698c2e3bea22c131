"""The profiles as the process that keeps the results runs them: the catalogue's entries
(core/catalogue.py), each with its behaviour, one module per profile (base.py: the behaviour
every profile has, and the profiles with none of their own)."""

from locustfiles.suite.core import catalogue
from locustfiles.suite.profiles.base import Behaviour, Figures, Manual, Ramp, Rpm, Smoke
from locustfiles.suite.profiles.capacity import Capacity
from locustfiles.suite.profiles.chaos import Chaos
from locustfiles.suite.profiles.edx2015 import Edx2015
from locustfiles.suite.profiles.overload import Overload
from locustfiles.suite.profiles.profiling import Profiling
from locustfiles.suite.profiles.soak import Soak

__all__ = ["PROFILES", "Behaviour", "Figures", "get"]

PROFILES: dict[str, Behaviour] = {
    p.name: p
    for p in (
        Ramp(),
        Rpm(),
        Capacity(),
        Overload(),
        Soak(),
        Smoke(),
        Chaos(),
        Edx2015(),
        Profiling(),
        Manual(),
    )
}


def get(name: str) -> Behaviour:
    catalogue.get(name)  # an unknown name is refused with the catalogue's list
    return PROFILES[name]
