"""What the paid journey (locustfiles/learners.py) needs beside its HTTP calls: the learner's
token, the hosted payment page's form, the receipt, and the names its requests are counted under.

The journey is a paid purchase as edX's 2015 client made it, with one difference: the processor's
notification is not signed in Locust but sent by the processor's stand-in (lms_stub.processor)
when the learner presses Pay, as CyberSource sends it when a buyer does. So:

    GET  /auto_auth                       the LMS: a new learner (username, email)
    GET  /api/v2/payment/processors/      ecommerce, with the learner's JWT
    POST /api/v2/baskets/                 the course's paid seat, checkout, payment_processor_name:
                                          201 with payment_data and no order yet
    POST <payment_page_url>               payment_form_data, as the learner's browser posts it:
                                          the hosted payment page
    POST <the page's form action>         Pay: the stand-in signs the notification, posts it to
                                          ecommerce (which places and fulfils the order) and shows
                                          a receipt with ecommerce's answer
    GET  /api/v2/orders/<number>/         ecommerce, JWT: the order, read back

The LMS hands a learner no token for the order API, so the journey signs one as edX's client
did: a Locust host that runs it needs the stack's JWT_SECRET_KEY (and JWT_ISSUER when it is not
the default) and ECOMMERCE_URL. It never needs the processor's secret: the stand-in signs.

A paid purchase counts as answered (the audit's answered orders) when the receipt says ecommerce
took the notification (HTTP 200) and the order was read back 200.
"""

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urljoin

from common.contract import cybersource, paths, tokens
from common.environment import get

# The names the journey's requests are counted under (stable: one per step, whatever the ids).
PROCESSORS = paths.PAYMENT_PROCESSORS
BASKET = paths.BASKETS
PAY_PAGE = paths.PROCESSOR_PAY
PAY_CONFIRM = paths.PROCESSOR_CONFIRM
ORDER_READ = paths.ORDERS + "[number]/"

TOKEN_SECONDS = 300  # a journey lasts seconds; edX's client signed its tokens for minutes
PAY_BUTTON = "pay"  # the value of the hosted page's Pay button


class Config:
    """Where ecommerce is and how the journey signs its learner's token (from the environment,
    with the table's defaults)."""

    def __init__(self, env):
        self.ecommerce_url = get("ECOMMERCE_URL", env).rstrip("/")
        self.jwt_secret = get("JWT_SECRET_KEY", env)
        self.jwt_issuer = get("JWT_ISSUER", env)

    def headers(self, learner: dict) -> dict[str, str]:
        """``Authorization: JWT …`` for the learner /auto_auth answered (username, email)."""
        token = tokens.mint(
            self.jwt_secret, self.jwt_issuer, learner["username"], learner["email"], TOKEN_SECONDS
        )
        return tokens.authorization(token)


def basket_body(sku: str) -> dict:
    """The paid checkout, as edX's client posted it."""
    return {"products": [{"sku": sku}], "checkout": True, "payment_processor_name": cybersource.PROCESSOR}


@dataclass
class Form:
    """One HTML form: where it goes, its fields (text and hidden inputs) with their values, its
    submit buttons."""

    action: str = ""
    method: str = "get"
    fields: dict[str, str] = field(default_factory=dict)
    buttons: list[tuple[str, str]] = field(default_factory=list)  # (name, value)

    def submit(self, page_url: str, button_value: str) -> tuple[str, dict[str, str]]:
        """(absolute URL, fields) of pressing the button whose value is ``button_value``, as a
        browser would send them. KeyError when the form has no such button."""
        for name, value in self.buttons:
            if value == button_value:
                return urljoin(page_url, self.action), {**self.fields, name: value}
        raise KeyError(f"the form has no button {button_value!r}")


class _FormReader(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.forms: list[Form] = []
        self._open: Form | None = None

    def handle_starttag(self, tag, attrs):
        attributes = {name: value or "" for name, value in attrs}
        if tag == "form":
            self._open = Form(attributes.get("action", ""), attributes.get("method", "get").lower())
            self.forms.append(self._open)
        elif self._open is None or not attributes.get("name"):
            return
        elif tag == "input" and attributes.get("type", "text").lower() not in ("submit", "button", "image"):
            self._open.fields[attributes["name"]] = attributes.get("value", "")
        elif tag in ("button", "input") and attributes.get("type", "submit").lower() == "submit":
            self._open.buttons.append((attributes["name"], attributes.get("value", "")))

    def handle_endtag(self, tag):
        if tag == "form":
            self._open = None


def forms(page: str) -> list[Form]:
    """The forms of an HTML page, in order."""
    reader = _FormReader()
    reader.feed(page)
    reader.close()
    return reader.forms


def press(page: str, page_url: str, button_value: str) -> tuple[str, dict[str, str]] | None:
    """(URL, fields) of pressing the button of value ``button_value`` in the first form of
    ``page`` that has one; None when none has."""
    for form in forms(page):
        try:
            return form.submit(page_url, button_value)
        except KeyError:
            continue
    return None


@dataclass(frozen=True)
class Receipt:
    """What the stand-in's receipt page says: its decision and ecommerce's answer to the
    notification (None when the page does not say)."""

    decision: str | None
    notify_status: int | None

    @property
    def taken(self) -> bool:
        """The payment was accepted and ecommerce took its notification."""
        return self.decision == cybersource.ACCEPT and self.notify_status == 200


_DECISION = re.compile(r'id="decision">([A-Z]+)<')
_NOTIFY_STATUS = re.compile(r'id="notify-status">HTTP (\d{3})<')


def receipt(page: str) -> Receipt:
    decision, status = _DECISION.search(page), _NOTIFY_STATUS.search(page)
    return Receipt(decision[1] if decision else None, int(status[1]) if status else None)
