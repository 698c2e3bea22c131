"""soak: RPM (default 1038) for HOURS (default 64) in buckets of BUCKET_SECONDS (default 3600):
per bucket the same columns, database size and memory of every server process, and the p95
trend across buckets."""

from locustfiles.learners import ArrivingLearner  # noqa: F401
from locustfiles.suite.run import hooks

Shape = hooks.use("soak")
