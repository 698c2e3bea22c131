"""The free purchase (2015: locust/ecommerce/baskets.py): a new learner buys the free course
through the LMS. Only the answer's status is judged (Locust: 400 and above is a failure)."""

import json

from locust import task

from locustfiles.edx2015.commerce import CommerceTasks
from locustfiles.edx2015.config import FREE_COURSE_ID


class BasketsTasks(CommerceTasks):
    @task
    def purchase_single_free_product(self):
        self.auto_auth()  # a learner who owns nothing yet
        self.lms_post("/api/commerce/v0/baskets/", json.dumps({"course_id": FREE_COURSE_ID}))
