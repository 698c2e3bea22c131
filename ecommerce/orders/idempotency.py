"""Idempotency-Key: claiming a key in the purchase's first transaction, and replaying its answer.

The purchase claims the key (``claim``) in transaction 1 and stores its answer
(``store_answer``) in transaction 2. A request that finds the key taken replays (``replay``):
the stored answer, or, while the first request still runs, a short wait for it and then a 409
telling the client to retry; if the first request died between its transactions, an answer
from the order it committed.
"""

import time
from collections.abc import Iterator
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from oscar.core.loading import get_model

from common.contract import errors as contract_errors
from ecommerce.core.errors import ApiError
from ecommerce.orders.models import IdempotencyRecord
from ecommerce.orders.representation import basket_body

Order = get_model("order", "Order")

# A replay's first look for the stored answer comes this soon: a duplicate sent together with
# the first request (a double click, a client's retry) usually finds the answer within a few
# polls, and each poll is one SELECT on the (user, key) unique key.
FIRST_POLL_SECONDS = 0.02
# Each wait doubles up to this: within IDEMPOTENCY_WAIT_SECONDS (2 s) a replay polls about a
# dozen times, and it sees a stored answer at most a quarter of a second late.
MAX_POLL_SECONDS = 0.25
# A first request's LMS calls end within LMS_ENROLLMENT_TIMEOUT of its first commit. This much
# more covers the rest of its work after the key row was created (the seat claims, both
# commits, a wait for a pooled connection) and two hosts' clocks that differ a little
# (``created`` is the first request's clock). Judging too early would answer with an order
# still Open; judging too late only delays the replay of a request that died.
ABANDONED_AFTER_MARGIN_SECONDS = 10
# Sent with the 409 for a request still running: by then the replay has waited
# IDEMPOTENCY_WAIT_SECONDS, and the retry waits that long again on the server. One second is
# also what the service's other "retry shortly" answers (503s in ecommerce.core.errors) send.
RETRY_AFTER_SECONDS = 1


@dataclass
class Answer:
    """What a basket request is answered; the key stores it, and a replay repeats it."""

    status: int
    body: dict
    replayed: bool = False


class KeyTaken(Exception):
    """Another request with this Idempotency-Key got there first."""


def claim(user, key, request, basket, answer: Answer | None = None) -> IdempotencyRecord:
    """Insert the key row; a concurrent request with the same key waits here, then fails."""
    try:
        with transaction.atomic(savepoint=False):
            return IdempotencyRecord._default_manager.create(
                user=user,
                key=key,
                fingerprint=request.fingerprint,
                basket=basket,
                response_status=answer.status if answer else None,
                response_body=answer.body if answer else None,
            )
    except IntegrityError:
        raise KeyTaken from None


def store_answer(record: IdempotencyRecord, answer: Answer) -> None:
    """Store the answer a replay will get. Call inside the transaction that makes it true."""
    IdempotencyRecord._default_manager.filter(pk=record.pk).update(
        response_status=answer.status, response_body=answer.body
    )


def replay(user, key, request) -> Answer:
    """Answer a repeated Idempotency-Key with the first request's answer.

    While the first request is still fulfilling, wait for its answer a little
    (IDEMPOTENCY_WAIT_SECONDS), then ask the client to retry. If the first request died after
    committing its order (it can no longer be running), answer from the committed order.
    """
    deadline = time.monotonic() + settings.IDEMPOTENCY_WAIT_SECONDS
    delays = poll_delays()
    while True:
        record = IdempotencyRecord._default_manager.filter(user=user, key=key).first()
        if record is None:  # the first request rolled back after this one saw its key
            raise _in_progress()
        if record.fingerprint != request.fingerprint:
            raise ApiError(
                422,
                "idempotency_key_reused",
                "This Idempotency-Key was used for a different request.",
            )
        if record.response_status is not None:
            return Answer(record.response_status, record.response_body, replayed=True)
        if abandoned(record):
            return _answer_from_committed_state(record)
        if time.monotonic() >= deadline:
            raise _in_progress()
        time.sleep(next(delays))


def poll_delays() -> Iterator[float]:
    """The waits between a replay's looks for the stored answer: doubling, then capped."""
    delay = FIRST_POLL_SECONDS
    while True:
        yield delay
        delay = min(delay * 2, MAX_POLL_SECONDS)


def abandoned(record: IdempotencyRecord) -> bool:
    """Fulfilment ends within LMS_ENROLLMENT_TIMEOUT, so a first request still without an
    answer well after that died between its two transactions."""
    waited = timezone.now() - record.created
    limit = settings.LMS_ENROLLMENT_TIMEOUT + ABANDONED_AFTER_MARGIN_SECONDS
    return waited > timezone.timedelta(seconds=limit)


def _in_progress() -> ApiError:
    return ApiError(
        409,
        contract_errors.REQUEST_IN_PROGRESS,
        "The first request with this Idempotency-Key is still running; retry shortly.",
        headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
    )


def _answer_from_committed_state(record) -> Answer:
    order = Order._default_manager.filter(basket_id=record.basket_id).prefetch_related("lines").first()
    lines = order.lines.all() if order else ()
    return Answer(201, basket_body(record.basket, order, lines), replayed=True)
