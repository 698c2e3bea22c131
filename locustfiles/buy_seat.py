"""The web UI's default locustfile (make run, and the Ansible deployment's Locust master):
learners buying free seats through the LMS and paying for paid ones on the processor's stand-in
(edX's 50 : 1), as many as the UI asks for, with edX's 3-5 s think time. The profiles (ramp,
rpm, capacity, soak, smoke) are the other locustfiles here."""

from locustfiles.learners import Learner  # noqa: F401
