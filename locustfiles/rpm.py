"""rpm: purchases arrive at RPM per minute (default 78) for DURATION seconds (default 600),
scheduled against the clock whatever the service does: achieved RPM and missed arrivals are
reported next to the target."""

from locustfiles.learners import ArrivingLearner  # noqa: F401
from locustfiles.suite.run import hooks

Shape = hooks.use("rpm")
