"""smoke: a few seconds of a few learners (USERS, default 2; STEP_SECONDS, default 5), for tests."""

from locustfiles.learners import Learner  # noqa: F401
from locustfiles.suite.run import hooks

Shape = hooks.use("smoke")
