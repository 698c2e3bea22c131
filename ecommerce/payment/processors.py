"""Payment processors: each one a plain class that signs the form a paid checkout answers and
reads the notification its processor sends back. Only CyberSource Secure Acceptance exists, as
Otto had it first; ``get`` finds one by the name a basket request gives.

A processor reads a notification and says what it is, or why it is refused; what the order
service then does (place the order once, record the payment) is ecommerce.payment.notifications.
"""

import re
import uuid
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.utils import timezone

from common.contract import cybersource, order_numbers
from common.contract import errors as contract_errors
from common.contract.statuses import NOTIFICATION
from ecommerce.core.errors import ApiError
from ecommerce.courses.seats import enrollment_target
from ecommerce.orders.placement import amount_due

# An amount as a processor writes it: digits, and at most two decimals ("49.00", "49").
AMOUNT = re.compile(r"^[0-9]{1,12}(\.[0-9]{1,2})?\Z")


@dataclass(frozen=True)
class Notification:
    """What the order service acts on in a notification whose signature holds."""

    reference_number: str
    transaction_id: str
    decision: str
    accepted: bool
    amount: Decimal | None  # what was asked (req_amount); None when not accepted
    authorised: Decimal | None  # what was authorised (auth_amount); None when not accepted
    currency: str
    card: str  # as the processor shows it (masked)


class Refused(Exception):
    """A notification the order service refuses: 400, recorded, nothing placed."""

    def __init__(self, outcome: str, code: str, message: str):
        super().__init__(message)
        self.outcome, self.code, self.message = outcome, code, message


class Cybersource:
    """CyberSource Secure Acceptance (Web/Mobile): a signed form the learner's browser posts to
    the hosted payment page, and a signed notification posted back to /payment/cybersource/notify/.
    The signature and the fields are the wire contract (common.contract.cybersource)."""

    name = cybersource.PROCESSOR

    def __init__(self, config: dict, stand_in: dict | None = None):
        """``config``: the shop's profile and payment page; ``stand_in``: the profile of lms_stub's
        processor stand-in when ECOMMERCE_PAYMENT_STAND_IN is on (else None): its notifications
        are then taken too, and it signs the checkout forms of a payment page at the stand-in."""
        self.payment_page_url = config["payment_page_url"]
        at_stand_in = stand_in is not None and cybersource.is_stand_in_page(self.payment_page_url)
        profile = stand_in if at_stand_in else config
        self.secret_key = profile["secret_key"]
        self.access_key = profile["access_key"]
        self.profile_id = profile["profile_id"]
        self.notification_keys = [config["secret_key"], *([stand_in["secret_key"]] if stand_in else [])]

    def payment_data(self, basket, basket_lines, user) -> dict:
        """The ``payment_data`` of a paid checkout: the signed form for ``basket`` (its
        reference_number is the order number the basket's order will have) and where to post it."""
        amount, currency = amount_due(basket_lines)
        fields = {
            "access_key": self.access_key,
            "profile_id": self.profile_id,
            "transaction_uuid": uuid.uuid4().hex,
            "unsigned_field_names": "",
            "signed_date_time": timezone.now().strftime(cybersource.SIGNED_DATE_TIME_FORMAT),
            "locale": settings.LANGUAGE_CODE,
            "transaction_type": "sale",
            "reference_number": order_numbers.order_number(settings.ORDER_NUMBER_PREFIX, basket.id),
            "amount": str(amount),
            "currency": currency,
            "consumer_id": user.username,
        }
        # For the processor's reports, as Otto sent them: the first seat's course and mode.
        course_id, mode = enrollment_target(basket_lines[0].product)
        if course_id:
            fields["merchant_defined_data1"] = course_id
            fields["merchant_defined_data2"] = mode or ""
        return {
            "payment_processor_name": self.name,
            "payment_form_data": cybersource.sign_checkout(fields, self.secret_key),
            "payment_page_url": self.payment_page_url,
        }

    def read_notification(self, fields: dict[str, str]) -> Notification:
        """The notification in ``fields`` (the POSTed form), or Refused: a signature that does not
        hold, or a field the order service needs that is missing, unsigned or unreadable. Signed
        fields no HMAC is worth computing over (cybersource.refusal) are refused first; signed
        ones that cannot be a notification (a checkout form's, re-split) after."""
        cannot = cybersource.refusal(fields)
        if cannot:
            raise _bad_signature(f"The signature is not checked: {cannot}.")
        if not cybersource.verify(fields, self.notification_keys):
            raise _bad_signature("The signature is missing or does not match the signed fields.")
        cannot = cybersource.notification_refusal(fields)
        if cannot:
            raise _malformed(f"Not a notification: {cannot}.")
        accepted = fields.get("decision", "").upper() == cybersource.ACCEPT
        needed = [*cybersource.NOTIFICATION_REQUIRED, *(("auth_amount",) if accepted else ())]
        missing = [name for name in needed if not fields.get(name)]
        if missing:
            raise _malformed(f"The notification lacks {', '.join(missing)}.")
        not_signed = cybersource.unsigned(fields, needed)
        if not_signed:
            raise _malformed(f"The signature does not cover {', '.join(not_signed)}.")
        amount = authorised = None
        if accepted:
            amount, authorised = _amount(fields, "req_amount"), _amount(fields, "auth_amount")
        return Notification(
            reference_number=fields["req_reference_number"],
            transaction_id=fields["transaction_id"],
            decision=fields["decision"],
            accepted=accepted,
            amount=amount,
            authorised=authorised,
            currency=fields["req_currency"],
            card=fields.get("req_card_number", ""),
        )


def _bad_signature(message: str) -> Refused:
    return Refused(NOTIFICATION.INVALID_SIGNATURE, contract_errors.INVALID_SIGNATURE, message)


def _malformed(message: str) -> Refused:
    return Refused(NOTIFICATION.MALFORMED, contract_errors.INVALID_NOTIFICATION, message)


def _amount(fields: dict[str, str], name: str) -> Decimal:
    if not AMOUNT.match(fields[name]):
        raise _malformed(f"{name} is not an amount: {fields[name][:40]!r}.")
    return Decimal(fields[name])


def _registry() -> dict:
    return {"cybersource": Cybersource}


def names() -> list[str]:
    """The processors this service takes payments through, the default first."""
    return [name for name in settings.PAYMENT_PROCESSOR_CONFIG if name in _registry()]


def get(name: str | None):
    """The processor called ``name`` (None: the default); 400 unknown_payment_processor, before
    anything is written, for a name this service does not have."""
    available = names()
    chosen = available[0] if name is None else name
    if chosen not in available:
        raise ApiError(
            400,
            contract_errors.UNKNOWN_PAYMENT_PROCESSOR,
            f"No payment processor {name!r}; this service has {', '.join(available)}.",
            fields={"payment_processor_name": [f"One of: {', '.join(available)}."]},
        )
    return _processor(chosen)


def find(name: str):
    """The processor called ``name``, or None (the notify URL names it)."""
    if name not in names():
        return None
    return _processor(name)


def _processor(name: str):
    stand_in = settings.PROCESSOR_STAND_IN if settings.ECOMMERCE_PAYMENT_STAND_IN else None
    return _registry()[name](settings.PAYMENT_PROCESSOR_CONFIG[name], stand_in)
