"""A per-learner limit on purchases, shared by every worker and every host.

DRF's own throttles keep their counts in a cache; with one cache per gunicorn worker a learner
would get the limit once per worker. Here the count is the learner's baskets created in the
period, read from the database with one indexed query on the learner's own rows: nothing is
written, no row is shared, and a learner the service has never stored costs no query at all.
Two requests of one learner at the same instant may both pass; the limit is for abuse, not for
exact accounting (a seat is still bought once: the seat claim's unique key sees to that).
"""

import math
from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from oscar.core.loading import get_model
from rest_framework.throttling import BaseThrottle

Basket = get_model("basket", "Basket")


class LearnerPurchaseRate(BaseThrottle):
    """At most ECOMMERCE_LEARNER_RATE baskets per learner and period; 429 with Retry-After."""

    def allow_request(self, request, view) -> bool:
        rate = settings.ECOMMERCE_LEARNER_RATE
        user = request.user
        if rate is None or getattr(user, "pk", None) is None:
            return True
        limit, period = rate
        now = timezone.now()
        recent = list(
            Basket._default_manager.filter(
                owner_id=user.pk, date_created__gte=now - timedelta(seconds=period)
            )
            .order_by("-date_created")
            .values_list("date_created", flat=True)[:limit]
        )
        if len(recent) < limit:
            return True
        # The oldest of the last `limit` baskets leaves the period first.
        self.seconds_to_wait = (recent[-1] + timedelta(seconds=period) - now).total_seconds()
        return False

    def wait(self) -> float:
        return max(1, math.ceil(getattr(self, "seconds_to_wait", 1)))
