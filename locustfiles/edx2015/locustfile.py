"""edX's 2015 ecommerce load client, re-created for today's Locust.

What it re-creates: the Locust suite edX deleted on 2016-01-29 ("Delete ecommerce load tests",
e0dff8d9109d600d7257e487b065e77a067a9e57), as it stood in its parent, repository edx/load-tests
at 860f6fa43c4c92513971dde2b3b6f922c8e57171: locust/ecommerce/locustfile.py, baskets.py,
payment.py, commerce.py, config.py, api.py and locust/helpers/auto_auth_tasks.py, with the
libraries it pinned for the order API: edx-ecommerce-api-client 1.1.2 (edx/ecommerce-api-client
69af623676fbc1309e272ef9697b0bc5934ed120) over slumber 0.7.1 (samgiles/slumber
d84e14014f38ecd444e7efa147e2e899f1b4b789), and Locust 0.7.2. It is written anew here, not
copied: what is edX's is what a run of theirs shows, the user and task set names, the setting
names, the requests in their order with their headers, bodies and stats names, the weights and
waits, and which answers fail a request or end a task.

Each simulated user is one session (cookies, credentials) for its whole life and waits 3 to 5 s
after every task. Its task set is LOCUST_TASK_SET: ``EcommerceTest`` (default) picks
``BasketsTasks`` (a free purchase through the LMS, baskets.py) 50 times for each
``CybersourcePaymentTasks`` (a paid purchase notified by CyberSource, payment.py), edX's
estimate of paid enrollments at 2 %; each part alone is the other choice. Requests fail on
Locust's rule alone (status 400 and above, or no answer); nothing checks content.

Departures from the 2015 client, each forced by today's Locust (2.x) and nothing else:

1. ``HttpLocust`` is ``HttpUser`` (Locust 1.0 renamed it; the old name refuses to be subclassed).
2. ``task_set = <class>`` is ``tasks = [<class>]`` (the attribute is ignored now, and the user
   would have no task).
3. ``min_wait = 3000`` / ``max_wait = 5000`` (ms) is ``wait_time = between(3, 5)`` (s): the old
   attributes are ignored now, and the users would not wait at all.
4. ``self.locust`` is ``self.user`` (task sets lost the attribute), for the LMS posts' Referer
   and the ``stop`` task's "am I nested" test.
5. Python 3 (Locust 2.x needs it): the notification's fields, and so its
   ``signed_field_names``, go out in the order written rather than Python 2's hash order (the
   signature covers them in whatever order they are listed).
6. The order API client is our api.py, not edx-ecommerce-api-client 1.1.2 over slumber: 1.1.2
   exists only as a Python 2 wheel (pip on Python 3 finds 1.1.1, which lacks the ``session``
   argument the client passes). api.py sends the same requests and raises on the same answers;
   its header lists what it keeps.

Ours, beside the client's behaviour (nothing on the wire changes):

* the defaults point at this stack (config.py): its ports, its token secret and issuer, its
  payment processor's secret, course 1 as the free course and course 1's paid seat as
  PAID_SKU, which edX required;
* EDX2015_WAIT_SCALE (default 1) multiplies the 3-5 s wait, so that tests can be short;
* not re-created, as nothing of it reaches the wire: commerce.py's ``logging.basicConfig`` and
  debug line per request, and the API client's ``session.timeout`` (an attribute requests
  never reads).

Kept as in 2015, flaws included: ECOMMERCE_ORDER_OFFSET set in the environment is text, so the
paid task then fails (leave it unset); a task that fails ends there and the user carries on.

Run it: ``make edx2015`` (against this stack, with the suite's report and audit; USERS,
DURATION, LOCUST_TASK_SET), or alone from the checkout: ``locust -f
locustfiles/edx2015/locustfile.py --host <the LMS's URL>``. scripts/edx2015-original.sh runs
edX's own.
"""

from locust import HttpUser, TaskSet, between

from locustfiles.edx2015.baskets import BasketsTasks
from locustfiles.edx2015.config import LOCUST_TASK_SET, WAIT_SCALE
from locustfiles.edx2015.payment import CybersourcePaymentTasks


class EcommerceTest(TaskSet):
    """Free and paid purchases, 50 : 1."""

    tasks = {BasketsTasks: 50, CybersourcePaymentTasks: 1}


TASK_SETS = {cls.__name__: cls for cls in (EcommerceTest, BasketsTasks, CybersourcePaymentTasks)}


class EcommerceLocust(HttpUser):
    tasks = [TASK_SETS[LOCUST_TASK_SET]]
    wait_time = between(3 * WAIT_SCALE, 5 * WAIT_SCALE)
