"""The timings of an Idempotency-Key replay: how often it looks for the first answer, and when
it gives the first request up for dead."""

from itertools import islice, pairwise

from django.utils import timezone

from ecommerce.orders import idempotency
from ecommerce.orders.idempotency import (
    ABANDONED_AFTER_MARGIN_SECONDS,
    FIRST_POLL_SECONDS,
    MAX_POLL_SECONDS,
)
from ecommerce.orders.models import IdempotencyRecord


def polls_within(wait_seconds: float) -> int:
    """How many looks a replay takes before its wait is over (the queries taking no time)."""
    polls, waited = 1, 0.0
    for delay in idempotency.poll_delays():
        if waited >= wait_seconds:
            return polls
        waited += delay
        polls += 1


def test_the_waits_double_from_the_first_poll_up_to_the_cap():
    delays = list(islice(idempotency.poll_delays(), 20))
    assert delays[0] == FIRST_POLL_SECONDS
    for before, after in pairwise(delays):
        assert after == min(before * 2, MAX_POLL_SECONDS)
    assert delays[-1] == MAX_POLL_SECONDS


def test_a_replay_looks_about_a_dozen_times_within_the_default_wait():
    # IDEMPOTENCY_WAIT_SECONDS defaults to 2 s: 0.02, 0.04, 0.08, 0.16, then 0.25 s apart.
    assert polls_within(2.0) == 12


def test_a_first_request_is_abandoned_only_past_the_enrollment_timeout_and_the_margin(settings):
    settings.LMS_ENROLLMENT_TIMEOUT = 7.0
    limit = settings.LMS_ENROLLMENT_TIMEOUT + ABANDONED_AFTER_MARGIN_SECONDS

    def created_ago(seconds):
        return IdempotencyRecord(created=timezone.now() - timezone.timedelta(seconds=seconds))

    assert not idempotency.abandoned(created_ago(settings.LMS_ENROLLMENT_TIMEOUT + 1))
    assert not idempotency.abandoned(created_ago(limit - 1))
    assert idempotency.abandoned(created_ago(limit + 1))
