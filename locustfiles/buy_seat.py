"""The web UI's default locustfile (make run): learners buying seats through the LMS, as many
as the UI asks for, with edX's 3-5 s think time. The profiles (ramp, rpm, capacity, soak,
smoke) are the other locustfiles here."""

from locustfiles.learners import Learner  # noqa: F401
