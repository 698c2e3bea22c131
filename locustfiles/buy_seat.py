"""A learner buys a course seat through the LMS, as in edX's 2015 load tests.

Every purchase is made by a fresh learner (/auto_auth), because a learner who already owns a
seat is answered 409. COURSES limits the choice to the first N seeded courses (1 = every buyer
wants the same seat). WAIT_MIN/WAIT_MAX set the think time (edX's suite waited 3-5 s; 0 0 makes
a closed loop at fixed concurrency).

    locust -f locustfiles/buy_seat.py -H http://127.0.0.1:18000
"""

import os
import random

from locust import FastHttpUser, between, task

from ecommerce.courses.definition import catalogue

COURSES = [
    s.course_id for s in catalogue(int(os.environ.get("COURSES") or os.environ.get("CATALOG_COURSES", "100")))
]


class Learner(FastHttpUser):
    wait_time = between(float(os.environ.get("WAIT_MIN", "3")), float(os.environ.get("WAIT_MAX", "5")))

    @task
    def buy_seat(self):
        self.client.cookiejar.clear()
        with self.client.get("/auto_auth", name="/auto_auth", catch_response=True) as login:
            if login.status_code != 201:
                login.failure(f"auto_auth answered {login.status_code}")
                return
            token = login.json()["csrf_token"]
        self.client.post(
            "/api/commerce/v0/baskets/",
            json={"course_id": random.choice(COURSES)},
            headers={"X-CSRFToken": token, "Referer": self.host + "/"},
            name="/api/commerce/v0/baskets/",
        )
