"""Buying seats: the order path of ``POST /api/v2/baskets/``.

A free basket (total 0.00) is placed and fulfilled at once:

    transaction 1   learner (first sight), basket, Oscar order, idempotency key, seat claims
    no transaction  the LMS enrollment call (fulfilment)
    transaction 2   line and order statuses, the stored answer for the idempotency key

Two commits per order, none open while the LMS is called. Everything that can reject the
request (validation, unknown SKUs) runs before the first write, so a rejected request writes
nothing. The LMS call and transaction 2 are ``fulfillment.api.fulfil``, which a retry runs
too; the purchase adds the stored answer to its transaction. Claiming the key and replaying
its answer are in ``idempotency.py``.

A paid basket (``checkout`` and a total above zero) places nothing: one transaction writes the
learner, the basket (frozen: awaiting payment) and the idempotency key with its answer, the
processor's signed ``payment_data``. The order is placed when the processor's notification
arrives (ecommerce.payment.notifications), which claims the seats then.
"""

from django.db import IntegrityError, transaction
from oscar.core.loading import get_model

from common import rows
from common.contract import errors as contract_errors
from ecommerce.core.auth import save_new_user
from ecommerce.core.errors import ApiError
from ecommerce.fulfillment.api import fulfil
from ecommerce.orders import idempotency
from ecommerce.orders.idempotency import Answer
from ecommerce.orders.models import SeatClaim
from ecommerce.orders.placement import SeatOrderCreator, build_basket, is_paid
from ecommerce.orders.representation import basket_body
from ecommerce.orders.requests import BasketRequest

Basket = get_model("basket", "Basket")


class SeatOwned(Exception):
    """The learner already has an order for one of the seats."""


def purchase(user, request: BasketRequest, stockrecords, key: str | None, processor) -> Answer:
    """Answer a basket request. ``processor`` (ecommerce.payment.processors) takes the payment
    of a paid basket; a free one, or one that does not check out, never uses it."""
    if request.checkout and is_paid(stockrecords):
        return _start_payment(user, request, stockrecords, key, processor)
    try:
        with transaction.atomic():
            user = save_new_user(user)
            status = Basket.SUBMITTED if request.checkout else Basket.OPEN
            basket, basket_lines = build_basket(user, stockrecords, status)
            if not request.checkout:
                answer = Answer(201, basket_body(basket))
                if key:
                    idempotency.claim(user, key, request, basket, answer)
                return answer
            order, lines = SeatOrderCreator().place_seat_order(basket, basket_lines, user)
            record = idempotency.claim(user, key, request, basket) if key else None
            claim_seats(user, order, lines)
    except idempotency.KeyTaken:
        return idempotency.replay(user, key, request)
    except SeatOwned:
        raise _already_owned(user, stockrecords) from None

    def answer_and_store_it() -> Answer:  # in transaction 2, with the statuses
        answer = Answer(201, basket_body(basket, order, lines))
        if record:
            idempotency.store_answer(record, answer)
        return answer

    return fulfil(order, lines, then=answer_and_store_it)


def _start_payment(user, request: BasketRequest, stockrecords, key: str | None, processor) -> Answer:
    """A paid checkout: the frozen basket and the processor's signed form, in one transaction.

    The key is claimed before ownership is checked, so a replay gets its stored answer even
    after the learner has paid; a learner who already owns a seat gets 409 and nothing is
    written (the transaction rolls back)."""
    try:
        with transaction.atomic():
            user = save_new_user(user)
            basket, basket_lines = build_basket(user, stockrecords, Basket.FROZEN)
            answer = Answer(
                201,
                {**basket_body(basket), "payment_data": processor.payment_data(basket, basket_lines, user)},
            )
            if key:
                idempotency.claim(user, key, request, basket, answer)
            if owns_any(user, [record.product_id for record in stockrecords]):
                raise SeatOwned
            return answer
    except idempotency.KeyTaken:
        return idempotency.replay(user, key, request)
    except SeatOwned:
        raise _already_owned(user, stockrecords) from None


def owns_any(user, product_ids) -> bool:
    """The learner already has an order for one of these seats."""
    return SeatClaim._default_manager.filter(user=user, product_id__in=list(product_ids)).exists()


def claim_seats(user, order, lines) -> None:
    """Record that ``user`` owns the seats of ``lines`` through ``order``; SeatOwned (and the
    transaction is left to roll back) when one of them is already theirs."""
    # In product order, so two baskets of one learner lock the same rows in the same order.
    claims = sorted(
        (SeatClaim(user=user, product_id=line.product_id, order=order) for line in lines),
        key=lambda claim: claim.product_id,
    )
    try:
        rows.insert_all(claims, returning_ids=False)
    except IntegrityError:
        raise SeatOwned from None


def _already_owned(user, stockrecords) -> ApiError:
    claim = (
        SeatClaim._default_manager.filter(user=user, product__in=[r.product_id for r in stockrecords])
        .select_related("order")
        .first()
    )
    order = claim.order if claim else None
    return ApiError(
        409,
        contract_errors.ALREADY_PURCHASED,
        "This learner already has an order for this seat"
        + (f" ({order.number}, {order.status})." if order else "."),
        order_number=order.number if order else None,
    )
