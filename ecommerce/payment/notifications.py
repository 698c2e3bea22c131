"""A payment processor's notification: what it does to the order service, exactly once.

    refused (400)   bad signature, malformed, unknown reference, amount or currency not the
                    basket's: recorded by reference, outcome, size and digest (not its fields),
                    nothing else written
    declined (200)  any decision but ACCEPT: recorded; the basket stays frozen, so a later
                    ACCEPT for the same reference still places its order
    accepted (200)  one transaction, the basket's row locked:
                      placed       the order, under the basket's order number, its seat claims,
                                   the payment in Oscar's models (Source, Transaction, a Paid
                                   PaymentEvent over the lines); then fulfilment, outside it
                      replay       this transaction was already taken for this basket: nothing
                      refund_owed  the money was taken but no order can be placed: the learner
                                   already owns a seat of the basket (bought through another
                                   basket), or the basket was paid by another transaction

The basket's row lock is what makes two identical notifications at the same moment place one
order: the second waits for the first to commit, then finds its payment and is a replay. Every
outcome is one commit (the notification's record is written in the same transaction), and the
LMS is called with no transaction open (rule 3), through fulfillment.api.fulfil as a free
purchase is: if the LMS is down the order waits in Fulfillment Error for retry_fulfillment.
"""

import hashlib
import logging
from dataclasses import dataclass, field

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from oscar.core.loading import get_model

from common.contract import errors as contract_errors
from common.contract import order_numbers
from common.contract.statuses import NOTIFICATION
from ecommerce.orders.placement import AsAskedStrategy, SeatOrderCreator, amount_due
from ecommerce.orders.purchase import SeatOwned, claim_seats, owns_any
from ecommerce.payment.models import PaymentNotification
from ecommerce.payment.processors import Notification, Refused

logger = logging.getLogger(__name__)

Basket = get_model("basket", "Basket")
SourceType = get_model("payment", "SourceType")
Source = get_model("payment", "Source")
Transaction = get_model("payment", "Transaction")
PaymentEventType = get_model("order", "PaymentEventType")
PaymentEvent = get_model("order", "PaymentEvent")
PaymentEventQuantity = get_model("order", "PaymentEventQuantity")

# Oscar's name for the event of a payment taken for an order's lines (Otto used the same).
PAID = "Paid"


@dataclass(frozen=True)
class Body:
    """What every record keeps of a notification's request body: its size and SHA-256."""

    size: int
    digest: str

    @classmethod
    def of(cls, raw: bytes) -> "Body":
        return cls(len(raw), hashlib.sha256(raw).hexdigest())


@dataclass
class Outcome:
    """What the notification became, and how the processor is answered."""

    outcome: str
    status: int = 200
    code: str | None = None
    message: str | None = None
    order: object = None  # placed now: fulfil it once the transaction has committed
    lines: list = field(default_factory=list)


def receive(processor, fields: dict[str, str], body: Body) -> Outcome:
    """Handle one notification posted to ``processor``'s notify URL (``body``: its request's
    size and digest). Call with no transaction open."""
    try:
        note = processor.read_notification(fields)
    except Refused as refused:
        return _refuse(processor, fields, body, None, refused)
    basket_id = order_numbers.basket_id(settings.ORDER_NUMBER_PREFIX, note.reference_number)
    if not note.accepted:
        basket = Basket._default_manager.filter(pk=basket_id).first() if basket_id else None
        if not _takes_payment(basket):
            return _refuse(processor, fields, body, note, _unknown_reference(note))
        _record(processor, fields, body, note, NOTIFICATION.DECLINED, basket)
        logger.info("payment for %s not accepted (%s)", note.reference_number, note.decision)
        return Outcome(NOTIFICATION.DECLINED)
    with transaction.atomic():
        basket = _locked_basket(basket_id)
        if not _takes_payment(basket):
            return _refuse(processor, fields, body, note, _unknown_reference(note))
        basket.strategy = AsAskedStrategy()
        basket_lines = list(basket.lines.select_related("product__product_class", "stockrecord"))
        refused = _amount_refused(note, basket_lines)
        if refused:
            return _refuse(processor, fields, body, note, refused, basket)
        outcome = _accept(processor.name, note, basket, basket_lines)
        _record(processor, fields, body, note, outcome.outcome, basket, outcome.order)
    if outcome.outcome == NOTIFICATION.REFUND_OWED:
        logger.warning("payment %s for %s: a refund is owed", note.transaction_id, note.reference_number)
    return outcome


def _accept(processor_name: str, note: Notification, basket, basket_lines) -> Outcome:
    """An accepted payment for the locked ``basket``: place its order, or say why not."""
    earlier = PaymentNotification._default_manager.filter(
        basket=basket, transaction_id=note.transaction_id[:128], outcome__in=NOTIFICATION.ACCEPTED
    ).exists()
    if earlier:
        return Outcome(NOTIFICATION.REPLAY)
    if basket.status != Basket.FROZEN:  # paid already, by another transaction
        return Outcome(NOTIFICATION.REFUND_OWED)
    owner = basket.owner
    if owns_any(owner, [line.product_id for line in basket_lines]):
        return Outcome(NOTIFICATION.REFUND_OWED)
    try:
        with transaction.atomic():  # a savepoint: a seat claimed meanwhile undoes the order only
            order, lines = SeatOrderCreator().place_seat_order(basket, basket_lines, owner)
            claim_seats(owner, order, lines)
    except SeatOwned:
        return Outcome(NOTIFICATION.REFUND_OWED)
    _record_payment(processor_name, note, order, lines)
    Basket._default_manager.filter(pk=basket.pk).update(
        status=Basket.SUBMITTED, date_submitted=timezone.now()
    )
    return Outcome(NOTIFICATION.PLACED, order=order, lines=lines)


def _locked_basket(basket_id: int | None):
    if basket_id is None:
        return None
    return Basket._default_manager.select_for_update().select_related("owner").filter(pk=basket_id).first()


def _takes_payment(basket) -> bool:
    """A basket a payment can be for: frozen for one, or placed by one already (a replay, or a
    second payment to refund)."""
    if basket is None:
        return False
    if basket.status == Basket.FROZEN:
        return True
    return (
        basket.status == Basket.SUBMITTED
        and PaymentNotification._default_manager.filter(basket=basket, outcome=NOTIFICATION.PLACED).exists()
    )


def _amount_refused(note: Notification, basket_lines) -> Refused | None:
    due, currency = amount_due(basket_lines)
    if note.amount != due or note.authorised != due:
        return Refused(
            NOTIFICATION.AMOUNT_MISMATCH,
            contract_errors.AMOUNT_MISMATCH,
            f"The basket costs {due}; the notification asked {note.amount} and authorised {note.authorised}.",
        )
    if note.currency != currency:
        return Refused(
            NOTIFICATION.CURRENCY_MISMATCH,
            contract_errors.CURRENCY_MISMATCH,
            f"The basket is in {currency}, the notification in {note.currency[:12]!r}.",
        )
    return None


def _unknown_reference(note: Notification) -> Refused:
    return Refused(
        NOTIFICATION.UNKNOWN_REFERENCE,
        contract_errors.UNKNOWN_REFERENCE,
        f"No basket awaits a payment under {note.reference_number[:64]!r}.",
    )


def _refuse(
    processor, fields: dict[str, str], body: Body, note: Notification | None, refused: Refused, basket=None
) -> Outcome:
    _record(processor, fields, body, note, refused.outcome, basket)
    logger.warning("notification refused (%s): %s", refused.outcome, refused.message)
    return Outcome(refused.outcome, 400, refused.code, refused.message)


def _record(
    processor, fields: dict[str, str], body: Body, note: Notification | None, outcome: str, basket, order=None
) -> None:
    """Write the notification's record (in the caller's transaction, if any): its fields only
    when it was taken, its body's size and digest always."""
    PaymentNotification._default_manager.create(
        processor=processor.name,
        reference_number=_text(note.reference_number if note else fields.get("req_reference_number")),
        transaction_id=_text(note.transaction_id if note else fields.get("transaction_id")),
        decision=_text(note.decision if note else fields.get("decision"), 32),
        fields=None if outcome in NOTIFICATION.REFUSED else dict(fields),
        size=body.size,
        digest=body.digest,
        outcome=outcome,
        basket=basket,
        order=order,
    )


def record_unreadable(processor_name: str, body: Body) -> None:
    """A notify request whose form could not be read (too large, not a form, a field twice):
    recorded as malformed by its size and digest."""
    PaymentNotification._default_manager.create(
        processor=processor_name, size=body.size, digest=body.digest, outcome=NOTIFICATION.MALFORMED
    )


def record_failure(processor_name: str, fields: dict[str, str], body: Body) -> None:
    """Best effort, after the service failed on a notification: record it as failed, by its
    columns, size and digest (the processor sends it again; nothing was placed, the failed
    transaction rolled back)."""
    try:
        with transaction.atomic():
            PaymentNotification._default_manager.create(
                processor=processor_name,
                reference_number=_text(fields.get("req_reference_number")),
                transaction_id=_text(fields.get("transaction_id")),
                decision=_text(fields.get("decision"), 32),
                size=body.size,
                digest=body.digest,
                outcome=NOTIFICATION.FAILED,
            )
    except Exception:  # the database may be what failed
        logger.exception("could not record a failed notification")


def _text(value, length: int = 128) -> str:
    return (value if isinstance(value, str) else "")[:length]


def _record_payment(processor_name: str, note: Notification, order, lines) -> None:
    """The payment in Oscar's own models: the processor as the order's source (allocated and
    debited: a sale), its debit transaction, and a Paid event covering every line."""
    amount = order.total_incl_tax
    source = Source._default_manager.create(
        order=order,
        source_type=_named(SourceType, processor_name),
        currency=order.currency,
        amount_allocated=amount,
        amount_debited=amount,
        reference=note.transaction_id[:255],
        label=note.card[:128],
    )
    Transaction._default_manager.create(
        source=source,
        txn_type=Transaction.DEBIT,
        amount=amount,
        reference=note.transaction_id[:128],
        status=note.decision[:128],
    )
    event = PaymentEvent._default_manager.create(
        order=order,
        amount=amount,
        reference=note.transaction_id[:128],
        event_type=_named(PaymentEventType, PAID),
    )
    PaymentEventQuantity._default_manager.bulk_create(
        [PaymentEventQuantity(event=event, line=line, quantity=line.quantity) for line in lines]
    )


def _named(model, name: str):
    """Oscar's row of that name (a source type, a payment event type), created on first use;
    two first uses at once both end with the one row."""
    found = model._default_manager.filter(name=name).first()
    if found is not None:
        return found
    try:
        with transaction.atomic():
            return model._default_manager.create(name=name)
    except IntegrityError:
        return model._default_manager.filter(name=name).order_by("pk").first()
