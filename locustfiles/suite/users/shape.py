"""The load shape of every profile: the plan's users per step (closed model), or enough users
for the arrivals (open model), until the plan ends or the profile says to stop."""

import time

from locust import LoadTestShape

DRAIN_SECONDS = 2  # open model: after the last arrival, time for in-flight journeys to end


class SuiteShape(LoadTestShape):
    def tick(self):
        run = getattr(self.runner.environment, "suite", None)
        if run is None:
            return None
        if run.t0 is None:
            return (0, 1)
        plan = run.plan
        offset = time.time() - run.t0
        if offset < 0:  # the first step starts on a whole second; an open model's users wait for it
            return (plan.users, max(plan.users, 1)) if plan.open_model else (0, 1)
        if not plan.open_model:
            if offset >= plan.seconds:
                return None
            step = plan.steps[plan.step_index(offset) or 0]
            return (step.users, max(step.users, 1))
        if offset >= plan.seconds + DRAIN_SECONDS or run.profile.should_stop(run, time.time()):
            return None
        return (plan.users, max(plan.users, 1))
