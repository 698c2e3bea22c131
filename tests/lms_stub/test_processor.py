"""The payment processor's stand-in: its hosted page takes only a checkout form this profile
signed, and Pay or Decline posts a signed notification to ecommerce's notify URL (here a small
real HTTP server that keeps what it is sent) and shows ecommerce's answer."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlencode

import pytest

from common.contract import cybersource, paths
from tests.support.servers import free_port

FORM = "application/x-www-form-urlencoded"
SECRET = "local-only-processor-stand-in-secret-key"  # the stand-in's own (LMS_PROCESSOR_SECRET_KEY)
SHOP_SECRET = "local-only-cybersource-secret-key"
PAY = {"pay_action": "pay", "card_number": cybersource.TEST_CARD}


def checkout_form(secret=SECRET, **changes) -> dict[str, str]:
    fields = {
        "access_key": "loadtest-stand-in-access-key",
        "profile_id": "loadtest-stand-in-profile",
        "transaction_uuid": "0f" * 16,
        "unsigned_field_names": "",
        "signed_date_time": "2015-10-01T12:00:00Z",
        "locale": "en-us",
        "transaction_type": "sale",
        "reference_number": "OSCR-100042",
        "amount": "74.00",
        "currency": "USD",
        "consumer_id": "ada",
        **changes,
    }
    return cybersource.sign_checkout(fields, secret)


class Shop:
    """ecommerce's notify URL, played by a real HTTP server: it keeps each notification and
    answers with ``status`` and ``body``."""

    def __init__(self):
        self.received: list[dict[str, str]] = []
        self.status, self.body = 200, b""
        shop = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers["Content-Length"])
                shop.received.append(
                    dict(parse_qsl(self.rfile.read(length).decode(), keep_blank_values=True))
                )
                self.send_response(shop.status)
                self.send_header("Content-Length", str(len(shop.body)))
                self.end_headers()
                self.wfile.write(shop.body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/payment/cybersource/notify/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def client(client):
    """Django's test client, posting a dict as a browser posts the pages' forms: URL-encoded."""
    post = client.post

    def form_post(path, data=None, content_type=None, **extra):
        if isinstance(data, dict) and content_type is None:
            return post(path, urlencode(data), content_type=FORM, **extra)
        return post(path, data, content_type=content_type, **extra)

    client.post = form_post
    return client


@pytest.fixture
def shop(settings):
    handle = Shop()
    settings.LMS_PAYMENT_NOTIFY_URL = handle.url
    yield handle
    handle.close()


def test_the_payment_page_shows_the_payment_and_carries_the_form_on(client):
    form = checkout_form()
    response = client.post(paths.PROCESSOR_PAY, form)

    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "text/html; charset=utf-8"
    page = response.content.decode()
    assert "Pay 74.00 USD" in page
    assert '<dd id="reference-number">OSCR-100042</dd>' in page
    assert f'name="card_number" value="{cybersource.TEST_CARD}"' in page
    assert 'name="pay_action" value="pay">Pay</button>' in page
    assert 'name="pay_action" value="decline">Decline</button>' in page
    assert f'action="{paths.PROCESSOR_CONFIRM}"' in page
    for name, value in form.items():
        assert f'<input type="hidden" name="{name}" value="{value}">' in page


def test_what_the_form_holds_is_escaped_on_the_page(client):
    page = client.post(paths.PROCESSOR_PAY, checkout_form(consumer_id='<script>alert("x")</script>'))
    assert page.status_code == 200
    assert "<script>" not in page.content.decode()
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page.content.decode()


@pytest.mark.parametrize(
    "form, code",
    [
        (checkout_form(secret="another-secret"), "invalid_signature"),
        ({**checkout_form(), "amount": "1.00"}, "invalid_signature"),
        ({k: v for k, v in checkout_form().items() if k != "signature"}, "invalid_signature"),
        (checkout_form(access_key="someone-elses-key"), "unknown_profile"),
        (checkout_form(profile_id="someone-elses-profile"), "unknown_profile"),
        (checkout_form(transaction_type="authorization"), "invalid_request"),
        (checkout_form(amount="74"), "invalid_request"),
        (
            cybersource.sign({k: v for k, v in checkout_form().items() if k != "currency"}, SECRET),
            "invalid_request",
        ),
    ],
    ids=[
        "another key",
        "tampered amount",
        "no signature",
        "another access key",
        "another profile",
        "not a sale",
        "not an amount",
        "no currency",
    ],
)
def test_a_checkout_form_this_profile_did_not_sign_is_refused(client, shop, form, code):
    for path, extra in ((paths.PROCESSOR_PAY, {}), (paths.PROCESSOR_CONFIRM, {"pay_action": "pay"})):
        response = client.post(path, {**form, **extra})
        assert response.status_code == 400, response.content
        assert response.json()["error"] == code
    assert shop.received == []


def test_a_form_that_is_not_a_form_is_refused(client):
    response = client.post(paths.PROCESSOR_PAY, json.dumps(checkout_form()), content_type="application/json")
    assert (response.status_code, response.json()["error"]) == (415, "unsupported_media_type")
    body = "&".join(f"{k}={v}" for k, v in checkout_form().items()) + "&amount=1.00"
    twice = client.post(paths.PROCESSOR_PAY, body, content_type="application/x-www-form-urlencoded")
    assert (twice.status_code, twice.json()["error"]) == (400, "invalid_request")
    got = client.get(paths.PROCESSOR_PAY)
    assert (got.status_code, got["Allow"]) == (405, "POST")


def test_pay_notifies_the_shop_of_an_accepted_payment_and_shows_its_answer(client, shop):
    form = checkout_form()
    response = client.post(
        paths.PROCESSOR_CONFIRM, {**form, "pay_action": "pay", "card_number": "4111 1111 1111 1111"}
    )

    assert response.status_code == 200, response.content
    (sent,) = shop.received
    assert cybersource.verify(sent, SECRET)
    assert list(sent)[:-2] == list(cybersource.NOTIFICATION_FIELDS)
    assert sent["decision"] == "ACCEPT"
    assert (sent["req_reference_number"], sent["req_amount"], sent["auth_amount"], sent["req_currency"]) == (
        "OSCR-100042",
        "74.00",
        "74.00",
        "USD",
    )
    assert sent["req_card_number"] == "xxxxxxxxxxxx1111"
    page = response.content.decode()
    assert "Payment accepted" in page
    assert '<dd id="reference-number">OSCR-100042</dd>' in page
    assert f'<dd id="transaction-id">{sent["transaction_id"]}</dd>' in page
    assert '<p id="notify-status">HTTP 200</p>' in page


def test_decline_notifies_the_shop_of_a_declined_payment(client, shop):
    response = client.post(paths.PROCESSOR_CONFIRM, {**checkout_form(), "pay_action": "decline"})
    assert response.status_code == 200
    (sent,) = shop.received
    assert cybersource.verify(sent, SECRET)
    assert (sent["decision"], sent["auth_amount"]) == ("DECLINE", "0.00")
    assert "Payment declined" in response.content.decode()


def test_the_shops_refusal_is_shown_on_the_receipt(client, shop):
    shop.status, shop.body = 400, b'{"error": "amount_mismatch", "message": "no"}'
    response = client.post(paths.PROCESSOR_CONFIRM, {**checkout_form(), **PAY})
    assert response.status_code == 200
    page = response.content.decode()
    assert '<p id="notify-status">HTTP 400</p>' in page
    assert "amount_mismatch" in page


@pytest.mark.parametrize("card", ["4111111111111112", "1234", "4111-1111-1111-1111", "", "٤١١١١١١١١١١١١١١١"])
def test_pay_with_a_card_number_that_is_not_one_is_refused_and_notifies_nothing(client, shop, card):
    response = client.post(
        paths.PROCESSOR_CONFIRM, {**checkout_form(), "pay_action": "pay", "card_number": card}
    )
    assert (response.status_code, response.json()["error"]) == (400, "invalid_card")
    assert shop.received == []


@pytest.mark.parametrize("action", [None, "refund", "PAY"])
def test_confirm_needs_pay_or_decline(client, shop, action):
    extra = {} if action is None else {"pay_action": action}
    response = client.post(paths.PROCESSOR_CONFIRM, {**checkout_form(), **extra})
    assert (response.status_code, response.json()["error"]) == (400, "invalid_request")
    assert shop.received == []


def test_a_shop_that_cannot_be_reached_is_502(client, settings):
    settings.LMS_PAYMENT_NOTIFY_URL = f"http://127.0.0.1:{free_port()}/payment/cybersource/notify/"
    response = client.post(paths.PROCESSOR_CONFIRM, {**checkout_form(), **PAY})
    assert (response.status_code, response.json()["error"]) == (502, "ecommerce_unreachable")


# --- Issue 28: the stand-in's own profile, and cheap refusals ----------------------------------


def test_the_stand_in_signs_with_its_own_key_never_the_shops(client, shop):
    shops_form = checkout_form(
        secret=SHOP_SECRET,
        access_key="loadtest-cybersource-access-key",
        profile_id="loadtest-cybersource-profile",
    )
    refused = client.post(paths.PROCESSOR_PAY, shops_form)
    assert (refused.status_code, refused.json()["error"]) == (400, "invalid_signature")
    assert client.post(paths.PROCESSOR_CONFIRM, {**checkout_form(), **PAY}).status_code == 200
    (sent,) = shop.received
    assert cybersource.verify(sent, SECRET)
    assert not cybersource.verify(sent, SHOP_SECRET)


def test_a_form_whose_signed_string_would_be_huge_is_refused_before_it_is_built(client, shop, monkeypatch):
    """The review's amplification under the stand-in's 16 KB limit: 2,000 names of one
    5,000-character field (a 10 MB signed string) is refused from its names alone."""
    built = []
    monkeypatch.setattr(cybersource, "message", lambda fields: built.append(1) or "")
    form = {"a": "x" * 5000, "signed_field_names": ",".join(["a"] * 2000), "signature": "A" * 44}
    for path in (paths.PROCESSOR_PAY, paths.PROCESSOR_CONFIRM):
        response = client.post(path, {**form, "pay_action": "pay"})
        assert (response.status_code, response.json()["error"]) == (400, "invalid_signature")
        assert "more than 64 signed names" in response.json()["message"]
    assert built == [] and shop.received == []


def test_multipart_is_415_and_never_parsed(client, shop, monkeypatch):
    from django.http import multipartparser
    from django.test.client import MULTIPART_CONTENT, encode_multipart

    parsed = []
    monkeypatch.setattr(multipartparser.MultiPartParser, "parse", lambda self: parsed.append(1))
    body = encode_multipart("BoUnDaRy", {**checkout_form(), **PAY})
    for path in (paths.PROCESSOR_PAY, paths.PROCESSOR_CONFIRM):
        response = client.post(
            path, body, content_type=MULTIPART_CONTENT.replace("BoUnDaRyStRiNg", "BoUnDaRy")
        )
        assert (response.status_code, response.json()["error"]) == (415, "unsupported_media_type")
    assert parsed == [] and shop.received == []
