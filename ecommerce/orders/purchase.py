"""Buying seats: the order path of ``POST /api/v2/baskets/``.

    transaction 1   learner (first sight), basket, Oscar order, idempotency key, seat claims
    no transaction  the LMS enrollment call (fulfilment)
    transaction 2   line and order statuses, the stored answer for the idempotency key

Two commits per order, none open while the LMS is called. Everything that can reject the
request (validation, unknown SKUs) runs before the first write, so a rejected request writes
nothing. The LMS call and transaction 2 are ``fulfillment.api.fulfil``, which a retry runs
too; the purchase adds the stored answer to its transaction. Claiming the key and replaying
its answer are in ``idempotency.py``.
"""

from django.db import IntegrityError, transaction

from common.contract import errors as contract_errors
from ecommerce.core.auth import save_new_user
from ecommerce.core.errors import ApiError
from ecommerce.fulfillment.api import fulfil
from ecommerce.orders import idempotency
from ecommerce.orders.idempotency import Answer
from ecommerce.orders.models import SeatClaim
from ecommerce.orders.placement import SeatOrderCreator, build_basket
from ecommerce.orders.representation import basket_body
from ecommerce.orders.requests import BasketRequest


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
                    idempotency.claim(user, key, request, basket, answer)
                return answer
            order, lines = SeatOrderCreator().place_seat_order(basket, basket_lines, user)
            record = idempotency.claim(user, key, request, basket) if key else None
            _claim_seats(user, order, lines)
    except idempotency.KeyTaken:
        return idempotency.replay(user, key, request)
    except _SeatOwned:
        raise _already_owned(user, stockrecords) from None

    def answer_and_store_it() -> Answer:  # in transaction 2, with the statuses
        answer = Answer(201, basket_body(basket, order, lines))
        if record:
            idempotency.store_answer(record, answer)
        return answer

    return fulfil(order, lines, then=answer_and_store_it)


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
