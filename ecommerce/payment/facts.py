"""Facts about payments for the load suite's audit and its chaos faults (through the order_facts
command): what each order was paid with, and what became of the processor's notifications.

The suite judges; these only report, in plain JSON values (amounts as decimal strings):

* an order's payment: its total, its Oscar payment sources (allocated, debited, refunded) and
  its Paid payment events, with the learner and the course of each line, so a paid seat the
  LMS enrolled can be matched to the payment behind it;
* the notifications above a watermark: how many ended in each outcome, and each payment the
  processor accepted (a reference number and transaction id with decision ACCEPT) with the
  outcomes its notifications were given and the order it placed, if any.
"""

from collections import Counter, defaultdict
from collections.abc import Iterable

from oscar.core.loading import get_model

from common.contract import cybersource
from common.contract.courses import COURSE_ATTRIBUTE
from ecommerce.payment.models import PaymentNotification
from ecommerce.payment.notifications import PAID

Order = get_model("order", "Order")
Line = get_model("order", "Line")
Source = get_model("payment", "Source")
PaymentEvent = get_model("order", "PaymentEvent")
ProductAttributeValue = get_model("catalogue", "ProductAttributeValue")

CHUNK = 2000  # ids per IN list


def payments_since(order_id: int, orders: Iterable[tuple[int, object, list[int]]]) -> dict[int, dict]:
    """The payment of every order above the watermark that costs something or was paid:
    order id -> payment. ``orders`` is (id, total, product ids of its lines) of each order above
    it (the caller has read them)."""
    sources = _sources(Source._default_manager.filter(order_id__gt=order_id))
    events = _paid_events(PaymentEvent._default_manager.filter(order_id__gt=order_id))
    totals = {pk: (total, products) for pk, total, products in orders}
    wanted = [pk for pk, (total, _) in totals.items() if total > 0 or pk in sources or pk in events]
    return _payments(wanted, totals, sources, events)


def payments_of(usernames: list[str]) -> dict[str, list[dict]]:
    """Each learner's orders that cost something or were paid, oldest first, as payments with
    the order's number and status."""
    orders = list(
        Order._default_manager.filter(user__username__in=usernames)
        .order_by("id")
        .values_list("id", "number", "status", "total_incl_tax")
    )
    ids = [pk for pk, _, _, _ in orders]
    products: dict[int, list[int]] = defaultdict(list)
    for chunk in _chunks(ids):
        for order, product in (
            Line._default_manager.filter(order_id__in=chunk)
            .order_by("id")
            .values_list("order_id", "product_id")
        ):
            products[order].append(product)
    sources = _sources(Source._default_manager.filter(order_id__in=ids))
    events = _paid_events(PaymentEvent._default_manager.filter(order_id__in=ids))
    totals = {pk: (total, products.get(pk, [])) for pk, _, _, total in orders}
    wanted = [pk for pk, (total, _) in totals.items() if total > 0 or pk in sources or pk in events]
    found = _payments(wanted, totals, sources, events)
    orders_by_id = {pk: {"number": number, "status": status} for pk, number, status, _ in orders}
    out: dict[str, list[dict]] = {name: [] for name in usernames}
    for pk in wanted:
        out.setdefault(found[pk]["learner"], []).append({**orders_by_id[pk], **found[pk]})
    return out


def _payments(wanted: list[int], totals: dict, sources: dict, events: dict) -> dict[int, dict]:
    learners = {}
    for chunk in _chunks(wanted):
        learners.update(Order._default_manager.filter(pk__in=chunk).values_list("id", "user__username"))
    course_of = _courses({product for pk in wanted for product in totals[pk][1]})
    return {
        pk: {
            "total": str(totals[pk][0]),
            "learner": learners[pk],
            "courses": [course_of.get(product) for product in totals[pk][1]],
            "sources": sources.get(pk, []),
            "paid_events": events.get(pk, []),
        }
        for pk in wanted
    }


def _sources(query) -> dict[int, list[dict]]:
    found: dict[int, list[dict]] = defaultdict(list)
    amounts = ("amount_allocated", "amount_debited", "amount_refunded")
    rows = query.order_by("id").values_list("order_id", *amounts)
    for order, allocated, debited, refunded in rows.iterator(chunk_size=CHUNK):
        found[order].append({"allocated": str(allocated), "debited": str(debited), "refunded": str(refunded)})
    return found


def _paid_events(query) -> dict[int, list[str]]:
    found: dict[int, list[str]] = defaultdict(list)
    rows = query.filter(event_type__name=PAID).order_by("id").values_list("order_id", "amount")
    for order, amount in rows.iterator(chunk_size=CHUNK):
        found[order].append(str(amount))
    return found


def _courses(products: set[int]) -> dict[int, str]:
    """The course each seat product enrols in (its course attribute)."""
    values = ProductAttributeValue._default_manager.filter(
        product_id__in=list(products), attribute__code=COURSE_ATTRIBUTE
    )
    return dict(values.values_list("product_id", "value_text"))


def notifications_since(notification_id: int) -> dict:
    """The notifications above the watermark: their count by outcome, and each payment the
    processor accepted among them (reference number, transaction id), oldest first, with the
    outcomes of its notifications and the number of the order it placed (None if none did)."""
    by_outcome: Counter[str] = Counter()
    accepted: dict[tuple[str, str], dict] = {}
    rows = (
        PaymentNotification._default_manager.filter(id__gt=notification_id)
        .order_by("id")
        .values_list("reference_number", "transaction_id", "decision", "outcome", "order__number")
    )
    for reference, transaction, decision, outcome, number in rows.iterator(chunk_size=CHUNK):
        by_outcome[outcome] += 1
        if decision.upper() != cybersource.ACCEPT:
            continue
        payment = accepted.setdefault(
            (reference, transaction),
            {"reference": reference, "transaction": transaction, "outcomes": [], "order": None},
        )
        payment["outcomes"].append(outcome)
        payment["order"] = payment["order"] or number
    return {"by_outcome": dict(by_outcome), "accepted": list(accepted.values())}


def notifications_of(usernames: list[str]) -> dict[str, list[dict]]:
    """The notifications of each learner's baskets, oldest first: reference, transaction,
    decision, outcome (refused ones name no basket and are not among them)."""
    out: dict[str, list[dict]] = {name: [] for name in usernames}
    rows = (
        PaymentNotification._default_manager.filter(basket__owner__username__in=usernames)
        .order_by("id")
        .values_list("basket__owner__username", "reference_number", "transaction_id", "decision", "outcome")
    )
    for learner, reference, transaction, decision, outcome in rows:
        out[learner].append(
            {"reference": reference, "transaction": transaction, "decision": decision, "outcome": outcome}
        )
    return out


def _chunks(ids: list[int]) -> Iterable[list[int]]:
    for start in range(0, len(ids), CHUNK):
        yield ids[start : start + CHUNK]
