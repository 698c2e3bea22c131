"""What `make edx2015` loads beside the 2015 client's locustfile (locustfiles/edx2015/, or edX's
own with scripts/edx2015-original.sh), so that the client's files stay as they are: the suite's
recording, report and audit (hooks), the order numbers of its purchases (suite/edx2015.py) and
the load shape of the edx2015 profile (USERS for DURATION seconds)."""

from locust import events

from locustfiles.suite import edx2015, profile

events.init.add_listener(edx2015.attach)
Shape = profile.use("edx2015")
