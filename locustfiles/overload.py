"""overload: purchases arrive past capacity, at RPM or 1.5 × CAPACITY_RPM, for DURATION seconds
after a warm-up at the capacity rate; judged on how the overload was handled: p95 bounded, every
failure a JSON 503 or 429 refusal, no refused purchase leaving an order behind."""

from locustfiles.learners import ArrivingLearner  # noqa: F401
from locustfiles.suite.run import hooks

Shape = hooks.use("overload")
