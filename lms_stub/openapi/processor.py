"""The payment processor stand-in in lms_stub's OpenAPI document: its hosted payment page and
the Pay or Decline form that notifies ecommerce. Both take form bodies and answer HTML."""

from common.contract import paths as contract_paths
from lms_stub.openapi.answers import error, html, ref, too_large

FORM = "application/x-www-form-urlencoded"
NOT_FORM = "The body is not a form (unsupported_media_type)."
CHECKOUT_REFUSED = (
    "The checkout form's signature is missing or wrong (invalid_signature), a field is missing, "
    "unsigned or given twice, or it is not a sale of an amount in a currency (invalid_request), "
    "or the access key or profile is not this processor's (unknown_profile)."
)


def paths() -> dict:
    return {
        contract_paths.PROCESSOR_PAY: {"post": _payment_page()},
        contract_paths.PROCESSOR_CONFIRM: {"post": _confirm_payment()},
    }


def _payment_page() -> dict:
    return {
        "operationId": "processor_payment_page",
        "summary": "The payment processor stand-in's hosted payment page",
        "description": (
            "The learner's browser posts a paid checkout's payment_form_data here (from "
            "another site: no CSRF token). The signature must hold under "
            "the stand-in's own LMS_PROCESSOR_SECRET_KEY and the access key and profile "
            "must be this processor's; the page shows the amount, the test card and Pay "
            "and Decline."
        ),
        "security": [],
        "requestBody": {"required": True, "content": {FORM: {"schema": ref("CheckoutForm")}}},
        "responses": {
            "200": html("The payment page."),
            "400": error(CHECKOUT_REFUSED),
            "413": too_large(),
            "415": error(NOT_FORM),
        },
    }


def _confirm_payment() -> dict:
    return {
        "operationId": "processor_confirm_payment",
        "summary": "Pay or decline on the payment page: ecommerce is notified",
        "description": (
            "The page's form: the checkout form again (verified again), card_number and "
            "pay_action. The stand-in signs the notification (decision ACCEPT or DECLINE), "
            "posts it to LMS_PAYMENT_NOTIFY_URL and shows the receipt with ecommerce's answer."
        ),
        "security": [],
        "requestBody": {"required": True, "content": {FORM: {"schema": ref("PaymentConfirmation")}}},
        "responses": {
            "200": html("The receipt: the decision, the order number and ecommerce's answer."),
            "400": error(
                f"{CHECKOUT_REFUSED} Or pay_action is not pay or decline (invalid_request), or "
                "the card number is not one (invalid_card)."
            ),
            "413": too_large(),
            "415": error(NOT_FORM),
            "502": error("ecommerce could not be reached (ecommerce_unreachable)."),
            "504": error("ecommerce did not answer in time (ecommerce_timeout)."),
        },
    }
