"""The payment processor's side, played by the stand-in: CyberSource Secure Acceptance's hosted
payment page and its merchant notification.

    POST /processor/cybersource/pay/          the learner's browser posts the checkout form
                                              (payment_form_data); answered: the payment page
    POST /processor/cybersource/pay/confirm/  Pay or Decline on that page: the stand-in signs
                                              the notification, posts it to ecommerce
                                              (LMS_PAYMENT_NOTIFY_URL) and shows the receipt

The checkout form is verified like the real processor does: the signature under the profile's
secret, the profile's access key and id. The profile is the stand-in's own (LMS_PROCESSOR_*), not
the shop's: ecommerce signs checkout forms with it and takes its notifications only when
ECOMMERCE_PAYMENT_STAND_IN says so. Both forms are bounded before any signature is computed
(common.contract.cybersource.refusal). Neither view is CSRF-protected: the form comes from
another site (the shop's checkout page) by design, and what protects it is the signature, which
is checked again on confirmation. No database is touched, so no transaction or pooled
connection is held while ecommerce is called (it calls this service back to enrol the learner).
"""

import re

from django.conf import settings
from django.db import transaction
from django.http import HttpResponse
from django.views.decorators.csrf import csrf_exempt

from common import http_client, timing
from common.contract import cybersource
from lms_stub.http import BadRequest, allow_methods, api_view, error
from lms_stub.processor import pages

# A browser posts the pages' forms URL-encoded; multipart is refused unread (Django would spool
# its file parts past LMS_MAX_BODY_BYTES).
FORM_TYPE = "application/x-www-form-urlencoded"
# The page's own fields, beside the checkout form's.
CARD_NUMBER = "card_number"
ACTION = "pay_action"
ACTIONS = {"pay": cybersource.ACCEPT, "decline": cybersource.DECLINE}
AMOUNT = re.compile(r"^[0-9]{1,12}\.[0-9]{2}\Z")
CURRENCY = re.compile(r"^[A-Z]{3}\Z")


def _html(page: str, status: int = 200) -> HttpResponse:
    return HttpResponse(page, status=status, content_type="text/html; charset=utf-8")


@csrf_exempt
@transaction.non_atomic_requests
@allow_methods("POST")
@api_view
def pay(request):
    return _html(pages.payment_page(_checkout_form(_form(request))))


@csrf_exempt
@transaction.non_atomic_requests
@allow_methods("POST")
@api_view
def confirm(request):
    sent = _form(request)
    action, card = sent.pop(ACTION, None), sent.pop(CARD_NUMBER, "")
    form = _checkout_form(sent)
    if action not in ACTIONS:
        raise BadRequest(f"'{ACTION}' must be one of: {', '.join(ACTIONS)}.")
    decision = ACTIONS[action]
    digits = card.replace(" ", "")
    if decision == cybersource.ACCEPT and not _card_number(digits):
        raise BadRequest("The card number is not one (12 to 19 digits, Luhn check).", "invalid_card")
    notification = cybersource.notification(
        form, settings.LMS_PROCESSOR_SECRET_KEY, decision, card_number=digits or cybersource.TEST_CARD
    )
    try:
        with timing.outbound("ecommerce"):
            # ecommerce takes a notification once and answers a repeat as a replay, so one sent
            # on a connection ecommerce had just closed is sent again.
            answer = http_client.post(
                settings.LMS_PAYMENT_NOTIFY_URL,
                form=notification,
                timeout=settings.ECOMMERCE_TIMEOUT,
                idempotent=True,
            )
    except http_client.Timeout:
        return error(504, "ecommerce_timeout", "ecommerce did not answer the notification in time.")
    except http_client.RequestError as exc:
        return error(502, "ecommerce_unreachable", f"ecommerce could not be reached: {exc}.")
    return _html(pages.receipt_page(notification, answer.status_code, answer.text[:2000]))


def _form(request) -> dict[str, str]:
    """The posted form, one value per name."""
    if request.content_type != FORM_TYPE:
        raise BadRequest(f"Post the form as {FORM_TYPE}.", "unsupported_media_type", 415)
    form = request.POST
    repeated = sorted(name for name, values in form.lists() if len(values) > 1)
    if repeated:
        raise BadRequest(f"Fields given more than once: {', '.join(repeated)[:200]}.")
    return form.dict()


def _checkout_form(form: dict[str, str]) -> dict[str, str]:
    """``form`` if it is a checkout form this profile signed, else BadRequest saying why."""
    cannot = cybersource.refusal(form)  # before any HMAC is computed
    if cannot:
        raise BadRequest(f"The signed fields are not checked: {cannot}.", "invalid_signature")
    if not cybersource.verify(form, settings.LMS_PROCESSOR_SECRET_KEY):
        raise BadRequest("The signature is missing or does not match the signed fields.", "invalid_signature")
    missing = [name for name in cybersource.CHECKOUT_FIELDS if name not in form]
    not_signed = cybersource.unsigned(form, cybersource.CHECKOUT_FIELDS)
    if missing or not_signed:
        raise BadRequest(f"The form lacks or does not sign: {', '.join(missing or not_signed)}.")
    if (
        form["access_key"] != settings.LMS_PROCESSOR_ACCESS_KEY
        or form["profile_id"] != settings.LMS_PROCESSOR_PROFILE_ID
    ):
        raise BadRequest("This access key and profile are not this processor's.", "unknown_profile")
    if (
        form["transaction_type"] != "sale"
        or not AMOUNT.match(form["amount"])
        or not CURRENCY.match(form["currency"])
    ):
        raise BadRequest("Only a sale of an amount (0.00) in a currency (USD) is taken here.")
    return form


def _card_number(digits: str) -> bool:
    """12 to 19 digits passing the Luhn check (4111 1111 1111 1111 does)."""
    if not (digits.isascii() and digits.isdigit() and 12 <= len(digits) <= 19):
        return False
    total = 0
    for position, digit in enumerate(int(d) for d in reversed(digits)):
        if position % 2:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0
