"""What `make edx2015` loads beside the 2015 client's locustfile (locustfiles/edx2015/, or edX's
own with scripts/edx2015-original.sh), so that the client's files stay as they are: the suite's
recording, report and audit (hooks), the order numbers of its purchases (suite/users/edx2015_orders.py) and
the load shape of the edx2015 profile (USERS for DURATION seconds)."""

from locust import events

from locustfiles.suite.run import hooks
from locustfiles.suite.users import edx2015_orders

events.init.add_listener(edx2015_orders.attach)
Shape = hooks.use("edx2015")
