"""capacity: RPM steps (RPM="600 900 ..." or RPM_START, RPM_STEP, RPM_MAX) of STEP_SECONDS each,
rising until a threshold breaks (default p95<460 errors<0.01 missed<0.01); reports the
highest RPM that held."""

from locustfiles.learners import ArrivingLearner  # noqa: F401
from locustfiles.suite.run import hooks

Shape = hooks.use("capacity")
