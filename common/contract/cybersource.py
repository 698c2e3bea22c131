"""CyberSource Secure Acceptance, as far as the order service, the processor's stand-in and the
load suite share it: the signed fields, the signature, and the notification the processor sends.

Two messages cross the wire, both as HTML form fields, both signed the same way:

* the **checkout form** (``payment_form_data`` of a paid basket): the order service signs it,
  the learner's browser posts it to the payment page (``payment_page_url``);
* the **notification**: the processor posts the payment's outcome to the order service
  (``POST /payment/cybersource/notify/``), server to server.

The signature (CyberSource's "version 1", as Otto computed it): HMAC-SHA256, keyed with the
profile's secret key, over ``name=value`` of every field named in ``signed_field_names``, in that
order, joined by commas; standard Base64. Fields not named there are not covered by it, so a
receiver acts only on fields that are (``unsigned`` says which are not).

Plain Python, standard library only (the load suite and lms_stub import it; neither may import
the order service).

    python3 -m common.contract.cybersource form < basket.json > pay.html
        the learner's side: a page whose form posts a paid basket's payment_form_data to its
        payment_page_url (basket.json: the answer of POST /api/v2/baskets/, or its payment_data)
"""

import base64
import hashlib
import hmac
import html
import json
import secrets
import sys
import urllib.parse
from collections.abc import Iterable, Mapping

from common.contract import paths

PROCESSOR = "cybersource"

# The decisions a notification carries; the order service places an order on ACCEPT only.
ACCEPT = "ACCEPT"
DECLINE = "DECLINE"
CANCEL = "CANCEL"
ERROR = "ERROR"
REVIEW = "REVIEW"
DECISIONS = (ACCEPT, DECLINE, CANCEL, ERROR, REVIEW)

# The card every test pays with, and CyberSource's code for its type.
TEST_CARD = "4111111111111111"
VISA = "001"

SIGNED_DATE_TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"

# The checkout form's fields, each signed (``signed_field_names`` names them all, itself included,
# sorted: as Otto signed them). The payment page refuses a form where one of these is missing.
CHECKOUT_FIELDS = (
    "access_key",
    "profile_id",
    "transaction_uuid",
    "signed_field_names",
    "unsigned_field_names",
    "signed_date_time",
    "locale",
    "transaction_type",
    "reference_number",
    "amount",
    "currency",
    "consumer_id",
)

# A notification's signed fields, in the order edX's 2015 load client sent them (research notes,
# docs/decisions/0038-paid-seats-are-paid-for-as.md): what the processor echoes of the request
# (req_*), what it decided and authorised, and the billing details the learner typed.
NOTIFICATION_FIELDS = (
    "decision",
    "req_reference_number",
    "transaction_id",
    "auth_amount",
    "req_amount",
    "req_tax_amount",
    "req_currency",
    "req_card_number",
    "req_card_type",
    "req_bill_to_forename",
    "req_bill_to_surname",
    "req_bill_to_address_line1",
    "req_bill_to_address_line2",
    "req_bill_to_address_city",
    "req_bill_to_address_postal_code",
    "req_bill_to_address_state",
    "req_bill_to_address_country",
)
# What the order service reads of a notification; each must be present and signed. An ACCEPT
# must also carry a signed auth_amount (what was authorised).
NOTIFICATION_REQUIRED = ("decision", "req_reference_number", "transaction_id", "req_amount", "req_currency")

# A billing address for the notifications the stand-in and the load suite make up.
TEST_BILL_TO = {
    "req_bill_to_forename": "Ada",
    "req_bill_to_surname": "Lovelace",
    "req_bill_to_address_line1": "1 Test Street",
    "req_bill_to_address_line2": "Suite 2",
    "req_bill_to_address_city": "Cambridge",
    "req_bill_to_address_postal_code": "02139",
    "req_bill_to_address_state": "MA",
    "req_bill_to_address_country": "US",
}


# What a signed string may be, checked from its parts before any of it is built or hashed: a
# notification names about twenty fields in well under 1 KB (design rule 8: an unauthenticated
# request costs little before it is refused).
MAX_SIGNED_NAMES = 64
MAX_SIGNED_CHARS = 8192

# Fields only the checkout form carries (the processor echoes them prefixed: req_amount, …). A
# notification that carries one is refused: with them, a checkout form signed with the same key
# could be re-split into a notification (a consumer_id of "x,decision=ACCEPT,…").
# (The signing fields, signed_field_names and the rest, both carry.)
CHECKOUT_ONLY_FIELDS = tuple(
    name
    for name in CHECKOUT_FIELDS
    if name not in ("signed_field_names", "unsigned_field_names", "signed_date_time")
)
CHECKOUT_ONLY_PREFIX = "merchant_defined_data"


def signed_names(fields: Mapping[str, str]) -> list[str]:
    """The names ``signed_field_names`` lists (empty when it is missing or blank)."""
    names = fields.get("signed_field_names") or ""
    return [name for name in names.split(",") if name] if names else []


def refusal(fields: Mapping[str, str]) -> str | None:
    """Why the signed string ``signed_field_names`` describes is not worth building, or None:
    more than MAX_SIGNED_NAMES names, a name twice, a named field missing, or a string longer
    than MAX_SIGNED_CHARS. Costs one pass over the names, before any HMAC."""
    listed = fields.get("signed_field_names") or ""
    if listed.count(",") >= MAX_SIGNED_NAMES:
        return f"more than {MAX_SIGNED_NAMES} signed names"
    names = signed_names(fields)
    if len(set(names)) != len(names):
        return "a signed name given twice"
    if any(name not in fields for name in names):
        return "a signed field missing"
    # name=value for each, and a comma between two.
    length = sum(len(name) + 1 + len(fields[name]) for name in names) + len(names) - 1
    if length > MAX_SIGNED_CHARS:
        return f"a signed string over {MAX_SIGNED_CHARS} characters"
    return None


def message(fields: Mapping[str, str]) -> str:
    """The text the signature covers. KeyError when a signed field is missing."""
    return ",".join(f"{name}={fields[name]}" for name in signed_names(fields))


def signature(fields: Mapping[str, str], secret: str) -> str:
    """The Base64 HMAC-SHA256 of ``message(fields)`` under ``secret``."""
    digest = hmac.new(secret.encode("utf-8"), message(fields).encode("utf-8"), hashlib.sha256).digest()
    return base64.b64encode(digest).decode("ascii")


def sign(fields: Mapping[str, str], secret: str, names: Iterable[str] | None = None) -> dict[str, str]:
    """A copy of ``fields`` with ``signed_field_names`` (``names``, by default every field in
    its order, then ``signed_field_names`` itself) and ``signature`` added."""
    signed = {
        name: value for name, value in fields.items() if name not in ("signed_field_names", "signature")
    }
    chosen = [*signed, "signed_field_names"] if names is None else list(names)
    signed["signed_field_names"] = ",".join(chosen)
    signed["signature"] = signature(signed, secret)
    return signed


def sign_checkout(fields: Mapping[str, str], secret: str) -> dict[str, str]:
    """``fields`` signed as a checkout form: every field, ``signed_field_names`` included, in
    sorted order."""
    names = sorted({*fields, "signed_field_names"} - {"signature"})
    return sign(fields, secret, names)


def verify(fields: Mapping[str, str], secret: str | Iterable[str]) -> bool:
    """True when ``signature`` is the signature of ``fields`` under ``secret`` (or under one of
    several): every field it names is present and unchanged. Fields refusal() refuses are
    refused before anything is built or hashed; the comparison is in constant time."""
    if not fields.get("signature") or refusal(fields) is not None or not signed_names(fields):
        return False
    secrets_ = [secret] if isinstance(secret, str) else list(secret)
    sent = fields["signature"].encode("utf-8", "surrogatepass")
    text = message(fields).encode("utf-8")
    matches = [
        hmac.compare_digest(
            base64.b64encode(hmac.new(key.encode("utf-8"), text, hashlib.sha256).digest()), sent
        )
        for key in secrets_
    ]
    return any(matches)


def is_stand_in_page(url: str) -> bool:
    """True when ``url`` is the payment page of lms_stub's processor stand-in, on any host."""
    return urllib.parse.urlsplit(url.strip()).path.rstrip("/") == paths.PROCESSOR_PAY.rstrip("/")


def notification_refusal(fields: Mapping[str, str]) -> str | None:
    """Why ``fields`` cannot be a notification whatever its signature, or None: it must sign
    ``signed_field_names`` itself and carry none of the checkout form's own fields."""
    if "signed_field_names" not in signed_names(fields):
        return "signed_field_names is not signed"
    foreign = [
        name for name in fields if name in CHECKOUT_ONLY_FIELDS or name.startswith(CHECKOUT_ONLY_PREFIX)
    ]
    if foreign:
        return f"fields of a checkout form: {', '.join(sorted(foreign))[:200]}"
    return None


def unsigned(fields: Mapping[str, str], wanted: Iterable[str]) -> list[str]:
    """The ones of ``wanted`` the signature does not cover."""
    covered = set(signed_names(fields))
    return [name for name in wanted if name not in covered]


def masked(card_number: str) -> str:
    """A card number as the processor echoes it: all but the last four digits hidden."""
    return "x" * max(len(card_number) - 4, 0) + card_number[-4:]


def transaction_id() -> str:
    """A new processor transaction id: 22 digits, as CyberSource's request ids."""
    return "".join(secrets.choice("0123456789") for _ in range(22))


def notification(
    form_data: Mapping[str, str],
    secret: str,
    decision: str = ACCEPT,
    transaction: str | None = None,
    card_number: str = TEST_CARD,
    bill_to: Mapping[str, str] | None = None,
    **overrides: str,
) -> dict[str, str]:
    """The signed notification the processor sends for a checkout form, its NOTIFICATION_FIELDS
    in order: what the stand-in posts after its hosted page, and what a load test or a chaos
    fault posts directly. ``overrides`` replace fields before signing (a test's wrong amount,
    say); ``transaction`` is a new transaction id unless given. An ACCEPT authorises the
    requested amount; any other decision authorises nothing ("0.00")."""
    fields = {
        "decision": decision,
        "req_reference_number": form_data["reference_number"],
        "transaction_id": transaction or transaction_id(),
        "auth_amount": form_data["amount"] if decision == ACCEPT else "0.00",
        "req_amount": form_data["amount"],
        "req_tax_amount": "0.00",
        "req_currency": form_data["currency"],
        "req_card_number": masked(card_number),
        "req_card_type": VISA,
        **(bill_to if bill_to is not None else TEST_BILL_TO),
    }
    fields.update(overrides)
    return sign(fields, secret)


def checkout_page(payment_data: Mapping, submit_automatically: bool = True) -> str:
    """The learner's side of a paid checkout: an HTML page whose form posts ``payment_data``'s
    ``payment_form_data`` to its ``payment_page_url``, as a shop's checkout page would."""
    inputs = "\n".join(
        f'    <input type="hidden" name="{html.escape(str(name))}" value="{html.escape(str(value))}">'
        for name, value in payment_data["payment_form_data"].items()
    )
    action = html.escape(str(payment_data["payment_page_url"]))
    reference = html.escape(str(payment_data["payment_form_data"].get("reference_number", "")))
    onload = ' onload="document.forms[0].submit()"' if submit_automatically else ""
    return (
        "<!doctype html>\n"
        '<html lang="en">\n<head><meta charset="utf-8"><title>Checkout</title></head>\n'
        f"<body{onload}>\n"
        f"  <h1>Checkout {reference}</h1>\n"
        f'  <form method="post" action="{action}">\n{inputs}\n'
        '    <button type="submit">Continue to payment</button>\n'
        "  </form>\n</body>\n</html>\n"
    )


def main(argv: list[str]) -> int:
    if argv != ["form"]:
        print("usage: python3 -m common.contract.cybersource form < basket.json > pay.html", file=sys.stderr)
        return 2
    answer = json.load(sys.stdin)
    payment_data = answer.get("payment_data", answer) if isinstance(answer, dict) else None
    if not isinstance(payment_data, dict) or "payment_form_data" not in payment_data:
        print("error: no payment_data in the input (a free basket is placed at once)", file=sys.stderr)
        return 1
    sys.stdout.write(checkout_page(payment_data, submit_automatically=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
