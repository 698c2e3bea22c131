"""ramp: USERS (default 1..10) learners for STEP_SECONDS (default 60) each, thinking 3-5 s
between purchases, as edX's Round 0 table. One report row per step."""

from locustfiles.learners import Learner  # noqa: F401
from locustfiles.suite.run import hooks

Shape = hooks.use("ramp")
