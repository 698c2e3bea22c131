"""The payment processor's wire contract (common.contract.cybersource): the signature both
services and the load suite compute, the notification they build, the learner's checkout page."""

import hmac
import json
import subprocess
import sys
from pathlib import Path

import pytest

from common.contract import cybersource, order_numbers

ROOT = Path(__file__).resolve().parents[2]

# The research notes' vector: what edX's 2015 client posted for basket 1 at 49.00, signed with
# Otto's local key. The values are the client's, in its order.
EDX_CLIENT_NOTIFICATION = {
    "decision": "ACCEPT",
    "req_reference_number": "OSCR-100001",
    "transaction_id": "123456",
    "auth_amount": "49.00",
    "req_amount": "49.00",
    "req_tax_amount": "0.00",
    "req_currency": "USD",
    "req_card_number": "xxxxxxxxxxxx1111",
    "req_card_type": "001",
    "req_bill_to_forename": "Ed",
    "req_bill_to_surname": "Xavier",
    "req_bill_to_address_line1": "141 Portland Ave.",
    "req_bill_to_address_line2": "9th Floor",
    "req_bill_to_address_city": "Cambridge",
    "req_bill_to_address_postal_code": "02141",
    "req_bill_to_address_state": "MA",
    "req_bill_to_address_country": "US",
}
EDX_CLIENT_SIGNATURE = "BqtP5gRrjBpRPTNwWlCU0vDUhyC9HhEKhHdsZwwANOU="
FORM = {"reference_number": "OSCR-100001", "amount": "49.00", "currency": "USD"}


def test_the_signature_of_edx_clients_notification_is_the_research_notes_vector():
    signed = cybersource.sign(EDX_CLIENT_NOTIFICATION, "fake-secret-key", cybersource.NOTIFICATION_FIELDS)
    assert signed["signature"] == EDX_CLIENT_SIGNATURE
    assert signed["signed_field_names"] == ",".join(cybersource.NOTIFICATION_FIELDS)
    assert cybersource.verify(signed, "fake-secret-key")
    # It does not sign its own names: the order service no longer takes it as a notification.
    assert cybersource.notification_refusal(signed) == "signed_field_names is not signed"


def test_the_notification_builder_signs_the_same_values_and_its_own_names():
    bill_to = {k: v for k, v in EDX_CLIENT_NOTIFICATION.items() if k.startswith("req_bill_to_")}
    built = cybersource.notification(FORM, "fake-secret-key", transaction="123456", bill_to=bill_to)
    assert list(built)[:-2] == list(cybersource.NOTIFICATION_FIELDS)
    assert built["signed_field_names"] == ",".join([*cybersource.NOTIFICATION_FIELDS, "signed_field_names"])
    vector = cybersource.sign(EDX_CLIENT_NOTIFICATION, "fake-secret-key", cybersource.NOTIFICATION_FIELDS)
    assert (
        cybersource.message(built)
        == f"{cybersource.message(vector)},signed_field_names={built['signed_field_names']}"
    )
    assert cybersource.verify(built, "fake-secret-key")
    assert cybersource.notification_refusal(built) is None


def test_the_message_is_name_equals_value_joined_by_commas_in_the_signed_order():
    fields = {"b": "2", "a": "1", "signed_field_names": "b,a"}
    assert cybersource.message(fields) == "b=2,a=1"


@pytest.mark.parametrize(
    "change",
    [
        lambda f: f.update(req_amount="0.01"),
        lambda f: f.update(decision="DECLINE"),
        lambda f: f.pop("req_currency"),
        lambda f: f.update(signature=("B" if f["signature"][0] == "A" else "A") + f["signature"][1:]),
        lambda f: f.pop("signature"),
        lambda f: f.update(signature=""),
        lambda f: f.update(signature="🎓"),
        lambda f: f.update(signed_field_names=""),
        lambda f: f.pop("signed_field_names"),
        lambda f: f.update(signed_field_names=f["signed_field_names"] + ",not_sent"),
    ],
    ids=[
        "amount",
        "decision",
        "a signed field removed",
        "signature",
        "no signature",
        "empty signature",
        "not ASCII",
        "no names",
        "names removed",
        "a name with no field",
    ],
)
def test_a_changed_notification_does_not_verify(change):
    fields = cybersource.notification(FORM, "secret")
    change(fields)
    assert not cybersource.verify(fields, "secret")


def test_a_field_outside_the_signed_names_changes_nothing_and_is_reported_unsigned():
    fields = cybersource.notification(FORM, "secret")
    fields["reason_code"] = "100"
    assert cybersource.verify(fields, "secret")
    assert cybersource.unsigned(fields, ["decision", "reason_code"]) == ["reason_code"]


def test_another_key_does_not_verify():
    assert not cybersource.verify(cybersource.notification(FORM, "secret"), "Secret")


def test_signatures_are_compared_in_constant_time(monkeypatch):
    compared = []
    original = hmac.compare_digest

    def spy(a, b):
        compared.append((a, b))
        return original(a, b)

    monkeypatch.setattr(cybersource.hmac, "compare_digest", spy)
    fields = cybersource.notification(FORM, "secret")
    assert cybersource.verify(fields, "secret")
    assert compared == [(fields["signature"].encode(), fields["signature"].encode())]


def test_a_checkout_form_signs_every_field_itself_included_in_sorted_order():
    signed = cybersource.sign_checkout({"reference_number": "OSCR-100001", "amount": "49.00"}, "secret")
    assert signed["signed_field_names"] == "amount,reference_number,signed_field_names"
    assert cybersource.message(signed) == (
        "amount=49.00,reference_number=OSCR-100001,signed_field_names=amount,reference_number,signed_field_names"
    )
    assert cybersource.verify(signed, "secret")


def test_a_declined_notification_authorises_nothing_and_ids_are_new_each_time():
    declined = cybersource.notification(FORM, "secret", cybersource.DECLINE)
    assert (declined["decision"], declined["auth_amount"], declined["req_amount"]) == (
        "DECLINE",
        "0.00",
        "49.00",
    )
    ids = {cybersource.notification(FORM, "secret")["transaction_id"] for _ in range(5)}
    assert len(ids) == 5 and all(len(i) == 22 and i.isdigit() for i in ids)


def test_a_card_number_is_masked_but_its_last_four_digits():
    assert cybersource.masked(cybersource.TEST_CARD) == "xxxxxxxxxxxx1111"


def test_the_checkout_page_posts_every_field_escaped():
    data = {
        "payment_page_url": "http://127.0.0.1:18000/processor/cybersource/pay/?a=1&b=2",
        "payment_form_data": {"reference_number": 'OSCR-"1"<x>', "amount": "49.00"},
    }
    page = cybersource.checkout_page(data)
    assert 'action="http://127.0.0.1:18000/processor/cybersource/pay/?a=1&amp;b=2"' in page
    assert '<input type="hidden" name="reference_number" value="OSCR-&quot;1&quot;&lt;x&gt;">' in page
    assert 'onload="document.forms[0].submit()"' in page
    assert "onload" not in cybersource.checkout_page(data, submit_automatically=False)


def test_the_checkout_page_command_reads_a_basket_answer():
    answer = {
        "id": 1,
        "order": None,
        "payment_data": {"payment_page_url": "http://x/", "payment_form_data": FORM},
    }
    done = subprocess.run(
        [sys.executable, "-m", "common.contract.cybersource", "form"],
        input=json.dumps(answer),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    assert 'name="amount" value="49.00"' in done.stdout
    free = subprocess.run(
        [sys.executable, "-m", "common.contract.cybersource", "form"],
        input=json.dumps({"id": 1, "order": {}}),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=30,
    )
    assert free.returncode == 1
    assert "no payment_data" in free.stderr


@pytest.mark.parametrize(
    "number, basket",
    [
        ("OSCR-100001", 1),
        ("OSCR-142", None),
        ("OSCR-100000", None),
        ("EDX-100001", None),
        ("OSCR100001", None),
        ("OSCR-0100001", None),
        ("OSCR-+100001", None),
        ("OSCR-١٠٠٠٠١", None),  # Arabic-Indic digits are digits to str.isdigit
        ("OSCR-" + "9" * 19, None),
        ("", None),
    ],
)
def test_an_order_number_gives_back_its_basket_under_the_prefix_only(number, basket):
    assert order_numbers.basket_id("OSCR", number) == basket


def test_order_number_and_basket_id_are_inverse():
    for basket in (1, 42, 4_000_000):
        assert order_numbers.basket_id("EDX", order_numbers.order_number("EDX", basket)) == basket


# --- Refused before anything is built or hashed (issue 28) -------------------------------------


def _signed_string_built(monkeypatch) -> list:
    """Record every call that builds a signed string or hashes one."""
    calls = []
    for name in ("message", "signature"):
        original = getattr(cybersource, name)
        monkeypatch.setattr(
            cybersource, name, lambda *a, _o=original, _n=name, **k: calls.append(_n) or _o(*a, **k)
        )
    original_new = cybersource.hmac.new
    monkeypatch.setattr(
        cybersource.hmac, "new", lambda *a, **k: calls.append("hmac") or original_new(*a, **k)
    )
    return calls


def amplification() -> dict[str, str]:
    """The review's 64 KB request: one 30,000-character field named 17,000 times."""
    fields = {"a": "x" * 30_000, "signed_field_names": ",".join(["a"] * 17_000)}
    return {**fields, "signature": "A" * 44}


@pytest.mark.parametrize(
    "fields, reason",
    [
        (amplification(), "more than 64 signed names"),
        ({"a": "1", "signed_field_names": "a,b,a", "b": "2", "signature": "x"}, "a signed name given twice"),
        ({"a": "1", "signed_field_names": "a,b", "signature": "x"}, "a signed field missing"),
        (
            {"a": "x" * 8190, "b": "1", "signed_field_names": "a,b", "signature": "x"},
            "a signed string over 8192 characters",
        ),
    ],
    ids=["64 KB amplification", "a name twice", "a name not sent", "over 8 KB"],
)
def test_what_cannot_be_signed_is_refused_before_the_signed_string_is_built(monkeypatch, fields, reason):
    calls = _signed_string_built(monkeypatch)
    assert cybersource.refusal(fields) == reason
    assert not cybersource.verify(fields, "secret")
    assert calls == []


def test_the_64_kb_amplification_costs_well_under_a_millisecond_per_check():
    import time

    fields = amplification()
    started = time.perf_counter()
    for _ in range(100):
        assert not cybersource.verify(fields, "secret")
    assert (time.perf_counter() - started) / 100 < 0.005


def test_the_limits_hold_at_their_edges():
    names = [f"f{i}" for i in range(cybersource.MAX_SIGNED_NAMES)]
    at_most = cybersource.sign(dict.fromkeys(names, "1"), "secret", names)
    assert cybersource.refusal(at_most) is None and cybersource.verify(at_most, "secret")
    one_more = cybersource.sign(dict.fromkeys([*names, "x"], "1"), "secret", [*names, "x"])
    assert cybersource.refusal(one_more) == "more than 64 signed names"
    exact = {"a": "x" * (cybersource.MAX_SIGNED_CHARS - 2)}
    assert cybersource.message({**exact, "signed_field_names": "a"}).__len__() == cybersource.MAX_SIGNED_CHARS
    assert cybersource.verify(cybersource.sign(exact, "secret", ["a"]), "secret")
    assert not cybersource.verify(cybersource.sign({"a": exact["a"] + "x"}, "secret", ["a"]), "secret")


def test_one_of_several_keys_verifies():
    fields = cybersource.notification(FORM, "stand-in")
    assert cybersource.verify(fields, ["shop", "stand-in"])
    assert not cybersource.verify(fields, ["shop"])
    assert not cybersource.verify(fields, [])


def test_a_notification_must_sign_its_names_and_carry_no_checkout_field():
    fields = cybersource.notification(FORM, "secret")
    assert cybersource.notification_refusal(fields) is None
    with_consumer = cybersource.notification(FORM, "secret", consumer_id="x")
    assert cybersource.notification_refusal(with_consumer) == "fields of a checkout form: consumer_id"
    extra = cybersource.notification(FORM, "secret", merchant_defined_data1="c", amount="1")
    assert (
        cybersource.notification_refusal(extra) == "fields of a checkout form: amount, merchant_defined_data1"
    )
    names = [n for n in fields["signed_field_names"].split(",") if n != "signed_field_names"]
    assert cybersource.notification_refusal(cybersource.sign(fields, "secret", names)) == (
        "signed_field_names is not signed"
    )
    checkout = cybersource.sign_checkout({**FORM, "consumer_id": "ada"}, "secret")
    assert cybersource.notification_refusal(checkout).startswith("fields of a checkout form: amount")
