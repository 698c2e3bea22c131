"""What a profile's locustfile imports: the hooks (by importing them), the shape, and the
user class for its model. ``use("ramp")`` makes "ramp" the profile unless --suite-profile
says otherwise."""

import os

from locustfiles.suite import hooks  # noqa: F401  (registers the suite's events and options)
from locustfiles.suite.shape import SuiteShape


def use(profile: str) -> type[SuiteShape]:
    os.environ.setdefault("PROFILE", profile)
    return SuiteShape
