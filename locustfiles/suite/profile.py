"""What a profile's locustfile imports: the hooks (by importing them) and the shape.
``use("ramp")`` makes "ramp" the profile unless PROFILE says otherwise."""

import os

from locustfiles.suite import hooks  # noqa: F401  (registers the suite's events and options)
from locustfiles.suite.shape import SuiteShape


def use(profile: str) -> type[SuiteShape]:
    os.environ.setdefault("PROFILE", profile)
    return SuiteShape
