"""Buying seats: the order path of ``POST /api/v2/baskets/``.

    transaction 1   learner (first sight), basket, Oscar order, idempotency key, seat claims
    no transaction  the LMS enrollment call (fulfilment)
    transaction 2   line and order statuses, the stored answer for the idempotency key

Two commits per order, none open while the LMS is called. Everything that can reject the
request (validation, unknown SKUs) runs before the first write, so a rejected request writes
nothing.
"""

import time
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from oscar.core.loading import get_model

from ecommerce.core.auth import save_new_user
from ecommerce.core.errors import ApiError
from ecommerce.fulfillment.api import fulfil
from ecommerce.orders.models import IdempotencyRecord, SeatClaim
from ecommerce.orders.placement import SeatOrderCreator, build_basket
from ecommerce.orders.representation import basket_body
from ecommerce.orders.requests import BasketRequest

Order = get_model("order", "Order")


@dataclass
class Answer:
    status: int
    body: dict
    replayed: bool = False


class _KeyTaken(Exception):
    """Another request with this Idempotency-Key got there first."""


class _SeatOwned(Exception):
    """The learner already has an order for one of the seats."""


def purchase(user, request: BasketRequest, stockrecords, key: str | None) -> Answer:
    try:
        with transaction.atomic():
            user = save_new_user(user)
            basket, basket_lines = build_basket(user, stockrecords, submitted=request.checkout)
            if not request.checkout:
                answer = Answer(201, basket_body(basket))
                if key:
                    _claim_key(user, key, request, basket, answer)
                return answer
            order, lines = SeatOrderCreator().place_seat_order(basket, basket_lines, user)
            record = _claim_key(user, key, request, basket) if key else None
            _claim_seats(user, order, lines)
    except _KeyTaken:
        return _replay(user, key, request)
    except _SeatOwned:
        raise _already_owned(user, stockrecords) from None

    def answer_and_store_it() -> Answer:  # in transaction 2, with the statuses
        answer = Answer(201, basket_body(basket, order, lines))
        if record:
            IdempotencyRecord._default_manager.filter(pk=record.pk).update(
                response_status=answer.status, response_body=answer.body
            )
        return answer

    return fulfil(order, lines, then=answer_and_store_it)


def _claim_key(user, key, request, basket, answer: Answer | None = None) -> IdempotencyRecord:
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
        raise _KeyTaken from None


def _claim_seats(user, order, lines) -> None:
    # In product order, so two baskets of one learner lock the same rows in the same order.
    claims = sorted(
        (SeatClaim(user=user, product_id=line.product_id, order=order) for line in lines),
        key=lambda claim: claim.product_id,
    )
    try:
        SeatClaim._default_manager.bulk_create(claims)
    except IntegrityError:
        raise _SeatOwned from None


def _replay(user, key, request) -> Answer:
    """Answer a repeated Idempotency-Key with the first request's answer.

    While the first request is still fulfilling, wait for its answer a little
    (IDEMPOTENCY_WAIT_SECONDS), then ask the client to retry. If the first request died after
    committing its order (it can no longer be running), answer from the committed order.
    """
    deadline = time.monotonic() + settings.IDEMPOTENCY_WAIT_SECONDS
    delay = 0.02
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
        if _abandoned(record):
            return _answer_from_committed_state(record)
        if time.monotonic() >= deadline:
            raise _in_progress()
        time.sleep(delay)
        delay = min(delay * 2, 0.25)


def _abandoned(record) -> bool:
    """Fulfilment ends within LMS_ENROLLMENT_TIMEOUT, so a first request still without an
    answer well after that died between its two transactions."""
    waited = timezone.now() - record.created
    return waited > timezone.timedelta(seconds=settings.LMS_ENROLLMENT_TIMEOUT + 10)


def _in_progress() -> ApiError:
    return ApiError(
        409,
        "request_in_progress",
        "The first request with this Idempotency-Key is still running; retry shortly.",
        headers={"Retry-After": "1"},
    )


def _answer_from_committed_state(record) -> Answer:
    order = Order._default_manager.filter(basket_id=record.basket_id).prefetch_related("lines").first()
    lines = order.lines.all() if order else ()
    return Answer(201, basket_body(record.basket, order, lines), replayed=True)


def _already_owned(user, stockrecords) -> ApiError:
    claim = (
        SeatClaim._default_manager.filter(user=user, product__in=[r.product_id for r in stockrecords])
        .select_related("order")
        .first()
    )
    order = claim.order if claim else None
    return ApiError(
        409,
        "already_purchased",
        "This learner already has an order for this seat"
        + (f" ({order.number}, {order.status})." if order else "."),
        order_number=order.number if order else None,
    )
