"""chaos: a steady open-model load (RPM, default 300) with one fault per step of PHASE_SECONDS
(default 30): the LMS down, the LMS slower than the fulfilment timeout, MariaDB restarted, an
ecommerce worker killed, duplicate submissions, a payment notification twice and late
(FAULTS chooses and orders them). Each step is
judged against its fault's expected outcome; then every unfulfilled order is retried and the
audit must find nothing lost, duplicated or partial."""

from locustfiles.learners import ArrivingLearner  # noqa: F401
from locustfiles.suite.run import hooks

Shape = hooks.use("chaos")
