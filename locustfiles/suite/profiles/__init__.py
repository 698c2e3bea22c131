"""The profiles as the process that keeps the results runs them: the catalogue's entries
(core/catalogue.py) with their behaviour (behaviour.py)."""

from locustfiles.suite.profiles.base import PROFILES, Behaviour, get

__all__ = ["PROFILES", "Behaviour", "get"]
