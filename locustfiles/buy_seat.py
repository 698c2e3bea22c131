"""The web UI's default locustfile (make run, and the Ansible deployment's Locust master):
learners buying free seats through the LMS and paying for paid ones on the processor's stand-in
(edX's 50 : 1), as many as the UI asks for, with edX's 3-5 s think time. Its start form also
offers every profile of the catalogue (run/start_form.py), run with these learners as their own
locustfiles (ramp, rpm, capacity, soak, smoke, ...) run them."""

from locustfiles import learners
from locustfiles.learners import Learner  # noqa: F401
from locustfiles.suite.run import hooks

hooks.offer_profiles(learners.configured)
