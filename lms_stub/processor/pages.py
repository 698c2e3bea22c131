"""The stand-in's two HTML pages, built with Django's escaping helpers (lms_stub has no template
engine): the hosted payment page and the receipt."""

from django.utils.html import format_html, format_html_join

from common.contract import cybersource, paths

STYLE = (
    "body{font-family:sans-serif;max-width:34rem;margin:2rem auto;padding:0 1rem}"
    "dl{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem}"
    "input[type=text]{font-size:1.1rem;width:100%}button{font-size:1.1rem;margin:1rem .5rem 0 0}"
    "pre{background:#f4f4f4;padding:.5rem;white-space:pre-wrap;word-break:break-all}"
)


def _page(title: str, body) -> str:
    return format_html(
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{}</title>'
        "<style>{}</style></head>\n<body>\n<p><small>Payment processor stand-in (lms_stub): no money "
        "moves.</small></p>\n{}\n</body></html>\n",
        title,
        STYLE,
        body,
    )


def payment_page(form: dict[str, str]) -> str:
    """The hosted payment page: what is being paid, the test card filled in, Pay and Decline.
    The checkout form travels on in hidden fields (the confirmation verifies it again)."""
    hidden = format_html_join(
        "\n", '<input type="hidden" name="{}" value="{}">', ((name, value) for name, value in form.items())
    )
    body = format_html(
        "<h1>Pay {} {}</h1>\n"
        '<dl><dt>Order</dt><dd id="reference-number">{}</dd><dt>Learner</dt><dd>{}</dd></dl>\n'
        '<form method="post" action="{}">\n{}\n'
        '<label for="card-number">Card number</label>\n'
        '<input type="text" id="card-number" name="card_number" value="{}" inputmode="numeric" '
        'autocomplete="cc-number">\n'
        '<div><button type="submit" name="pay_action" value="pay">Pay</button>'
        '<button type="submit" name="pay_action" value="decline">Decline</button></div>\n'
        "</form>",
        form["amount"],
        form["currency"],
        form["reference_number"],
        form.get("consumer_id", ""),
        paths.PROCESSOR_CONFIRM,
        hidden,
        cybersource.TEST_CARD,
    )
    return _page("Payment", body)


def receipt_page(notification: dict[str, str], status: int, answer: str) -> str:
    """What the stand-in decided and told the shop, and what the shop answered."""
    accepted = notification["decision"] == cybersource.ACCEPT
    body = format_html(
        "<h1>{}</h1>\n"
        '<dl><dt>Order</dt><dd id="reference-number">{}</dd>'
        '<dt>Decision</dt><dd id="decision">{}</dd>'
        "<dt>Amount</dt><dd>{} {}</dd>"
        "<dt>Card</dt><dd>{}</dd>"
        '<dt>Transaction</dt><dd id="transaction-id">{}</dd></dl>\n'
        '<h2>The shop\'s answer</h2>\n<p id="notify-status">{}</p>\n<pre id="notify-answer">{}</pre>',
        "Payment accepted" if accepted else "Payment declined",
        notification["req_reference_number"],
        notification["decision"],
        notification["req_amount"],
        notification["req_currency"],
        notification["req_card_number"],
        notification["transaction_id"],
        f"HTTP {status}",
        answer or "(empty)",
    )
    return _page("Receipt", body)
