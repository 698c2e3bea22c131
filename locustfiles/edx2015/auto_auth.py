"""A task set whose tasks start as a new learner (2015: locust/helpers/auto_auth_tasks.py).

Every purchase is made by a learner created for it: buying the same seat twice would be
refused. The learner comes from the LMS's ``GET /auto_auth``, asked for JSON; its answer must
hold ``username``, ``email``, ``password``, ``user_id`` and ``anonymous_id`` (a missing one
ends the task with a KeyError), and it logs the learner in (the ``sessionid`` cookie).

The task set can run at the top of a user or nested in another task set: its ``stop`` task,
as likely as any other, hands control back to the parent when there is one. Nested, it thus
runs a geometric number of its other tasks (one on average) per turn; at the top, ``stop`` is a
task that does nothing and is followed by the usual wait.
"""

import json
from dataclasses import dataclass

from locust import TaskSet, task

from locustfiles.edx2015.config import BASIC_AUTH_CREDENTIALS


@dataclass(frozen=True)
class Learner:
    username: str
    email: str
    password: str
    user_id: int
    anonymous_id: str


class AutoAuthTasks(TaskSet):
    learner: Learner | None = None

    def __init__(self, parent):
        super().__init__(parent)
        # A nested task set is made anew each time its parent picks it: the credentials are
        # put back on the user's session then (a payment task replaces them with its token).
        if BASIC_AUTH_CREDENTIALS:
            self.client.auth = BASIC_AUTH_CREDENTIALS
        self.learner = None

    def auto_auth(self) -> Learner:
        """Log in as a learner the LMS creates now."""
        cookies = self.client.cookies
        if "sessionid" in cookies:
            del cookies["sessionid"]  # else the LMS would answer for the last learner
        answer = self.client.get(
            "/auto_auth", name="auto_auth", headers={"accept": "application/json"}, params={}, verify=True
        )
        fields = json.loads(answer.text)
        self.learner = Learner(
            username=fields["username"],
            email=fields["email"],
            password=fields["password"],
            user_id=fields["user_id"],
            anonymous_id=fields["anonymous_id"],
        )
        return self.learner

    @task
    def stop(self):
        """Back to the parent task set, when there is one."""
        if self.parent != self.user:
            self.interrupt()
